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

/** A lens shift: where the view axis meets the picture, in halves of its width (x, rightwards) and height (y, upwards) from its centre. */
export type LensShift = readonly [number, number];

/** No lens shift: the view axis through the picture's centre. */
export const CENTRED: LensShift = [0, 0];

/**
 * The lens shift that centres the free rectangle on the view axis (into
 * `out`): the free part runs from 2·left − 1 to 1 − 2·right, its middle
 * left − right; y likewise, from the bottom up: its middle is bottom − top.
 */
export function lensShiftOf(insets: Readonly<ViewInsets>, out: [number, number] = [0, 0]): [number, number] {
  out[0] = insets.left - insets.right;
  out[1] = insets.bottom - insets.top;
  return out;
}

/**
 * Shifts a perspective projection's picture so the view axis meets it at
 * `shift`. x_ndc = (P[0]·x + P[8]·z) / −z: P[8] = c moves every point,
 * the axis's too, by −c.
 */
export function shiftProjectionTo(out: mat4, shift: LensShift): mat4 {
  // (+ 0 makes a zero shift +0, never −0: the matrix of a centred camera is the unshifted one.)
  out[8] = -shift[0] + 0;
  out[9] = -shift[1] + 0;
  return out;
}

/** Scratch for shiftProjection, which runs every frame. */
const frameShift: [number, number] = [0, 0];

/** Shifts a perspective projection's picture so its centre falls in the middle of the free rectangle. */
export function shiftProjection(out: mat4, insets: Readonly<ViewInsets>): mat4 {
  return shiftProjectionTo(out, lensShiftOf(insets, frameShift));
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}
