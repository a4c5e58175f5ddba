/**
 * Comparing pictures: PSNR over the colour channels of two 8-bit RGBA
 * pictures (peak 1.0 = 255 levels, the mean squared error of R, G and B over
 * every pixel; alpha is ignored), and a float RGB picture stored the way an
 * 8-bit unorm target stores it (clamped, rounded to the nearest level).
 */

/** PSNR in dB of two tightly packed RGBA8 pictures of the same size; Infinity when they are identical. */
export function psnr(a: Uint8Array, b: Uint8Array): number {
  if (a.length !== b.length || a.length % 4 !== 0) throw new RangeError(`psnr: pictures of ${a.length} and ${b.length} bytes`);
  let sum = 0;
  for (let i = 0; i < a.length; i++) {
    if ((i & 3) === 3) continue;
    const d = a[i]! - b[i]!;
    sum += d * d;
  }
  return psnrOfMse(sum / ((a.length / 4) * 3));
}

/** PSNR in dB of a mean squared error in 8-bit levels (Infinity for 0). */
export function psnrOfMse(mse: number): number {
  return mse === 0 ? Infinity : 10 * Math.log10((255 * 255) / mse);
}

/** An RGB float picture (0..1) as tightly packed RGBA8, alpha 255. */
export function toRgba8(rgb: Float32Array): Uint8Array {
  const pixels = rgb.length / 3;
  const out = new Uint8Array(pixels * 4);
  for (let p = 0; p < pixels; p++) {
    for (let c = 0; c < 3; c++) out[4 * p + c] = Math.round(Math.min(1, Math.max(0, rgb[3 * p + c]!)) * 255);
    out[4 * p + 3] = 255;
  }
  return out;
}
