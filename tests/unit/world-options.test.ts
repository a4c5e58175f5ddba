/** The size of a world's page pool (src/app/world/world-options.ts), from its budget, memory and chunks. */
import { expect, test } from 'vitest';
import { poolCapacity, WORLD_DEFAULTS, worldStagingBytes } from '../../src/app/world/world-options';
import { chunkLayout } from '../../src/scene/gpu-splats';

const LAYOUT = chunkLayout(0, 0, 2 ** 30);
const PAGE = 2048;

test('the pool holds what the memory allows, whatever the budget; never more than the whole world, the environment beside its chunks', () => {
  const options = { ...WORLD_DEFAULTS, pool: { pageSplats: PAGE } };
  const chunks = new Uint32Array([1800, 450, 5000]);
  // The whole world in pages: 1 + 1 + 3, and the environment's one more.
  expect(poolCapacity({ ...options, budget: 300 }, LAYOUT, 2 ** 30, chunks, 0)).toBe(5 * PAGE);
  expect(poolCapacity({ ...options, budget: 1e6 }, LAYOUT, 2 ** 30, chunks, 0)).toBe(5 * PAGE);
  expect(poolCapacity({ ...options, budget: 300 }, LAYOUT, 2 ** 30, chunks, 100)).toBe(6 * PAGE);
  // The memory caps it all, whatever the budget.
  const memory = { ...options, memoryBytes: 12000 * LAYOUT.bytesPerSplat, pool: { pageSplats: PAGE, stagingBytes: 4 * PAGE * LAYOUT.bytesPerSplat } };
  expect(poolCapacity({ ...memory, budget: 300 }, LAYOUT, 2 ** 30, chunks, 0)).toBeLessThan(4000);
  expect(poolCapacity({ ...memory, budget: 300 }, LAYOUT, 2 ** 30, chunks, 0)).toBe(poolCapacity({ ...memory, budget: 1e6 }, LAYOUT, 2 ** 30, chunks, 0));
  expect(poolCapacity({ ...memory, budget: 300 }, LAYOUT, 2 ** 30, chunks, 0)).toBeGreaterThan(1000);
  // The staging blocks, a page each, come out of the memory: two pages more of them, two pages' bytes fewer pooled.
  const staged = (pages: number) => poolCapacity({ ...memory, budget: 300, pool: { pageSplats: PAGE, stagingBytes: pages * PAGE * LAYOUT.bytesPerSplat } }, LAYOUT, 2 ** 30, chunks, 0);
  const perSplat = (memory.memoryBytes - 2 * PAGE * LAYOUT.bytesPerSplat) / staged(2);
  expect(staged(2) - staged(4)).toBe(Math.floor((2 * PAGE * LAYOUT.bytesPerSplat) / perSplat));
  expect(staged(1) - staged(4)).toBeGreaterThan(staged(2) - staged(4));
  // Where the memory is small the staging takes a sixteenth of it at most (one page at least), not its 16 MiB.
  expect(worldStagingBytes({ ...WORLD_DEFAULTS, memoryBytes: 2 ** 30 })).toBe(16 * 2 ** 20);
  expect(worldStagingBytes({ ...WORLD_DEFAULTS, memoryBytes: 2 ** 20 })).toBe(2 ** 16);
  expect(poolCapacity({ ...options, memoryBytes: 12000 * LAYOUT.bytesPerSplat, budget: 300 }, LAYOUT, 2 ** 30, chunks, 0)).toBeGreaterThan(1000);
  // One buffer of the projector's records bounds it too.
  expect(poolCapacity({ ...options, budget: 300 }, LAYOUT, 2048 * 32, chunks, 0)).toBe(2048);
});
