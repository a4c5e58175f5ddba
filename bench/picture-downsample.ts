/**
 * A picture drawn at `factor` times the width and height, averaged over
 * each factor × factor block of its pixels (rounded to the nearest level):
 * the world benchmark's supersampled full detail, nearer the scene as a
 * display would show it than one sample a pixel, which aliases where
 * thousands of sub-pixel splats fill a pixel. The colour values are
 * averaged as stored: the splats were blended in those values too.
 */

/** RGBA8 of (width / factor) × (height / factor) from an RGBA8 picture of width × height (both multiples of factor). */
export function boxDownsample(rgba: Uint8Array, width: number, height: number, factor: number): Uint8Array {
  if (!Number.isInteger(factor) || factor < 1 || width % factor !== 0 || height % factor !== 0) {
    throw new RangeError(`boxDownsample: ${width}×${height} by ${factor}`);
  }
  if (rgba.length !== width * height * 4) throw new RangeError(`boxDownsample: ${rgba.length} bytes for ${width}×${height}`);
  const w = width / factor;
  const h = height / factor;
  const out = new Uint8Array(w * h * 4);
  const area = factor * factor;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      for (let c = 0; c < 4; c++) {
        let sum = 0;
        for (let dy = 0; dy < factor; dy++) {
          const row = (y * factor + dy) * width + x * factor;
          for (let dx = 0; dx < factor; dx++) sum += rgba[(row + dx) * 4 + c]!;
        }
        out[(y * w + x) * 4 + c] = Math.round(sum / area);
      }
    }
  }
  return out;
}
