/**
 * Splats whose colours are linear (KHR_gaussian_splatting's
 * "lin_rec709_display"), made ready for a viewer that shows its blended
 * colours as they are, as sRGB-encoded values (3DGS training's own space,
 * "srgb_rec709_display"). The extension asks to blend in linear and encode
 * the blended pixel; a splat's colour can only be encoded before blending,
 * so each splat's colour is encoded instead: its base colour exactly, and
 * its view-dependent part (the SH bands, linear in the colour) scaled by
 * the slope of the encoding at that base colour, which is exact to first
 * order in the view-dependent part. DOM-free.
 */
import { SH_C0 } from '../../scene/splat-cloud';

/** The sRGB encoding of a linear value (negative ones, which blending clamps, as 0). */
export function linearToSrgb(v: number): number {
  if (v <= 0.0031308) return Math.max(0, v) * 12.92;
  return 1.055 * v ** (1 / 2.4) - 0.055;
}

/** The linear value of an sRGB-encoded one in [0, 1] (COLOR_0 holds linear colours). */
export function srgbToLinear(v: number): number {
  return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
}

/** The slope of linearToSrgb at `v`. */
function srgbSlope(v: number): number {
  return v <= 0.0031308 ? 12.92 : (1.055 / 2.4) * v ** (1 / 2.4 - 1);
}

/**
 * Re-encodes splats base..base+count-1 of `dc` and `sh` (K coefficients a
 * channel beyond degree 0, coefficient-major with RGB inside) from linear
 * to sRGB, in place.
 */
export function encodeLinearSplats(dc: Float32Array, sh: Float32Array, K: number, base: number, count: number): void {
  for (let i = base; i < base + count; i++) {
    for (let c = 0; c < 3; c++) {
      const linear = 0.5 + SH_C0 * dc[3 * i + c]!;
      dc[3 * i + c] = (linearToSrgb(linear) - 0.5) / SH_C0;
      const slope = srgbSlope(Math.max(0, linear));
      for (let k = 0; k < K; k++) {
        const at = (i * K + k) * 3 + c;
        sh[at] = sh[at]! * slope;
      }
    }
  }
}
