/**
 * Splats packed as a scene's chunk buffers hold them (src/scene/gpu-splats.ts
 * says the layout): one record of SPLAT_FLOATS floats a splat (position,
 * opacity, covariance, DC colour), and the higher-band SH as half floats,
 * two to a word, a splat's starting on a word of its own. DOM-free and
 * GPU-free, so a world's workers (src/io/world-worker.ts) pack a chunk
 * where they decode it, and the page only copies the bytes to the GPU:
 * packing the SH into half floats was the main thread's largest cost while
 * a world streamed.
 */
import { shCoefficients, type ShDegree, type SplatCloud } from './splat-cloud';
import { SPLAT } from './splat-layouts';
import { packHalves } from '../gpu/half-float';

/** Floats of one splat's record (struct Splat, src/scene/splat-layouts.ts). */
export const SPLAT_FLOATS = SPLAT.size / 4;
/** Where packSplats writes each field, in floats from the record's start. */
const AT = {
  position: SPLAT.word('position'),
  opacity: SPLAT.word('opacity'),
  covA: SPLAT.word('cov_a'),
  covB: SPLAT.word('cov_b'),
  dc: SPLAT.word('dc'),
};

/** The higher-band SH values of a splat of `shDegree` (0, 9, 24 or 45). */
export const shFloatsOf = (shDegree: ShDegree): number => shCoefficients(shDegree) * 3;

/** The 32-bit words they take, two half floats to a word (0, 5, 12 or 23). */
export const shWordsOf = (shDegree: ShDegree): number => Math.ceil(shFloatsOf(shDegree) / 2);

/** Bytes a packed splat takes: its record and its SH words (64 to 156). */
export const packedBytesPerSplat = (shDegree: ShDegree): number => SPLAT.size + 4 * shWordsOf(shDegree);

/** Splats packed as a chunk buffer of a scene of SH degree `shDegree` holds them. */
export interface PackedSplats {
  readonly count: number;
  /** The SH degree the words are packed at (a scene of another degree converts them: GpuSplats.writeSplats). */
  readonly shDegree: ShDegree;
  /** count × SPLAT_FLOATS floats. */
  readonly records: Float32Array<ArrayBuffer>;
  /** count × shWordsOf(shDegree) words. */
  readonly sh: Uint32Array<ArrayBuffer>;
}

/** What a scene's splats are written from: decoded, or already packed. */
export type PoolSplats = SplatCloud | PackedSplats;

export const isPacked = (splats: PoolSplats): splats is PackedSplats => 'records' in splats;

/**
 * The first `count` splats of `cloud`, packed for a scene of SH degree
 * `shDegree` (higher bands the cloud lacks are zero, bands the scene lacks
 * are dropped), in arrays of their own (to be transferred): over buffers
 * `reuse` gives where it has one large enough (src/io/recycled-buffers.ts;
 * every word of the arrays is written), else new ones.
 */
export function packCloud(cloud: SplatCloud, count = cloud.count, shDegree: ShDegree = cloud.shDegree, reuse?: (bytes: number) => ArrayBuffer | null): PackedSplats {
  if (count < 0 || count > cloud.count) throw new RangeError(`packCloud: ${count} splats of a cloud of ${cloud.count}`);
  const recordFloats = count * SPLAT_FLOATS;
  const shWords = count * shWordsOf(shDegree);
  const recordsBuffer = reuse?.(4 * recordFloats);
  const records = packSplats(cloud, 0, count, recordsBuffer ? new Float32Array(recordsBuffer, 0, recordFloats) : new Float32Array(recordFloats));
  const shBuffer = shWords > 0 ? reuse?.(4 * shWords) : null;
  const sh = shBuffer ? new Uint32Array(shBuffer, 0, shWords) : new Uint32Array(shWords);
  packSh(cloud, 0, count, shFloatsOf(shDegree), sh);
  return { count, shDegree, records, sh };
}

/**
 * The SH of splats first .. first + n - 1 of `cloud` as `floats` values
 * each (zero-filled past the cloud's, or cut), packed two half floats to a
 * word, ceil(floats / 2) words a splat, into `out` from its start.
 */
