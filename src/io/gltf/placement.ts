/**
 * A node's global transform as splats take it: a translation, a rotation
 * and one positive scale. A splat's centre goes through the whole matrix;
 * its rotation is turned by the node's and its scales multiplied by the
 * node's scale. The extension leaves non-decomposable matrices and
 * negative scales undefined; a scale that differs between axes would shear
 * the Gaussians, which a per-splat rotation and scale cannot hold, so both
 * are refused. DOM-free.
 */
import { SplatFormatError } from '../format-error';
import type { Matrix } from './nodes';

export interface Placement {
  /** The transform changes nothing: values are copied as they are, bit for bit. */
  identity: boolean;
  matrix: Matrix;
  /** The node's rotation, w x y z. */
  rotation: [number, number, number, number];
  scale: number;
}

/** Relative difference tolerated between the axes' scales, and in the rotation's determinant. */
const TOLERANCE = 1e-4;

export function placementOf(matrix: Matrix, node: number): Placement {
  const identity = matrix.every((v, i) => v === (i % 5 === 0 ? 1 : 0));
  if (identity) return { identity, matrix, rotation: [1, 0, 0, 0], scale: 1 };
  const where = node < 0 ? 'the scene' : `nodes[${node}]`;
  if (!matrix.every(Number.isFinite) || matrix[3] !== 0 || matrix[7] !== 0 || matrix[11] !== 0 || matrix[15] !== 1) {
    throw new SplatFormatError(`glTF ${where}'s global transform is not an affine matrix of finite numbers`);
  }
  const lengths = [0, 1, 2].map((c) => Math.hypot(matrix[c * 4]!, matrix[c * 4 + 1]!, matrix[c * 4 + 2]!));
  const scale = (lengths[0]! + lengths[1]! + lengths[2]!) / 3;
  if (!(scale > 0) || lengths.some((l) => Math.abs(l - scale) > TOLERANCE * scale)) {
    throw new SplatFormatError(
      `glTF ${where}'s global transform scales the axes by ${lengths.map((l) => +l.toPrecision(4)).join(', ')}: splats are read under one positive scale only`,
    );
  }
  const r = (row: number, col: number): number => matrix[col * 4 + row]! / scale;
  const det = r(0, 0) * (r(1, 1) * r(2, 2) - r(1, 2) * r(2, 1))
    - r(0, 1) * (r(1, 0) * r(2, 2) - r(1, 2) * r(2, 0))
    + r(0, 2) * (r(1, 0) * r(2, 1) - r(1, 1) * r(2, 0));
  if (Math.abs(det - 1) > 10 * TOLERANCE) {
    throw new SplatFormatError(`glTF ${where}'s global transform mirrors or shears (determinant ${det.toFixed(3)} once scaled out): splats are read under a rotation only`);
  }
  return { identity, matrix, rotation: quaternionOf(r), scale };
}

/** The unit quaternion (w x y z) of a rotation matrix, by the largest of its four candidate pivots. */
function quaternionOf(r: (row: number, col: number) => number): [number, number, number, number] {
  const trace = r(0, 0) + r(1, 1) + r(2, 2);
  let w: number, x: number, y: number, z: number;
  if (trace > 0) {
    const s = 2 * Math.sqrt(trace + 1);
    w = s / 4; x = (r(2, 1) - r(1, 2)) / s; y = (r(0, 2) - r(2, 0)) / s; z = (r(1, 0) - r(0, 1)) / s;
  } else if (r(0, 0) > r(1, 1) && r(0, 0) > r(2, 2)) {
    const s = 2 * Math.sqrt(1 + r(0, 0) - r(1, 1) - r(2, 2));
    w = (r(2, 1) - r(1, 2)) / s; x = s / 4; y = (r(0, 1) + r(1, 0)) / s; z = (r(0, 2) + r(2, 0)) / s;
  } else if (r(1, 1) > r(2, 2)) {
    const s = 2 * Math.sqrt(1 + r(1, 1) - r(0, 0) - r(2, 2));
    w = (r(0, 2) - r(2, 0)) / s; x = (r(0, 1) + r(1, 0)) / s; y = s / 4; z = (r(1, 2) + r(2, 1)) / s;
  } else {
    const s = 2 * Math.sqrt(1 + r(2, 2) - r(0, 0) - r(1, 1));
    w = (r(1, 0) - r(0, 1)) / s; x = (r(0, 2) + r(2, 0)) / s; y = (r(1, 2) + r(2, 1)) / s; z = s / 4;
  }
  const n = Math.hypot(w, x, y, z);
  return [w / n, x / n, y / n, z / n];
}
