/**
 * SPZ's axes and the PLY scenes' axes, in one place for the reader and the
 * writer. SPZ stores coordinates as RUB (x right, y up, z back); PLY scenes
 * are RDF (y down, z forward). RUB to RDF is a 180° turn about x: y and z
 * of positions and of quaternion axes change sign, and each SH coefficient
 * by the parity of its basis function in y and z. The turn is its own
 * inverse, so the writer applies the same signs to go back. DOM-free.
 */

/** Sign of x, y and z (of a position, or a quaternion's axis) from RUB to RDF and back. */
export const RUB_RDF_AXIS_SIGNS = [1, -1, -1] as const;

/** Sign of each SH coefficient (degree 1..3, 15 in all) from RUB to RDF and back. */
export const RUB_RDF_SH_SIGNS = [
  -1, -1, 1,
  -1, 1, 1, -1, 1,
  -1, 1, -1, -1, 1, -1, 1,
] as const;

/** The signs that keep SPZ's own axes. */
export const SAME_AXIS_SIGNS = [1, 1, 1] as const;
