/** The size of a world's page pool (src/app/world/world-options.ts), from its budget, memory and chunks. */
import { expect, test } from 'vitest';
import { poolCapacity, WORLD_DEFAULTS } from '../../src/app/world/world-options';
import { chunkLayout } from '../../src/scene/gpu-splats';

const LAYOUT = chunkLayout(0, 0, 2 ** 30);
const PAGE = 2048;

test('the pool holds 2.5 × the budget, at least the largest chunk, plus the environment; never more than the whole world', () => {
  const options = { ...WORLD_DEFAULTS, pool: { pageSplats: PAGE } };
  const chunks = new Uint32Array([1800, 450, 5000]);
  // 2.5 × 300 splats is under one page: the largest chunk (5,000 splats, three pages) is room enough for any one.
  expect(poolCapacity({ ...options, budget: 300 }, LAYOUT, 2 ** 30, chunks, 0)).toBe(3 * PAGE);
  expect(poolCapacity({ ...options, budget: 300 }, LAYOUT, 2 ** 30, chunks, 100)).toBe(4 * PAGE);
  expect(poolCapacity({ ...options, budget: 4000 }, LAYOUT, 2 ** 30, chunks, 0)).toBe(10000);
  // The whole world in pages: 1 + 1 + 3.
  expect(poolCapacity({ ...options, budget: 1e6 }, LAYOUT, 2 ** 30, chunks, 0)).toBe(5 * PAGE);
  // The memory caps it all.
  expect(poolCapacity({ ...options, budget: 1e6, memoryBytes: 1000 * LAYOUT.bytesPerSplat }, LAYOUT, 2 ** 30, chunks, 0)).toBeLessThan(1000);
});
