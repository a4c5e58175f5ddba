/**
 * The PSNR a picture keeps against itself moved by a fraction of a pixel:
 * what a level of detail off by `shiftPx` pixels everywhere would score
 * against the full detail, however good it is otherwise. A world's
 * threshold is a displacement on screen (src/scene/level-displacement.ts),
 * so this is the floor that threshold promises, and the ceiling any
 * choice of levels at that threshold can reach: the full detail of a dense
 * city at 1920×1080 moved by half a pixel is only 26–28 dB from itself
 * (docs/benchmarks.md, "How far a level's pixels can be off").
 *
 * The picture is moved along x and along y in turn (linear interpolation
 * between neighbouring pixels, the far edge held), and the two mean squared
 * errors are averaged: a leaf's detail moves in every direction on screen.
 */
import { psnrOfMse } from '../cli/picture-compare';

/** PSNR in dB of an RGBA8 picture against itself moved by `shiftPx` (≥ 0) pixels, along x and y in turn; Infinity for 0 or a flat picture. */
export function shiftFloor(rgba: Uint8Array, width: number, height: number, shiftPx: number): number {
  if (!(shiftPx >= 0)) throw new RangeError(`shiftFloor: a shift of ${shiftPx} px`);
  if (rgba.length !== width * height * 4) throw new RangeError(`shiftFloor: ${rgba.length} bytes for ${width}×${height}`);
  const whole = Math.floor(shiftPx);
  const part = shiftPx - whole;
  // The channel value at (x, y), edges held.
  const at = (x: number, y: number, c: number) => rgba[(Math.min(y, height - 1) * width + Math.min(x, width - 1)) * 4 + c]!;
  let sum = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      for (let c = 0; c < 3; c++) {
        const here = at(x, y, c);
        const alongX = (1 - part) * at(x + whole, y, c) + part * at(x + whole + 1, y, c);
        const alongY = (1 - part) * at(x, y + whole, c) + part * at(x, y + whole + 1, c);
        sum += ((here - alongX) ** 2 + (here - alongY) ** 2) / 2;
      }
    }
  }
  return psnrOfMse(sum / (width * height * 3));
}
