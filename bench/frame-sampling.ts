/**
 * Timing a frame the frame benchmark's way: warm up until the frame's
 * median is stable (clocks, caches, first-use compiles), then the median of
 * each measured figure over a number of frames.
 */
import { median } from '../src/sort/self-test';

export interface WarmUp {
  /** Frames per warm-up batch. */
  batch: number;
  /** Two batch medians of the total agreeing within this share end the warm-up. */
  stable: number;
  maxBatches: number;
  /** Submitted before each frame (bench/clock-hold.ts): keeps the GPU at a steady load's clocks. */
  hold?: () => void;
}

/** Warm-up: batches of 10 frames until two batch medians agree within 3 % (at most 20 batches unless told). */
export const DEFAULT_WARM_UP: WarmUp = { batch: 10, stable: 0.03, maxBatches: 20 };

/**
 * Runs `frame` (one frame drawn, submitted and its figures read) through
 * the warm-up, judged on `total` of its figures, then `runs` more times;
 * returns the median of each figure.
 */
export async function sampleFrames<K extends string>(
  frame: () => Promise<Record<K, number>>,
  total: (figures: Record<K, number>) => number,
  runs: number,
  warm: WarmUp,
): Promise<Record<K, number>> {
  let previous = Infinity;
  for (let batch = 0; batch < warm.maxBatches; batch++) {
    const totals: number[] = [];
    for (let r = 0; r < warm.batch; r++) {
      warm.hold?.();
      totals.push(total(await frame()));
    }
    const m = median(totals);
    if (Math.abs(m - previous) <= warm.stable * m) break;
    previous = m;
  }
  const samples = new Map<K, number[]>();
  for (let r = 0; r < runs; r++) {
    warm.hold?.();
    for (const [key, value] of Object.entries(await frame()) as [K, number][]) {
      if (!samples.has(key)) samples.set(key, []);
      samples.get(key)!.push(value);
    }
  }
  return Object.fromEntries([...samples].map(([key, values]) => [key, median(values)])) as Record<K, number>;
}
