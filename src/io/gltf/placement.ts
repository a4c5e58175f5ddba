/**
 * A node's global transform as splats take it. KHR_gaussian_splatting
 * places a splat's centre by the whole matrix and its covariance by the
 * matrix's linear part L (Σ = L C Cᵀ Lᵀ), and asks that L be a rotation
 * times positive scales along its axes, its SH turned by that rotation.
 * So L is split into orthogonal axes Q (its columns made unit) and their
 * scales. When the scales are one and Q a rotation, a splat's quaternion
 * is composed with Q's and its scales multiplied (exact, and the common
 * case); otherwise each splat's covariance is worked out and decomposed
 * again (placed-shapes.ts), which is exact too. A mirror (det Q = -1),
 * which the extension leaves undefined, is read as the mirror image, SH
 * included; a shear (columns not at right angles) cannot keep splats
 * Gaussian with SH turned by one rotation, and is refused. DOM-free.
 */
import { SplatFormatError } from '../format-error';
import type { Matrix } from './nodes';
import { quaternionOf } from '../rotation-quaternion';

export interface Placement {
  /** The transform changes nothing: values are copied as they are, bit for bit. */
  identity: boolean;
  matrix: Matrix;
  /** L (the upper 3×3 of the matrix), row-major. */
  linear: Float64Array;
  /** Q: L's columns made unit, row-major; orthogonal, det ±1. */
  axes: Float64Array;
  /** Q's determinant is -1. */
  mirrored: boolean;
  /** Set when L is a rotation times one positive scale: its quaternion (w x y z) and that scale. */
  uniform?: { rotation: [number, number, number, number]; scale: number };
}

/** Relative difference tolerated between the axes' scales, and in Q's determinant. */
const TOLERANCE = 1e-4;

export function placementOf(matrix: Matrix, node: number): Placement {
  const linear = Float64Array.of(matrix[0]!, matrix[4]!, matrix[8]!, matrix[1]!, matrix[5]!, matrix[9]!, matrix[2]!, matrix[6]!, matrix[10]!);
  const identity = matrix.every((v, i) => v === (i % 5 === 0 ? 1 : 0));
  if (identity) return { identity, matrix, linear, axes: linear, mirrored: false, uniform: { rotation: [1, 0, 0, 0], scale: 1 } };
  const where = node < 0 ? 'the scene' : `nodes[${node}]`;
  if (!matrix.every(Number.isFinite) || matrix[3] !== 0 || matrix[7] !== 0 || matrix[11] !== 0 || matrix[15] !== 1) {
    throw new SplatFormatError(`glTF ${where}'s global transform is not an affine matrix of finite numbers`);
  }
  const lengths = [0, 1, 2].map((c) => Math.hypot(linear[c]!, linear[3 + c]!, linear[6 + c]!));
  if (!lengths.every((l) => l > 0 && Number.isFinite(l))) {
    throw new SplatFormatError(`glTF ${where}'s global transform scales an axis to ${lengths.map((l) => +l.toPrecision(4)).join(', ')}: splats need every axis kept`);
  }
  const axes = linear.map((v, i) => v / lengths[i % 3]!);
  const r = (row: number, col: number): number => axes[row * 3 + col]!;
  const det = r(0, 0) * (r(1, 1) * r(2, 2) - r(1, 2) * r(2, 1))
    - r(0, 1) * (r(1, 0) * r(2, 2) - r(1, 2) * r(2, 0))
    + r(0, 2) * (r(1, 0) * r(2, 1) - r(1, 1) * r(2, 0));
  // Unit columns span a volume of 1 only when they stand at right angles.
  if (Math.abs(Math.abs(det) - 1) > 10 * TOLERANCE) {
    throw new SplatFormatError(`glTF ${where}'s global transform shears (its axes, made unit, span ${Math.abs(det).toFixed(3)}, not 1): splats are read under a rotation and scales along its axes only`);
  }
  const mirrored = det < 0;
  const scale = (lengths[0]! + lengths[1]! + lengths[2]!) / 3;
  const even = lengths.every((l) => Math.abs(l - scale) <= TOLERANCE * scale);
  return { identity, matrix, linear, axes, mirrored, uniform: even && !mirrored ? { rotation: quaternionOf(r), scale } : undefined };
}
