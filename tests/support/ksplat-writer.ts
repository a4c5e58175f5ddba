/**
 * Writes a SplatCloud as a GaussianSplats3D `.ksplat` file, for tests. Written
 * from the format description (see the header comment of src/io/ksplat/layout.ts for
 * the byte layout) and deliberately sharing no code with the parser, so the
 * round-trip tests check one against the other.
 *
 * What it can do: compression levels 0, 1 and 2; SH degree 0..3 (at most the
 * cloud's); several sections, each with its own bucket size, block size and
 * SH degree; bucket sizes that leave partially filled buckets.
 *
 * At levels 1 and 2 the splats of a section are regrouped by bucket, so the
 * file order differs from the cloud's: `order[i]` is the cloud index of the
 * i-th splat in the file.
 */
import { allocateSplatCloud, computeBounds, SH_C0, shCoefficients, type ShDegree, type SplatCloud } from '../../src/scene/splat-cloud';
import { rng } from './splat-files';
import { halfBits } from '../../src/gpu/half-float';

export interface KsplatSectionSpec {
  /** Splats taken from the cloud, in order, after those of the sections before. */
  count: number;
  /** Capacity of a full bucket (default: the file's bucketSize). */
  bucketSize?: number;
  /** Edge of the cube a bucket covers (default: the file's blockSize). */
  blockSize?: number;
  /** SH degree stored for this section (default: the file's shDegree). */
  shDegree?: ShDegree;
}

export interface KsplatWriteOptions {
  level: 0 | 1 | 2;
  /** SH degree written (default: the cloud's); must not exceed the cloud's. */
  shDegree?: ShDegree;
  /** Default: one section with every splat. */
  sections?: KsplatSectionSpec[];
  /** Default 256, as GaussianSplats3D. */
  bucketSize?: number;
  /** Default 5, as GaussianSplats3D. */
  blockSize?: number;
  /** Level 1/2 position range R (default 32767). */
  positionRange?: number;
  /** Level 2 SH range (default: the minimum and maximum of the SH written). */
  shRange?: { min: number; max: number };
  /**
   * Write 0 in the fields whose 0 means "the default" (position range 32767,
   * SH range ±1.5) when the values are those defaults.
   */
  zeroDefaults?: boolean;
}

export interface WrittenKsplat {
  bytes: Uint8Array;
  /** order[i]: the cloud index of the i-th splat in the file. */
  order: Uint32Array;
  /** The level-2 SH range used (also written at levels 0 and 1). */
  shRange: { min: number; max: number };
  /** Byte offsets: where each section's data starts, and where the file ends. */
  sectionStarts: number[];
  /** Byte offsets inside each section: bucket lengths, centres, splats. */
  sectionParts: { lengthsAt: number; centresAt: number; splatsAt: number; end: number }[];
}

const MAIN_HEADER = 4096;
const SECTION_HEADER = 1024;

// --- float16 encoding: the renderer's (src/gpu/half-float.ts), NaN kept a NaN ---

/** The float16 bit pattern nearest to v (ties to even, clamped to ±65504, as GaussianSplats3D's converter does); NaN as a NaN. */
export function toFloat16(v: number): number {
  return Number.isNaN(v) ? 0x7e00 : halfBits(v);
}

// --- SH: our coefficient-major order → ksplat's band by band, channel by channel ---

/** Appends the first `degree` bands of splat i's SH in ksplat order. */
function shInKsplatOrder(cloud: SplatCloud, i: number, degree: ShDegree, out: number[]): void {
  out.length = 0;
  const K = shCoefficients(cloud.shDegree);
  const bandStarts = [0, 3, 8]; // first coefficient (0-based, excluding DC) of bands 1, 2, 3
  const bandSizes = [3, 5, 7];
  for (let band = 0; band < degree; band++) {
    for (let channel = 0; channel < 3; channel++) {
      for (let j = 0; j < bandSizes[band]!; j++) {
        const k = bandStarts[band]! + j;
        out.push(cloud.sh[(i * K + k) * 3 + channel]!);
      }
    }
  }
}

