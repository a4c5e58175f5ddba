/**
 * Which frames the tile raster draws by block lists (rasterWalkFor,
 * src/render/tiles/tile-raster.ts): those after a read frame that binned
 * under BLOCK_LISTS_BELOW pairs a kept entry; none before a frame was read
 * or when nothing was kept; all when asked for (Infinity), none for 0.
 * And how many splats' alphas a pixel works out ahead (rasterArrivals).
 */
import { expect, test } from 'vitest';
import { BLOCK_LISTS_BELOW, rasterArrivals, rasterWalkFor } from '../../src/render/tiles/tile-raster';

const counts = (touched: number, entries: number, cutEntries = 0) => ({ touched, entries, cutEntries });

test('small splats walk block lists, larger ones every splat, judged by the frame read last', () => {
  expect(rasterWalkFor(counts(1.4e6, 1e6), BLOCK_LISTS_BELOW)).toBe('lists');
  expect(rasterWalkFor(counts(BLOCK_LISTS_BELOW * 1e6, 1e6), BLOCK_LISTS_BELOW)).toBe('all');
  expect(rasterWalkFor(counts(4.3e6, 1e6), BLOCK_LISTS_BELOW)).toBe('all');
  // The entries left out by the candidate budget bin nothing: pairs are counted against those kept.
  expect(rasterWalkFor(counts(1.5e6, 1e6, 600_000), BLOCK_LISTS_BELOW)).toBe('all');
});

test('no frame read, or none kept: every splat; Infinity and 0 decide alone', () => {
  expect(rasterWalkFor(null, BLOCK_LISTS_BELOW)).toBe('all');
  expect(rasterWalkFor(counts(0, 0), BLOCK_LISTS_BELOW)).toBe('all');
  expect(rasterWalkFor(counts(10, 10, 10), BLOCK_LISTS_BELOW)).toBe('all');
  expect(rasterWalkFor(null, Infinity)).toBe('lists');
  expect(rasterWalkFor(counts(1, 1e6), 0)).toBe('all');
});

test('a GPU works out 4 alphas ahead in the centre-depth order and 2 in the per-pixel order; a software adapter 4 and 1', () => {
  expect(rasterArrivals(false)).toEqual({ 'centre-depth': 4, 'per-pixel': 2 });
  expect(rasterArrivals(true)).toEqual({ 'centre-depth': 4, 'per-pixel': 1 });
});
