/**
 * A frame's level fades (src/app/world/world-fades.ts) over a world's
 * leaves allocate almost nothing once their lists have grown and V8's
 * optimizing compiler has compiled the update. Before that, its fractions
 * of a fade's progress are numbers on the heap: 469 MB over these 200
 * frames with the optimizing compiler off (node --no-turbofan, a sampling
 * heap profile counting what the collector took too), 7-9 KB with it. That
 * compiler works on a thread of its own, so on a busy machine the
 * measured frames may run before it has finished: one window in eight or
 * so measured about 21 MB, with the runs and the fades as numbers.
 */
import { expect, test } from 'vitest';
import { LevelFades } from '../../src/app/world/world-fades';
import { sampledHeapBytes } from '../support/heap-sampling';

const LIMIT = 256 * 1024;

test("a frame's update allocates almost nothing once its lists have grown (under 256 KB in 200 frames): 20,480 leaves, the drawn ones moving along a path", () => {
  // The benchmark world's leaves; each frame draws 8,000 of them, a window that moves on by 40 leaves and
  // changes the level of a few, as a camera along a path does. Emptying a JS list each frame gave its store
  // back and grew it again: 23.6 MB over the world benchmark's 300 frames on the H200's host.
  const LEAVES = 20480;
  const DRAWN = 8000;
  const runCounts = Float64Array.from({ length: 3 * LEAVES }, (_, run) => 100 >> run % 3);
  const fades = new LevelFades({ leaves: LEAVES, levels: 3, runCounts }, 200);
  const draws = Array.from({ length: 64 }, (_, frame) =>
    Array.from({ length: DRAWN - (frame % 7) * 50 }, (_, i) => {
      const leaf = (frame * 40 + i) % LEAVES;
      // Three levels a leaf: run 3 · leaf + level.
      return 3 * leaf + ((leaf + Math.floor(frame / 8)) % 3);
    }),
  );
  let now = 0;
  const frames = (n: number) => {
    for (let f = 0; f < n; f++) fades.update(draws[f % draws.length]!, (now += 16), 1e9);
  };
  // Grown: every list has met its largest and the fades' objects are made.
  frames(2 * draws.length);
  // Windows of 200 frames until one is compiled through (at most ten): a list that grows every frame shows in all.
  let bytes = Infinity;
  for (let window = 0; window < 10 && bytes >= LIMIT; window++) bytes = Math.min(bytes, sampledHeapBytes(() => frames(200)));
  // Measured: about 71 KB over the 200 frames; with the list emptied and refilled each frame, 47 MB (237 KB a frame).
  expect(bytes).toBeLessThan(LIMIT);
});