// --- buckets ---

interface Bucket {
  centre: [number, number, number];
  splats: number[];
}

/**
 * Groups the splats (cloud indices) by the cube of edge blockSize they fall
 * in, measured from the section's minimum corner; each group is cut into
 * buckets of bucketSize, the remainder becoming a partially filled bucket.
 */
function makeBuckets(cloud: SplatCloud, indices: number[], blockSize: number, bucketSize: number): { full: Bucket[]; partial: Bucket[] } {
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  for (const i of indices) {
    for (let a = 0; a < 3; a++) {
      min[a] = Math.min(min[a]!, cloud.positions[3 * i + a]!);
      max[a] = Math.max(max[a]!, cloud.positions[3 * i + a]!);
    }
  }
  const cells = [0, 1, 2].map((a) => Math.floor((max[a]! - min[a]!) / blockSize) + 1);
  const groups = new Map<number, Bucket>();
  for (const i of indices) {
    const cell = [0, 1, 2].map((a) => Math.min(cells[a]! - 1, Math.floor((cloud.positions[3 * i + a]! - min[a]!) / blockSize)));
    const key = (cell[0]! * cells[1]! + cell[1]!) * cells[2]! + cell[2]!;
    let group = groups.get(key);
    if (!group) {
      const centre = [0, 1, 2].map((a) => Math.fround(min[a]! + (cell[a]! + 0.5) * blockSize)) as [number, number, number];
      group = { centre, splats: [] };
      groups.set(key, group);
    }
    group.splats.push(i);
  }
  const full: Bucket[] = [];
  const partial: Bucket[] = [];
  for (const group of groups.values()) {
    for (let start = 0; start < group.splats.length; start += bucketSize) {
      const splats = group.splats.slice(start, start + bucketSize);
      (splats.length === bucketSize ? full : partial).push({ centre: group.centre, splats });
    }
  }
  return { full, partial };
}

// --- the file ---

