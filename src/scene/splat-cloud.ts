/**
 * A scene of Gaussian splats on the CPU, with activations already applied:
 * what every loader produces and what the GPU upload consumes. DOM-free.
 *
 * Layouts (n = count):
 * - positions: 3n floats, x y z per splat.
 * - scales: 3n floats, standard deviations along the local axes (exp of the
 *   stored log-scales).
 * - rotations: 4n floats, unit quaternion per splat as w x y z.
 * - opacities: n floats in [0, 1] (sigmoid of the stored logit).
 * - dc: 3n floats, the raw degree-0 SH coefficients (f_dc_0..2); the base
 *   colour is 0.5 + SH_C0 * dc.
 * - sh: n * shCoefficients(shDegree) * 3 floats, the higher bands,
 *   coefficient-major with RGB inside: sh[(i * K + k) * 3 + channel]
 *   (K = shCoefficients(shDegree)). INRIA files store them channel-major;
 *   loaders reorder.
 */
import type { SceneAntiAliasing } from './anti-aliasing';

export interface SplatCloud {
  count: number;
  shDegree: ShDegree;
  positions: Float32Array;
  scales: Float32Array;
  rotations: Float32Array;
  opacities: Float32Array;
  dc: Float32Array;
  sh: Float32Array;
  bounds: Bounds;
  /** The anti-aliasing filter the file says the scene was trained with; absent when it says nothing. */
  antiAliasing?: SceneAntiAliasing;
  /**
   * What the file says of its axes, where its format leaves them open:
   * 'recorded' when it names the frame it was stored in (read into the
   * viewer's, so −y is up); 'two-way' when its format is written in two
   * frames a half turn about x apart and the file does not say which (an
   * SPZ without a frame record, io/spz/parse.ts). Absent for formats with
   * one convention.
   */
  axes?: 'recorded' | 'two-way';
}

export type ShDegree = 0 | 1 | 2 | 3;

export interface Bounds {
  min: [number, number, number];
  max: [number, number, number];
}

/** Coefficients per colour channel beyond degree 0: 0, 3, 8, 15. */
export function shCoefficients(degree: ShDegree): number {
  return (degree + 1) * (degree + 1) - 1;
}

/** SH degree from the number of f_rest properties (0/9/24/45), or undefined. */
export function shDegreeFromRestCount(restCount: number): ShDegree | undefined {
  const degrees: ShDegree[] = [0, 1, 2, 3];
  return degrees.find((d) => shCoefficients(d) * 3 === restCount);
}

/** The degree-0 SH basis constant: colour = 0.5 + SH_C0 * dc. */
export const SH_C0 = 0.28209479177387814;

/**
 * Zeroed arrays for `count` splats of the given SH degree, in the SplatCloud
 * layout; loaders fill them and then set `bounds` (computeBounds).
 */
export function allocateSplatCloud(count: number, shDegree: ShDegree): SplatCloud {
  return {
    count,
    shDegree,
    positions: new Float32Array(count * 3),
    scales: new Float32Array(count * 3),
    rotations: new Float32Array(count * 4),
    opacities: new Float32Array(count),
    dc: new Float32Array(count * 3),
    sh: new Float32Array(count * shCoefficients(shDegree) * 3),
    bounds: { min: [0, 0, 0], max: [0, 0, 0] },
  };
}

/**
 * Writes (w, x, y, z) / |q| at `out[at..at+3]`. Stored quaternions are often
 * not unit length (trainer output, 8-bit quantised ones); a zero one, which
 * has no direction, becomes the identity.
 */
export function writeUnitQuaternion(out: Float32Array, at: number, w: number, x: number, y: number, z: number): void {
  const norm = Math.sqrt(w * w + x * x + y * y + z * z);
  if (norm > 0) {
    out[at] = w / norm;
    out[at + 1] = x / norm;
    out[at + 2] = y / norm;
    out[at + 3] = z / norm;
  } else {
    out[at] = 1;
    out[at + 1] = 0;
    out[at + 2] = 0;
    out[at + 3] = 0;
  }
}

/** Axis-aligned bounds of the splat centres. */
export function computeBounds(positions: Float32Array, count: number): Bounds {
  if (count === 0) return { min: [0, 0, 0], max: [0, 0, 0] };
  // Scalar locals: this pass runs over every loaded scene (1M splats: ~2 ms).
  let minX = Infinity, minY = Infinity, minZ = Infinity;
  let maxX = -Infinity, maxY = -Infinity, maxZ = -Infinity;
  for (let i = 0; i < 3 * count; i += 3) {
    const x = positions[i]!, y = positions[i + 1]!, z = positions[i + 2]!;
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (y < minY) minY = y;
    if (y > maxY) maxY = y;
    if (z < minZ) minZ = z;
    if (z > maxZ) maxZ = z;
  }
  return { min: [minX, minY, minZ], max: [maxX, maxY, maxZ] };
}

/**
 * Bounds of the central part of the splat centres: per axis, from the
 * `trim` quantile to the 1 - `trim` quantile of up to 65,536 sampled splats.
 * Captured scenes have far-flung floaters and sky splats that make the full
 * bounds useless for framing the camera.
 *
 * The default trim is 1 %: at 5 % the framed PlayCanvas biker lost the top
 * of its head (its height reaches 2.87 units at the 95th percentile, 3.11
 * at the 99th, 3.14 at the 99.5th), while 1 % still leaves out the
 * floaters of the INRIA captures (the 150k scene's 1 %–99 % box is a fifth
 * wider than its 5 %–95 % one).
 */
export function robustBounds(positions: Float32Array, count: number, trim = 0.01): Bounds {
  if (count === 0) return { min: [0, 0, 0], max: [0, 0, 0] };
  const samples = Math.min(count, 65536);
  const step = count / samples;
  const axis = new Float32Array(samples);
  const min: [number, number, number] = [0, 0, 0];
  const max: [number, number, number] = [0, 0, 0];
  for (let a = 0; a < 3; a++) {
    for (let s = 0; s < samples; s++) axis[s] = positions[3 * Math.floor(s * step) + a]!;
    // Selection, not a sort: the same values, in a fraction of the time.
    min[a] = selectNth(axis, Math.floor(trim * (samples - 1)));
    max[a] = selectNth(axis, Math.ceil((1 - trim) * (samples - 1)));
  }
  return { min, max };
}

/**
 * The k-th smallest of `values` (Hoare's selection, median of three
 * pivots), reordering them; expected linear time.
 */
export function selectNth(values: Float32Array, k: number): number {
  let lo = 0, hi = values.length - 1;
  while (hi > lo) {
    const mid = (lo + hi) >> 1;
    const a = values[lo]!, b = values[mid]!, c = values[hi]!;
    const pivot = a < b ? (b < c ? b : a < c ? c : a) : a < c ? a : b < c ? c : b;
    let i = lo, j = hi;
    while (i <= j) {
      while (values[i]! < pivot) i++;
      while (values[j]! > pivot) j--;
      if (i <= j) {
        const t = values[i]!;
        values[i++] = values[j]!;
        values[j--] = t;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else break;
  }
  return values[k]!;
}

