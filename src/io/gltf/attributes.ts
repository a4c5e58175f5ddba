/**
 * The names KHR_gaussian_splatting gives a splat primitive's attributes,
 * for the reader and the GLB writer. Followed: the extension's text in
 * KhronosGroup/glTF, extensions/2.0/Khronos/KHR_gaussian_splatting, status
 * "Release Candidate", as of its editorial review of 2026-04-15 (commit
 * 63770cc). What it says of the values, and what SplatCloud wants:
 * - POSITION: the centre, in the node's space; glTF's axes are x right,
 *   y up, z back (RUB), the PLY scenes' are RDF: a 180° turn about x
 *   (spz/axes.ts), as for SPZ.
 * - ROTATION: a unit quaternion in glTF's order x y z w (SplatCloud: w x y z).
 * - SCALE: linear standard deviations, as SplatCloud's (no log).
 * - OPACITY: linear in [0, 1], as SplatCloud's (no logit).
 * - SH_DEGREE_0_COEF_0: the raw degree-0 SH coefficients, as SplatCloud's
 *   dc (colour = 0.5 + SH_C0 · dc); COLOR_0 is only a fallback for
 *   viewers without the extension and is not read.
 * - SH_DEGREE_l_COEF_n: degree l's coefficients from m = -l up, each RGB:
 *   the INRIA order of the f_rest coefficients, which SplatCloud keeps.
 * DOM-free.
 */
export const EXTENSION = 'KHR_gaussian_splatting';
export const POSITION = 'POSITION';
export const ROTATION = `${EXTENSION}:ROTATION`;
export const SCALE = `${EXTENSION}:SCALE`;
export const OPACITY = `${EXTENSION}:OPACITY`;

/** The attribute of SH degree `degree`'s coefficient `coefficient` (0 ≤ coefficient ≤ 2·degree). */
export function shAttribute(degree: number, coefficient: number): string {
  return `${EXTENSION}:SH_DEGREE_${degree}_COEF_${coefficient}`;
}

/** The colour space of 3DGS training's output, which this viewer shows as it is. */
export const SRGB_DISPLAY = 'srgb_rec709_display';
/** Linear colours, encoded to sRGB on reading (colour-space.ts). */
export const LINEAR_DISPLAY = 'lin_rec709_display';
/** The one kernel the extension defines. */
export const ELLIPSE = 'ellipse';
/** The one projection, and the one sorting method, the extension defines: its defaults. */
export const PERSPECTIVE = 'perspective';
export const CAMERA_DISTANCE = 'cameraDistance';
/** Primitive mode POINTS: the only mode of a splat primitive. */
export const POINTS = 0;

/**
 * The key, in the extension object's `extras` (glTF's place for an
 * application's own data), that says its splats were trained with gsplat's
 * antialiased rasterizer, as SPZ's flag "antialiased" says: the extension
 * has no word for a screen filter. Splatsort's GLB writer writes
 * `"extras": { "antialiased": true }` for such a scene; other readers
 * skip extras.
 */
export const ANTIALIASED_EXTRA = 'antialiased';