export function writeKsplat(cloud: SplatCloud, options: KsplatWriteOptions): WrittenKsplat {
  const level = options.level;
  const degree = options.shDegree ?? cloud.shDegree;
  if (degree > cloud.shDegree) throw new Error(`cannot write SH degree ${degree} from a cloud of degree ${cloud.shDegree}`);
  const specs = options.sections ?? [{ count: cloud.count }];
  if (specs.reduce((sum, s) => sum + s.count, 0) !== cloud.count) throw new Error('section counts must add up to the cloud count');
  const range = options.positionRange ?? 32767;
  const defaultBucketSize = options.bucketSize ?? 256;
  const defaultBlockSize = options.blockSize ?? 5;

  // Level-2 SH range: over every SH value written, unless given.
  let shRange = options.shRange;
  if (!shRange) {
    let lo = Infinity, hi = -Infinity;
    const tmp: number[] = [];
    let first = 0;
    for (const spec of specs) {
      const d = spec.shDegree ?? degree;
      for (let i = first; i < first + spec.count; i++) {
        shInKsplatOrder(cloud, i, d, tmp);
        for (const v of tmp) {
          lo = Math.min(lo, v);
          hi = Math.max(hi, v);
        }
      }
      first += spec.count;
    }
    shRange = lo < hi ? { min: lo, max: hi } : { min: -1.5, max: 1.5 };
  }
  const shMin = Math.fround(shRange.min);
  const shMax = Math.fround(shRange.max);

  interface Planned {
    spec: KsplatSectionSpec; degree: ShDegree; bucketSize: number; blockSize: number;
    order: number[]; full: Bucket[]; partial: Bucket[]; bytesPerSplat: number; size: number;
  }
  const planned: Planned[] = [];
  let first = 0;
  for (const spec of specs) {
    const d = spec.shDegree ?? degree;
    if (d > cloud.shDegree) throw new Error(`section SH degree ${d} exceeds the cloud's ${cloud.shDegree}`);
    const bucketSize = spec.bucketSize ?? defaultBucketSize;
    const blockSize = spec.blockSize ?? defaultBlockSize;
    const indices = Array.from({ length: spec.count }, (_, j) => first + j);
    first += spec.count;
    const shValues = shCoefficients(d) * 3;
    const bytesPerSplat = level === 0 ? 44 + 4 * shValues : 24 + (level === 1 ? 2 : 1) * shValues;
    let full: Bucket[] = [];
    let partial: Bucket[] = [];
    let order = indices;
    if (level > 0 && spec.count > 0) {
      ({ full, partial } = makeBuckets(cloud, indices, blockSize, bucketSize));
      order = [...full, ...partial].flatMap((b) => b.splats);
    }
    const bucketBytes = level > 0 ? partial.length * 4 + (full.length + partial.length) * 12 : 0;
    planned.push({
      spec, degree: d, bucketSize, blockSize, order, full, partial, bytesPerSplat,
      size: bucketBytes + bytesPerSplat * spec.count,
    });
  }

  const dataStart = MAIN_HEADER + SECTION_HEADER * planned.length;
  const total = dataStart + planned.reduce((sum, p) => sum + p.size, 0);
  const bytes = new Uint8Array(total);
  const view = new DataView(bytes.buffer);

  // Main header.
  bytes[0] = 0; // version 0.1
  bytes[1] = 1;
  view.setUint32(4, planned.length, true);
  view.setUint32(8, planned.length, true);
  view.setUint32(12, cloud.count, true);
  view.setUint32(16, cloud.count, true);
  view.setUint16(20, level, true);
  const centre = [0, 0, 0];
  for (let i = 0; i < cloud.count; i++) for (let a = 0; a < 3; a++) centre[a]! += cloud.positions[3 * i + a]! / cloud.count;
  for (let a = 0; a < 3; a++) view.setFloat32(24 + 4 * a, centre[a]!, true);
  const defaultShRange = shMin === -1.5 && shMax === 1.5;
  view.setFloat32(36, options.zeroDefaults && defaultShRange ? 0 : shMin, true);
  view.setFloat32(40, options.zeroDefaults && defaultShRange ? 0 : shMax, true);

  const order = new Uint32Array(cloud.count);
  let written = 0;
  const sectionStarts: number[] = [];
  const sectionParts: WrittenKsplat['sectionParts'] = [];
  let base = dataStart;
  const sh: number[] = [];
  const halfBlockScale = range; // quantisation: delta * R / (block / 2)

  planned.forEach((p, s) => {
    const h = MAIN_HEADER + SECTION_HEADER * s;
    const buckets = [...p.full, ...p.partial];
    view.setUint32(h, p.spec.count, true);
    view.setUint32(h + 4, p.spec.count, true);
    if (level > 0) {
      view.setUint32(h + 8, p.bucketSize, true);
      view.setUint32(h + 12, buckets.length, true);
      view.setFloat32(h + 16, p.blockSize, true);
      view.setUint16(h + 20, 12, true);
      view.setUint32(h + 24, options.zeroDefaults && range === 32767 ? 0 : range, true);
      view.setUint32(h + 32, p.full.length, true);
      view.setUint32(h + 36, p.partial.length, true);
    }
    view.setUint32(h + 28, p.size, true);
    view.setUint16(h + 40, p.degree, true);

    sectionStarts.push(base);
    const lengthsAt = base;
    const centresAt = lengthsAt + (level > 0 ? 4 * p.partial.length : 0);
    const splatsAt = centresAt + (level > 0 ? 12 * buckets.length : 0);
    sectionParts.push({ lengthsAt, centresAt, splatsAt, end: base + p.size });
    if (level > 0) {
      p.partial.forEach((b, j) => view.setUint32(lengthsAt + 4 * j, b.splats.length, true));
      buckets.forEach((b, j) => {
        for (let a = 0; a < 3; a++) view.setFloat32(centresAt + 12 * j + 4 * a, b.centre[a]!, true);
      });
    }

    let at = splatsAt;
    const writeSplat = (i: number, bucketCentre: [number, number, number] | undefined): void => {
      order[written++] = i;
      // Rotation: normalised (w x y z); a zero quaternion becomes the identity.
      let q = [0, 1, 2, 3].map((k) => cloud.rotations[4 * i + k]!);
      const norm = Math.hypot(...q);
      q = norm > 0 ? q.map((v) => v / norm) : [1, 0, 0, 0];
      if (level === 0) {
        for (let a = 0; a < 3; a++) view.setFloat32(at + 4 * a, cloud.positions[3 * i + a]!, true);
        for (let a = 0; a < 3; a++) view.setFloat32(at + 12 + 4 * a, cloud.scales[3 * i + a]!, true);
        for (let k = 0; k < 4; k++) view.setFloat32(at + 24 + 4 * k, q[k]!, true);
      } else {
        const halfBlock = p.blockSize / 2;
        for (let a = 0; a < 3; a++) {
          // Relative to the centre as stored (float32), so only the uint16 step rounds.
          const delta = cloud.positions[3 * i + a]! - bucketCentre![a]!;
          const quantised = Math.round((delta * halfBlockScale) / halfBlock) + range;
          view.setUint16(at + 2 * a, Math.min(65535, Math.max(0, quantised)), true);
        }
        for (let a = 0; a < 3; a++) view.setUint16(at + 6 + 2 * a, toFloat16(cloud.scales[3 * i + a]!), true);
        for (let k = 0; k < 4; k++) view.setUint16(at + 12 + 2 * k, toFloat16(q[k]!), true);
      }
      const colourAt = level === 0 ? at + 40 : at + 20;
      for (let c = 0; c < 3; c++) {
        const colour = Math.min(1, Math.max(0, 0.5 + SH_C0 * cloud.dc[3 * i + c]!));
        bytes[colourAt + c] = Math.round(colour * 255);
      }
      bytes[colourAt + 3] = Math.round(Math.min(1, Math.max(0, cloud.opacities[i]!)) * 255);
      shInKsplatOrder(cloud, i, p.degree, sh);
      const shAt = colourAt + 4;
      sh.forEach((v, j) => {
        if (level === 0) view.setFloat32(shAt + 4 * j, v, true);
        else if (level === 1) view.setUint16(shAt + 2 * j, toFloat16(v), true);
        else {
          const t = (Math.min(shMax, Math.max(shMin, v)) - shMin) / (shMax - shMin);
          bytes[shAt + j] = Math.round(t * 255);
        }
      });
      at += p.bytesPerSplat;
    };

    if (level === 0) for (const i of p.order) writeSplat(i, undefined);
    else for (const b of buckets) for (const i of b.splats) writeSplat(i, b.centre);
    base += p.size;
  });

  return { bytes, order, shRange: { min: shMin, max: shMax }, sectionStarts, sectionParts };
}

