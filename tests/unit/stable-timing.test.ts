import { describe, expect, it } from 'vitest';
import { isStable, measureStable, quantile, timingStats } from '../../bench/stable-timing';

/**
 * A fake timed run: returns the next value of `values` (repeating the last
 * one past the end) and advances a fake clock by that many ms, so the
 * time limit behaves as it would with real runs.
 */
function fakeRuns(values: (i: number) => number) {
  let i = 0;
  let clock = 0;
  const calls: number[] = [];
  return {
    now: () => clock,
    calls,
    sample: async () => {
      const v = values(i++);
      calls.push(v);
      clock += v;
      return v;
    },
  };
}

describe('timingStats', () => {
  it('gives median, min, max, p10, p90 and spread with linear interpolation', () => {
    const xs = [10, 1, 9, 2, 8, 3, 7, 4, 6, 5, 11]; // 1..11, shuffled
    const s = timingStats(xs);
    expect(s.median).toBe(6);
    expect(s.min).toBe(1);
    expect(s.max).toBe(11);
    expect(s.p10).toBeCloseTo(2); // position 0.1 × 10 = 1
    expect(s.p90).toBeCloseTo(10); // position 9
    expect(s.spread).toBeCloseTo(10 / 2 - 1);
  });

  it('interpolates between ranks and takes the mean of the middle two for an even count', () => {
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(quantile([0, 10], 0.1)).toBeCloseTo(1);
    expect(quantile([7], 0.9)).toBe(7);
  });
});

describe('isStable', () => {
  it('needs `window` medians within tol of each other', () => {
    expect(isStable([1, 1], 3, 0.02)).toBe(false);
    expect(isStable([5, 1, 1.01, 1.02], 3, 0.02)).toBe(true);
    expect(isStable([1, 1.01, 1.03], 3, 0.02)).toBe(false);
    expect(isStable([0, 0, 0], 3, 0.02)).toBe(true);
    expect(isStable([0, 0, 1], 3, 0.02)).toBe(false);
  });
});

describe('measureStable', () => {
  it('measures only after a slow start has settled', async () => {
    // 35 slow runs (3 ms, cooling to 1 ms), then a steady 1 ms with ±0.5 % jitter.
    const slow = 35;
    const runs = fakeRuns((i) => (i < slow ? 3 - (2 * i) / slow : 1 + 0.005 * Math.sin(i)));
    const r = await measureStable(runs.sample, { batch: 10, window: 3, tol: 0.02, runs: 30, now: runs.now });
    expect(r.ok).toBe(true);
    // Batches 1-4 hold slow runs (the 4th partly); 5, 6, 7 are steady.
    expect(r.batchMedians.length).toBe(7);
    expect(r.warmupSamples).toBe(70);
    expect(r.samples.length).toBe(30);
    expect(runs.calls.length).toBe(100);
    // No measured sample comes from the slow start.
    for (const s of r.samples) expect(Math.abs(s - 1)).toBeLessThanOrEqual(0.005);
    expect(r.stats!.median).toBeCloseTo(1, 2);
    expect(r.drift).toBe(false);
  });

  it('gives ok = false, no samples and the batch medians when the times never settle', async () => {
    // Each batch 10 % slower than the last: never within 2 %.
    const runs = fakeRuns((i) => 1.1 ** Math.floor(i / 10));
    const r = await measureStable(runs.sample, { batch: 10, tol: 0.02, maxWarmupMs: 500, now: runs.now });
    expect(r.ok).toBe(false);
    expect(r.samples).toEqual([]);
    expect(r.stats).toBeUndefined();
    expect(r.batchMedians.length).toBeGreaterThanOrEqual(3);
    // It stopped at the first sample past the limit.
    expect(r.warmupMs).toBeGreaterThan(500);
    expect(r.warmupMs - runs.calls.at(-1)!).toBeLessThanOrEqual(500);
    expect(r.warmupSamples).toBe(runs.calls.length);
    r.batchMedians.forEach((m, k) => expect(m).toBeCloseTo(1.1 ** k));
  });

  it('gives up within the time limit even when a single batch is longer than it', async () => {
    const runs = fakeRuns(() => 100); // 100 ms a sample: one batch of 10 is 1 s
    const r = await measureStable(runs.sample, { batch: 10, maxWarmupMs: 450, now: runs.now });
    expect(r.ok).toBe(false);
    expect(runs.calls.length).toBe(5); // 500 ms: the first sample past 450 ms
    expect(r.batchMedians).toEqual([]);
  });

  it('flags drift when the measured median moves away from the last warm-up median', async () => {
    // Stable at 1 ms for 3 batches, then 1.1 ms while measuring.
    const runs = fakeRuns((i) => (i < 30 ? 1 : 1.1));
    const r = await measureStable(runs.sample, { batch: 10, tol: 0.02, runs: 20, now: runs.now });
    expect(r.ok).toBe(true);
    expect(r.batchMedians).toEqual([1, 1, 1]);
    expect(r.driftRatio).toBeCloseTo(0.1);
    expect(r.drift).toBe(true);
  });
});