export function packSh(cloud: SplatCloud, first: number, n: number, floats: number, out: Uint32Array): void {
  const from = shFloatsOf(cloud.shDegree);
  const sh = cloud.sh;
  const words = Math.ceil(floats / 2);
  const keep = Math.min(from, floats);
  for (let k = 0; k < n; k++) {
    const src = (first + k) * from;
    const at = k * words;
    for (let w = 0; w < words; w++) {
      const j = 2 * w;
      out[at + w] = packHalves(j < keep ? sh[src + j]! : 0, j + 1 < keep ? sh[src + j + 1]! : 0);
    }
  }
}

/**
 * Packed SH words of splats first .. first + n - 1 of `packed` as `floats`
 * values each, into `out` from its start: what packSh writes for the same
 * splats at that size (the half floats copied, zero-filled or cut). For
 * splats packed at another SH degree than the scene's.
 */
export function repackSh(packed: PackedSplats, first: number, n: number, floats: number, out: Uint32Array): void {
  const from = shFloatsOf(packed.shDegree);
  const fromWords = shWordsOf(packed.shDegree);
  const words = Math.ceil(floats / 2);
  const keep = Math.min(from, floats);
  const sh = packed.sh;
  for (let k = 0; k < n; k++) {
    const src = (first + k) * fromWords;
    const at = k * words;
    for (let w = 0; w < words; w++) {
      const j = 2 * w;
      const low = j < keep ? sh[src + w]! & 0xffff : 0;
      const high = j + 1 < keep ? sh[src + w]! >>> 16 : 0;
      out[at + w] = (low | (high << 16)) >>> 0;
    }
  }
}

/**
 * Packs the records of splats first .. first + n - 1 into `out` from its
 * start: position, opacity, covariance Σ = R S Sᵀ Rᵀ and DC colour (see
 * gpu-splats.ts). Allocates a new array when `out` is not given.
 */
export function packSplats(
  cloud: SplatCloud,
  first = 0,
  n = cloud.count - first,
  out: Float32Array<ArrayBuffer> = new Float32Array(n * SPLAT_FLOATS),
): Float32Array<ArrayBuffer> {
  const { positions: p, scales: s, rotations: q, opacities: o, dc } = cloud;
  for (let k = 0; k < n; k++) {
    const i = first + k;
    const b = k * SPLAT_FLOATS;
    out.fill(0, b, b + SPLAT_FLOATS);
    out[b + AT.position] = p[3 * i]!;
    out[b + AT.position + 1] = p[3 * i + 1]!;
    out[b + AT.position + 2] = p[3 * i + 2]!;
    out[b + AT.opacity] = o[i]!;
    const w = q[4 * i]!, x = q[4 * i + 1]!, y = q[4 * i + 2]!, z = q[4 * i + 3]!;
    // Rotation matrix of the unit quaternion (w, x, y, z), rows r0..r2.
    const r00 = 1 - 2 * (y * y + z * z), r01 = 2 * (x * y - w * z), r02 = 2 * (x * z + w * y);
    const r10 = 2 * (x * y + w * z), r11 = 1 - 2 * (x * x + z * z), r12 = 2 * (y * z - w * x);
    const r20 = 2 * (x * z - w * y), r21 = 2 * (y * z + w * x), r22 = 1 - 2 * (x * x + y * y);
    const sx = s[3 * i]!, sy = s[3 * i + 1]!, sz = s[3 * i + 2]!;
    // M = R S; Σ = M Mᵀ.
    const m00 = r00 * sx, m01 = r01 * sy, m02 = r02 * sz;
    const m10 = r10 * sx, m11 = r11 * sy, m12 = r12 * sz;
    const m20 = r20 * sx, m21 = r21 * sy, m22 = r22 * sz;
    out[b + AT.covA] = m00 * m00 + m01 * m01 + m02 * m02;
    out[b + AT.covA + 1] = m00 * m10 + m01 * m11 + m02 * m12;
    out[b + AT.covA + 2] = m00 * m20 + m01 * m21 + m02 * m22;
    out[b + AT.covB] = m10 * m10 + m11 * m11 + m12 * m12;
    out[b + AT.covB + 1] = m10 * m20 + m11 * m21 + m12 * m22;
    out[b + AT.covB + 2] = m20 * m20 + m21 * m21 + m22 * m22;
    out[b + AT.dc] = dc[3 * i]!;
    out[b + AT.dc + 1] = dc[3 * i + 1]!;
    out[b + AT.dc + 2] = dc[3 * i + 2]!;
  }
  return out;
}