/**
 * A degree-3 cloud built to exercise the quantisers: a dense cluster (full
 * buckets) plus scattered splats (partially filled ones), scales from e^-12
 * (float16 subnormals) to e^1 and a few zeros, unnormalised quaternions,
 * colours beyond [0, 1] (clamped by the 8-bit colour) and SH in [-1, 1].
 */
export function syntheticCloud(count: number, seed: number): SplatCloud {
  const next = rng(seed);
  const cloud = allocateSplatCloud(count, 3);
  for (let i = 0; i < count; i++) {
    const clustered = i % 3 !== 0;
    for (let a = 0; a < 3; a++) {
      cloud.positions[3 * i + a] = clustered ? 1 + next() * 1.5 : (next() - 0.5) * 40;
      cloud.scales[3 * i + a] = i % 97 === 5 ? 0 : Math.exp(-12 + 13 * next());
      cloud.dc[3 * i + a] = (next() - 0.5) * 5;
    }
    for (let k = 0; k < 4; k++) cloud.rotations[4 * i + k] = (next() - 0.5) * 3;
    cloud.opacities[i] = next();
  }
  for (let j = 0; j < cloud.sh.length; j++) cloud.sh[j] = next() * 2 - 1;
  cloud.bounds = computeBounds(cloud.positions, count);
  return cloud;
}
