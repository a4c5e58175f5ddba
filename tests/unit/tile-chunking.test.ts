/**
 * How the tile raster cuts long runs (src/render/tiles/tile-chunks.ts): the
 * per-pixel order never, a software adapter into few chunks and without
 * the look back (its pictures stay the same frame to frame), a GPU into as
 * many as its pair room needs up to MAX_CHUNKS of its tile side (more at 8
 * pixels than at 16), and the rows of workgroups
 * the raster dispatches for them.
 */
import { expect, test } from 'vitest';
import { CHUNK_MIN_PAIRS, chunkingFor, chunkRows, MAX_CHUNKS, SOFTWARE_MAX_CHUNKS } from '../../src/render/tiles/tile-chunks';

test('the per-pixel order is never cut; a software adapter gets few chunks, a GPU what its pair room needs', () => {
  expect(chunkingFor('per-pixel', 16, 1 << 20, false)).toEqual({ minPairs: 0, maxChunks: 1, lookBack: false });
  expect(chunkingFor('centre-depth', 16, 1 << 20, true)).toEqual({ minPairs: CHUNK_MIN_PAIRS, maxChunks: SOFTWARE_MAX_CHUNKS, lookBack: false });
  expect(chunkingFor('centre-depth', 16, 1 << 20, false)).toEqual({ minPairs: CHUNK_MIN_PAIRS, maxChunks: (1 << 20) / CHUNK_MIN_PAIRS, lookBack: true });
  expect(chunkingFor('centre-depth', 16, 1 << 30, false).maxChunks).toBe(MAX_CHUNKS[16]);
  expect(chunkingFor('centre-depth', 8, 1 << 30, false).maxChunks).toBe(MAX_CHUNKS[8]);
  expect(MAX_CHUNKS[8]).toBeGreaterThan(MAX_CHUNKS[16]);
  expect(chunkingFor('centre-depth', 16, 16, false).maxChunks).toBe(1);
});

test('a chosen chunking (tests, benchmarks) sets either part; 0 pairs cuts nothing and dispatches no extra rows', () => {
  expect(chunkingFor('centre-depth', 16, 1 << 20, true, { minPairs: 16, maxChunks: 512, lookBack: true })).toEqual({ minPairs: 16, maxChunks: 512, lookBack: true });
  expect(chunkingFor('centre-depth', 16, 1 << 20, false, { minPairs: 4096 }).maxChunks).toBe(256);
  expect(chunkingFor('centre-depth', 16, 1 << 20, false, { minPairs: 0 })).toEqual({ minPairs: 0, maxChunks: 1, lookBack: false });
  expect(chunkRows(chunkingFor('centre-depth', 16, 1 << 20, false, { minPairs: 0 }), 120)).toBe(0);
  expect(chunkRows({ minPairs: 1024, maxChunks: 1024, lookBack: true }, 120)).toBe(9);
  expect(chunkRows({ minPairs: 1024, maxChunks: 120, lookBack: true }, 120)).toBe(1);
});
