/**
 * Splats placed by a linear map L that is not one scale times a rotation
 * (scales that differ between a node's axes, or a mirror): a splat's shape
 * is its covariance R S² Rᵀ, which L makes L R S² Rᵀ Lᵀ, as
 * KHR_gaussian_splatting defines it; that symmetric matrix is decomposed
 * again into principal axes (a rotation) and their spreads (the scales),
 * by Jacobi's method. The new shape is exactly the placed Gaussian, though
 * its quaternion is not the old one composed with anything. DOM-free.
 */
import { quaternionOf } from '../rotation-quaternion';

/**
 * Eigenvectors (columns of `vectors`, row-major) and eigenvalues (the
 * diagonal left in `a`) of the symmetric 3×3 matrix `a` (row-major, taken
 * apart in place), by cyclic Jacobi rotations until the off-diagonal part
 * is rounding.
 */
function diagonalise(a: Float64Array, vectors: Float64Array): void {
  vectors.set([1, 0, 0, 0, 1, 0, 0, 0, 1]);
  for (let sweep = 0; sweep < 32; sweep++) {
    const off = a[1]! * a[1]! + a[2]! * a[2]! + a[5]! * a[5]!;
    const diagonal = a[0]! * a[0]! + a[4]! * a[4]! + a[8]! * a[8]!;
    if (!(off > 1e-32 * diagonal)) return;
    for (let p = 0; p < 2; p++) {
      for (let q = p + 1; q < 3; q++) {
        const apq = a[p * 3 + q]!;
        if (apq === 0) continue;
        // The plane rotation (c, s) that zeroes a[p][q]: t = tan of its angle, the smaller root.
        const theta = (a[q * 3 + q]! - a[p * 3 + p]!) / (2 * apq);
        const t = (theta < 0 ? -1 : 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        // a ← Jᵀ a J and vectors ← vectors J: columns p and q, then rows p and q.
        for (let k = 0; k < 3; k++) {
          const kp = a[k * 3 + p]!, kq = a[k * 3 + q]!;
          a[k * 3 + p] = c * kp - s * kq;
          a[k * 3 + q] = s * kp + c * kq;
          const vp = vectors[k * 3 + p]!, vq = vectors[k * 3 + q]!;
          vectors[k * 3 + p] = c * vp - s * vq;
          vectors[k * 3 + q] = s * vp + c * vq;
        }
        for (let k = 0; k < 3; k++) {
          const pk = a[p * 3 + k]!, qk = a[q * 3 + k]!;
          a[p * 3 + k] = c * pk - s * qk;
          a[q * 3 + k] = s * pk + c * qk;
        }
      }
    }
  }
}

/**
 * Places splats first..first+count-1 under `linear` (row-major L): their
 * unit quaternions (w x y z) and scales, in place, become those of the
 * covariance L R S² Rᵀ Lᵀ.
 */
export function placeShapes(rotations: Float32Array, scales: Float32Array, first: number, count: number, linear: Float64Array): void {
  const m = new Float64Array(9);
  const covariance = new Float64Array(9);
  const axes = new Float64Array(9);
  for (let i = first; i < first + count; i++) {
    const w = rotations[4 * i]!, x = rotations[4 * i + 1]!, y = rotations[4 * i + 2]!, z = rotations[4 * i + 3]!;
    const rotation = [
      1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
      2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
      2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y),
    ];
    // M = L R S: the placed splat's axes, each as long as its spread.
    for (let r = 0; r < 3; r++) {
      for (let c = 0; c < 3; c++) {
        m[r * 3 + c] = (linear[r * 3]! * rotation[c]! + linear[r * 3 + 1]! * rotation[3 + c]! + linear[r * 3 + 2]! * rotation[6 + c]!) * scales[3 * i + c]!;
      }
    }
    for (let r = 0; r < 3; r++) {
      for (let c = 0; c < 3; c++) covariance[r * 3 + c] = m[r * 3]! * m[c * 3]! + m[r * 3 + 1]! * m[c * 3 + 1]! + m[r * 3 + 2]! * m[c * 3 + 2]!;
    }
    diagonalise(covariance, axes);
    const det = axes[0]! * (axes[4]! * axes[8]! - axes[5]! * axes[7]!)
      - axes[1]! * (axes[3]! * axes[8]! - axes[5]! * axes[6]!)
      + axes[2]! * (axes[3]! * axes[7]! - axes[4]! * axes[6]!);
    // An axis's direction is a sign's choice: the last one is turned so the axes make a rotation.
    if (det < 0) for (let r = 0; r < 3; r++) axes[r * 3 + 2] = -axes[r * 3 + 2]!;
    const [qw, qx, qy, qz] = quaternionOf((row, col) => axes[row * 3 + col]!);
    rotations.set([qw, qx, qy, qz], 4 * i);
    for (let a = 0; a < 3; a++) scales[3 * i + a] = Math.sqrt(Math.max(0, covariance[a * 4]!));
  }
}
