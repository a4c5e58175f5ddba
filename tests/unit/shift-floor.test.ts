/**
 * The shift floor (bench/shift-floor.ts): a picture against itself moved
 * by a fraction of a pixel, along x and y in turn.
 */
import { expect, test } from 'vitest';
import { shiftFloor } from '../../bench/shift-floor';
import { psnrOfMse } from '../../cli/picture-compare';
import { rng } from '../support/splat-files';

const picture = (width: number, height: number, value: (x: number, y: number) => number) => {
  const rgba = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) rgba.fill(value(x, y), (y * width + x) * 4, (y * width + x) * 4 + 3);
  return rgba;
};

test('a flat picture, or no shift, loses nothing', () => {
  expect(shiftFloor(picture(8, 6, () => 90), 8, 6, 0.5)).toBe(Infinity);
  expect(shiftFloor(picture(8, 6, (x, y) => 10 * x + y), 8, 6, 0)).toBe(Infinity);
});

test('a ramp along x moved by t pixels is off by slope × t wherever the far edge is not held, and not at all along y', () => {
  const width = 200;
  const rgba = picture(width, 4, (x) => x);
  // Columns past width - 1 - t hold the edge: there the error is smaller (x's last whole columns).
  for (const t of [0.25, 0.5, 2]) {
    let sum = 0;
    for (let x = 0; x < width; x++) sum += (Math.min(x + t, width - 1) - x) ** 2 / 2;
    expect(shiftFloor(rgba, width, 4, t)).toBeCloseTo(psnrOfMse(sum / width), 9);
  }
});

test('a textured picture loses more the further it is moved', () => {
  const rand = rng(5);
  const rgba = picture(64, 48, () => Math.floor(rand() * 256));
  const floors = [0.1, 0.25, 0.5, 1, 2].map((t) => shiftFloor(rgba, 64, 48, t));
  for (let k = 1; k < floors.length; k++) expect(floors[k]).toBeLessThan(floors[k - 1]!);
  expect(() => shiftFloor(rgba, 64, 48, -1)).toThrow(RangeError);
  expect(() => shiftFloor(rgba, 64, 47, 1)).toThrow(RangeError);
});
