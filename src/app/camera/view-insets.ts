/**
 * What overlays (the panel, the phone sheet, the stats) cover of the
 * window, as shares of its sides, and how a camera frames a scene in the
 * rest: the free rectangle, centred on the view axis by a lens shift in the
 * projection. DOM-free; the page measures, the camera applies.
 */
import type { mat4 } from 'gl-matrix';

/**
 * The shares of the window's width (left, right) and height (top, bottom)
 * that overlays cover at each edge: the scene is framed in the rest, the
 * free rectangle.
 */
export interface ViewInsets {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** No overlay: the whole window is free. */
export const NO_INSETS: Readonly<ViewInsets> = { left: 0, top: 0, right: 0, bottom: 0 };

/** The free rectangle keeps at least this share of the window's width and height, whatever the overlays. */
const MIN_FREE_SHARE = 0.1;

/**
 * Writes `insets` into `out`, clamped so at least MIN_FREE_SHARE of each
 * side stays free (NaN becomes 0). In place: the drawn camera takes them
 * every frame.
 */
export function clampInsetsInto(out: ViewInsets, insets: Readonly<ViewInsets>): void {
  out.left = clamp(insets.left, 0, 1 - MIN_FREE_SHARE) || 0;
  out.right = clamp(insets.right, 0, 1 - MIN_FREE_SHARE - out.left) || 0;
  out.top = clamp(insets.top, 0, 1 - MIN_FREE_SHARE) || 0;
  out.bottom = clamp(insets.bottom, 0, 1 - MIN_FREE_SHARE - out.top) || 0;
}

/** The share of the window's width (left, right) or height (top, bottom) left free. */
export function freeShare(insets: Readonly<ViewInsets>, a: keyof ViewInsets, b: keyof ViewInsets): number {
  return 1 - insets[a] - insets[b];
}

/**
 * Shifts a perspective projection's picture so its centre falls in the
 * middle of the free rectangle. x_ndc = (P[0]·x + P[8]·z) / −z: P[8] = c
 * moves every point by −c. The free part runs from 2·left − 1 to
 * 1 − 2·right, its middle left − right; y likewise, from the bottom up: its
 * middle is bottom − top.
 */
export function shiftProjection(out: mat4, insets: Readonly<ViewInsets>): mat4 {
  out[8] = insets.right - insets.left;
  out[9] = insets.top - insets.bottom;
  return out;
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}
