import { expect, test } from 'vitest';
import { sampleFrames } from '../../bench/frame-sampling';

test('warm-up runs until two batch medians agree, then each figure is the median of the runs', async () => {
  // Frames slow at first (first-use compiles), then steady: 3 warm batches of 2, then 3 runs.
  const totals = [9, 9, 5, 5, 5, 5, 1, 2, 3];
  let next = 0;
  const frame = async () => {
    const t = totals[next++]!;
    return { a: t, b: 10 * t };
  };
  const medians = await sampleFrames(frame, (f) => f.a, 3, { batch: 2, stable: 0.03, maxBatches: 10 });
  expect(next).toBe(9);
  expect(medians).toEqual({ a: 2, b: 20 });
});

test('warm-up stops after maxBatches even when the frame never settles', async () => {
  let next = 0;
  const medians = await sampleFrames(async () => ({ t: ++next }), (f) => f.t, 1, { batch: 1, stable: 0.03, maxBatches: 4 });
  expect(next).toBe(5);
  expect(medians.t).toBe(5);
});

test('the clock hold is submitted right before every frame, warm-up and measured alike', async () => {
  const calls: string[] = [];
  let next = 0;
  await sampleFrames(
    async () => {
      calls.push('frame');
      return { t: ++next };
    },
    (f) => f.t,
    2,
    { batch: 1, stable: 0.03, maxBatches: 2, hold: () => calls.push('hold') },
  );
  expect(calls).toEqual(['hold', 'frame', 'hold', 'frame', 'hold', 'frame', 'hold', 'frame']);
});
