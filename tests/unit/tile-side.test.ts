/**
 * The side of a frame's tiles (tileSideFor, src/render/tiles/tile-side.ts):
 * 8 pixels after a frame read at 16 that binned under SMALL_TILES_BELOW
 * pairs a kept splat, kept until a frame at 8 bins over SMALL_TILES_UNTIL;
 * 16 before any frame was read, when nothing was kept, or when the pairs
 * small tiles would need pass what the device sorts; a fixed setting
 * decides alone.
 */
import { expect, test } from 'vitest';
import { SMALL_TILE_PAIRS, SMALL_TILES_BELOW, SMALL_TILES_UNTIL, tileCount, tileSideFor, type TileSide } from '../../src/render/tiles/tile-side';

const counts = (touched: number, entries: number, tileSide: TileSide, cutEntries = 0) => ({ touched, total: touched, entries, cutEntries, tileSide });
const LIMIT = 2 ** 27;

test('splats under two pairs each at 16-pixel tiles go to 8, the rest stay', () => {
  // The replicated scene from outside (1.37 a splat) and on the way in (1.79); from inside (2.45) and the 150k scene from outside (4.29) stay.
  expect(tileSideFor(counts(9.88e6, 7.19e6, 16), 'auto', LIMIT)).toBe(8);
  expect(tileSideFor(counts(5.08e6, 2.83e6, 16), 'auto', LIMIT)).toBe(8);
  expect(tileSideFor(counts(4.97e6, 2.03e6, 16), 'auto', LIMIT)).toBe(16);
  expect(tileSideFor(counts(642e3, 150e3, 16), 'auto', LIMIT)).toBe(16);
  expect(tileSideFor(counts(SMALL_TILES_BELOW * 1e6, 1e6, 16), 'auto', LIMIT)).toBe(16);
  // The entries the candidate budget cut bin nothing: pairs are counted against those kept.
  expect(tileSideFor(counts(1.5e6, 1e6, 16, 400_000), 'auto', LIMIT)).toBe(16);
});

test('at 8-pixel tiles a view stays until its splats bin over SMALL_TILES_UNTIL pairs each, so no view near the line switches every frame', () => {
  // The same splats bin 1.3–1.6 times the pairs at 8: a view just under the line at 16 stays at 8.
  expect(tileSideFor(counts(1.9e6 * SMALL_TILE_PAIRS, 1e6, 8), 'auto', LIMIT)).toBe(8);
  expect(tileSideFor(counts(SMALL_TILES_UNTIL * 1e6, 1e6, 8), 'auto', LIMIT)).toBe(8);
  expect(tileSideFor(counts(SMALL_TILES_UNTIL * 1e6 + 1, 1e6, 8), 'auto', LIMIT)).toBe(16);
  expect(tileSideFor(counts(9.6e6, 2.03e6, 8), 'auto', LIMIT)).toBe(16);
});

test('no frame read, none kept, or small tiles past the pairs the device sorts: 16; a fixed side decides alone', () => {
  expect(tileSideFor(null, 'auto', LIMIT)).toBe(16);
  expect(tileSideFor(counts(0, 0, 16), 'auto', LIMIT)).toBe(16);
  expect(tileSideFor(counts(10, 10, 16, 10), 'auto', LIMIT)).toBe(16);
  expect(tileSideFor(counts(1.2e6, 1e6, 16), 'auto', 1.2e6 * SMALL_TILE_PAIRS)).toBe(8);
  expect(tileSideFor(counts(1.2e6, 1e6, 16), 'auto', 1.2e6 * SMALL_TILE_PAIRS - 1)).toBe(16);
  expect(tileSideFor(null, 8, LIMIT)).toBe(8);
  expect(tileSideFor(counts(1e3, 1e6, 16), 16, LIMIT)).toBe(16);
});

test('a picture has a tile for every started 8 or 16 pixels each way', () => {
  expect(tileCount(1920, 1080, 16)).toBe(120 * 68);
  expect(tileCount(1920, 1080, 8)).toBe(240 * 135);
  expect(tileCount(93, 61, 8)).toBe(12 * 8);
});
