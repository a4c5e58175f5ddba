/**
 * Writes a SplatCloud as a Niantic .spz file, version 3, gzip-wrapped (the
 * layout is spz/layout.ts's): positions in 24-bit fixed point, opacity,
 * colour and log-scale in 8 bits, rotations as "smallest three" in 32 bits,
 * SH coefficients in 8 bits each. The axes go back from the PLY convention
 * to SPZ's own with the reader's conversion (spz/axes.ts). DOM-free.
 *
 * Fractional bits: 12 (1/4096 of a unit, as Niantic's writer), fewer when
 * a splat lies farther than 2^23 steps from the origin, so nothing is
 * clipped; a scene farther out than 2^23 units is refused, naming the
 * splat. Values past what 8 bits hold are clamped: dc to ±3.33, log-scales
 * to -10..5.94 (a scale of 0 to e^-10; save-losses.ts names the splats
 * above e^5.94), SH coefficients to ±127/128. A negative scale is written
 * as its magnitude, the size it is drawn at.
 */
import { gzipSync } from 'fflate';
import { ANTIALIASED_FILTER } from '../../scene/anti-aliasing';
import { shCoefficients, type SplatCloud } from '../../scene/splat-cloud';
import { RUB_RDF_AXIS_SIGNS, RUB_RDF_SH_SIGNS } from '../spz/axes';
import { HEADER_BYTES, planeSizes, SPZ_MAGIC, SPZ_MAX_POINTS } from '../spz/layout';
import { checkWritable, drawnScale, UnwritableSceneError } from './writable';
import { SPZ_LARGEST_SH } from '../formats/save-losses';

export const SPZ_WRITTEN_VERSION = 3;
const MOST_FRACTIONAL_BITS = 12;
const MAX_FIXED = 2 ** 23 - 1;
const COLOUR_SCALE = 0.15;
/**
 * SH coefficients are clamped to ±127/128, the most 8 bits hold on both
 * sides: the axes' signs then cannot turn a clamp at -1 into one at +1.
 */
const SH_MOST = SPZ_LARGEST_SH;

const clampByte = (v: number): number => Math.min(255, Math.max(0, Math.round(v)));

/** The most fractional bits (up to 12) with which every position fits 24 bits. */
export function spzFractionalBits(cloud: SplatCloud): number {
  let largest = 0;
  for (let i = 0; i < cloud.count * 3; i++) largest = Math.max(largest, Math.abs(cloud.positions[i]!));
  let bits = MOST_FRACTIONAL_BITS;
  while (bits > 0 && largest * 2 ** bits > MAX_FIXED) bits--;
  return bits;
}

/** Throws, naming the first splat, when a position lies beyond the 24 bits' reach at no fractional bits. */
function checkPositions(cloud: SplatCloud): void {
  for (let i = 0; i < cloud.count * 3; i++) {
    const v = cloud.positions[i]!;
    if (Math.abs(v) > MAX_FIXED) {
      throw new UnwritableSceneError(
        `Cannot save as SPZ: the ${'xyz'[i % 3]} of splat ${Math.floor(i / 3).toLocaleString('en-US')} is ${v}, ` +
        `beyond the ±${MAX_FIXED.toLocaleString('en-US')} units SPZ's positions reach`,
      );
    }
  }
}

