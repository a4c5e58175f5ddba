/**
 * A rotation matrix's unit quaternion, for the readers that turn splats
 * (a glTF node's placement, an SPZ file's recorded axes). DOM-free.
 */

/** The unit quaternion (w x y z) of a rotation matrix, by the largest of its four candidate pivots. */
export function quaternionOf(r: (row: number, col: number) => number): [number, number, number, number] {
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
