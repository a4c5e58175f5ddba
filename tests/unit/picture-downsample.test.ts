/** The supersampled picture's average (bench/picture-downsample.ts). */
import { expect, test } from 'vitest';
import { boxDownsample } from '../../bench/picture-downsample';

test('each block of factor × factor pixels becomes its rounded mean, channel by channel', () => {
  // 4 × 2 → 2 × 1 by 2: the left block's red 0, 10, 20, 31 → 15.25 → 15; the right block's 100 ×3 and 101 → 100.25 → 100.
  const rgba = new Uint8Array(4 * 2 * 4);
  const set = (x: number, y: number, r: number, a = 255) => rgba.set([r, 255 - r, 7, a], (y * 4 + x) * 4);
  set(0, 0, 0); set(1, 0, 10); set(0, 1, 20); set(1, 1, 31);
  set(2, 0, 100); set(3, 0, 100); set(2, 1, 100); set(3, 1, 101, 0);
  expect([...boxDownsample(rgba, 4, 2, 2)]).toEqual([15, 240, 7, 255, 100, 155, 7, 191]);
  expect(boxDownsample(rgba, 4, 2, 1)).toEqual(rgba);
});

test('sizes that do not divide, or bytes that do not match, are refused', () => {
  expect(() => boxDownsample(new Uint8Array(3 * 2 * 4), 3, 2, 2)).toThrow(RangeError);
  expect(() => boxDownsample(new Uint8Array(4 * 2 * 4), 4, 2, 0)).toThrow(RangeError);
  expect(() => boxDownsample(new Uint8Array(10), 4, 2, 2)).toThrow(RangeError);
});