/** The file's bytes: the header and attribute planes, gzipped. */
export function writeSpz(cloud: SplatCloud): Uint8Array {
  checkWritable(cloud, 'SPZ');
  const { count: n, shDegree, positions, scales, rotations, opacities, dc, sh } = cloud;
  if (n > SPZ_MAX_POINTS) {
    throw new RangeError(`SPZ files hold at most ${SPZ_MAX_POINTS.toLocaleString('en-US')} splats; this scene has ${n.toLocaleString('en-US')}`);
  }
  checkPositions(cloud);
  const header = { version: SPZ_WRITTEN_VERSION, count: n, shDegree, fractionalBits: spzFractionalBits(cloud), antialiased: false, hasExtensions: false };
  const sizes = planeSizes(header);
  const data = new Uint8Array(HEADER_BYTES + sizes.reduce((a, b) => a + b, 0));
  const view = new DataView(data.buffer);
  view.setUint32(0, SPZ_MAGIC, true);
  view.setUint32(4, SPZ_WRITTEN_VERSION, true);
  view.setUint32(8, n, true);
  data[12] = shDegree;
  data[13] = header.fractionalBits;
  const filter = cloud.antiAliasing?.filter;
  data[14] = filter && filter.variance === ANTIALIASED_FILTER.variance && filter.compensate ? 1 : 0;

  const planeStart: number[] = [];
  sizes.reduce((at, size) => (planeStart.push(at), at + size), HEADER_BYTES);
  const [pAt, aAt, cAt, sAt, rAt, shAt] = planeStart as [number, number, number, number, number, number | undefined];
  const scale = 2 ** header.fractionalBits;
  for (let i = 0; i < n * 3; i++) {
    const fixed = Math.min(MAX_FIXED, Math.max(-MAX_FIXED - 1, Math.round(positions[i]! * RUB_RDF_AXIS_SIGNS[i % 3]! * scale)));
    data[pAt + 3 * i] = fixed & 0xff;
    data[pAt + 3 * i + 1] = (fixed >> 8) & 0xff;
    data[pAt + 3 * i + 2] = (fixed >> 16) & 0xff;
    data[cAt + i] = clampByte((dc[i]! * COLOUR_SCALE + 0.5) * 255);
    // log 0 = −Infinity clamps to the smallest step: a scale of e^-10.
    data[sAt + i] = clampByte((Math.log(drawnScale(scales[i]!)) + 10) * 16);
  }
  for (let i = 0; i < n; i++) {
    data[aAt + i] = clampByte(opacities[i]! * 255);
    view.setUint32(rAt + 4 * i, smallestThree(rotations, 4 * i), true);
  }
  const K = shCoefficients(shDegree);
  if (shAt !== undefined) {
    for (let i = 0; i < n; i++) {
      for (let k = 0; k < K; k++) {
        const sign = RUB_RDF_SH_SIGNS[k]!;
        for (let c = 0; c < 3; c++) {
          const at = (i * K + k) * 3 + c;
          data[shAt + at] = Math.round(Math.min(SH_MOST, Math.max(-SH_MOST, sign * sh[at]!)) * 128 + 128);
        }
      }
    }
  }
  // mtime 0: the same scene gives the same bytes.
  return gzipSync(data, { mtime: 0 });
}

const q = [0, 0, 0, 0];

/**
 * The unit quaternion w x y z at `rotations[at..]`, in SPZ's axes, as
 * version 3 stores it: in x y z w order, the index of the largest
 * component (made positive) in bits 30..31, and the other three, the
 * lowest index in the highest bits, as 9 bits of |v| / sqrt(1/2) and a sign.
 */
function smallestThree(rotations: Float32Array, at: number): number {
  q[0] = rotations[at + 1]! * RUB_RDF_AXIS_SIGNS[0];
  q[1] = rotations[at + 2]! * RUB_RDF_AXIS_SIGNS[1];
  q[2] = rotations[at + 3]! * RUB_RDF_AXIS_SIGNS[2];
  q[3] = rotations[at]!;
  let largest = 0;
  for (let c = 1; c < 4; c++) if (Math.abs(q[c]!) > Math.abs(q[largest]!)) largest = c;
  const flip = q[largest]! < 0 ? -1 : 1;
  let packed = largest;
  for (let c = 0; c < 4; c++) {
    if (c === largest) continue;
    const v = q[c]! * flip;
    const magnitude = Math.min(511, Math.round((Math.abs(v) / Math.SQRT1_2) * 511));
    packed = packed * 1024 + (v < 0 ? 512 : 0) + magnitude;
  }
  return packed >>> 0;
}
