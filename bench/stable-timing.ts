/**
 * Warm-up until stable, then measure: the timing rule every GPU row of the
 * sort benchmark follows (sorts, the copy kernel, copyBufferToBuffer).
 *
 * Why: a fixed warm-up (a few runs plus some wall time) trusts that the GPU
 * is at its steady clocks and the driver has finished its lazy work by then.
 * It once measured 3.08 ms for a sort that takes 1.21 ms warm. Instead we run
 * batches of timed samples and only start measuring once the medians of the
 * last `window` consecutive batches agree within `tol`
 * (max / min - 1 <= tol). A row that never settles within `maxWarmupMs`
 * is reported as unstable (no number) rather than as a misleading one.
 *
 * Pure and DOM-free: the caller hands in `sample()` (one timed run, in ms)
 * and, for tests, a clock.
 */

export interface StableTimingOptions {
  /** Timed samples per warm-up batch. */
  batch?: number;
  /** Consecutive batch medians that must agree. */
  window?: number;
  /** Relative tolerance between those medians: max / min - 1 <= tol. */
  tol?: number;
  /** Samples measured once stable. */
  runs?: number;
  /** Give up warming up after this much time (ms, per call). */
  maxWarmupMs?: number;
  /**
   * The measured median may differ from the last warm-up batch median by at
   * most driftFactor × tol before the result is flagged as drifting.
   */
  driftFactor?: number;
  /** Clock in ms (default performance.now); tests pass a fake one. */
  now?: () => number;
}

export interface TimingStats {
  median: number;
  min: number;
  max: number;
  p10: number;
  p90: number;
  /** p90 / p10 - 1: how wide the measured distribution is. */
  spread: number;
}

export interface StableTimingResult {
  /** True when the warm-up settled and `samples` were measured. */
  ok: boolean;
  /** The measured samples (empty when !ok). */
  samples: number[];
  /** Median of every warm-up batch, in order. */
  batchMedians: number[];
  /** Warm-up samples taken (discarded). */
  warmupSamples: number;
  /** Wall time spent warming up, ms. */
  warmupMs: number;
  /** Stats of `samples`; undefined when !ok. */
  stats?: TimingStats;
  /** measured median / last batch median - 1 (undefined when !ok). */
  driftRatio?: number;
  /** |driftRatio| > driftFactor × tol: the state changed while measuring. */
  drift: boolean;
}

export const STABLE_DEFAULTS = {
  batch: 10,
  window: 3,
  tol: 0.02,
  runs: 30,
  maxWarmupMs: 20_000,
  driftFactor: 2,
} as const;

export function median(xs: readonly number[]): number {
  return quantile(xs, 0.5);
}

/**
 * The q-quantile with linear interpolation between closest ranks (numpy's
 * default): position q × (n - 1) in the sorted samples.
 */
export function quantile(xs: readonly number[], q: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const pos = q * (s.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo]! + (s[hi]! - s[lo]!) * (pos - lo);
}

export function timingStats(xs: readonly number[]): TimingStats {
  const p10 = quantile(xs, 0.1);
  const p90 = quantile(xs, 0.9);
  return {
    median: median(xs),
    min: Math.min(...xs),
    max: Math.max(...xs),
    p10,
    p90,
    spread: p10 > 0 ? p90 / p10 - 1 : NaN,
  };
}

/** Whether the last `window` values agree within tol (max / min - 1 <= tol). */
export function isStable(medians: readonly number[], window: number, tol: number): boolean {
  if (medians.length < window) return false;
  const last = medians.slice(-window);
  const lo = Math.min(...last);
  const hi = Math.max(...last);
  // A zero (e.g. a timestamp below the timer's resolution) is only stable when all are zero.
  if (lo <= 0) return hi === lo;
  // The 1e-12 keeps a ratio exactly at the tolerance (1.02 / 1) from failing on rounding.
  return hi / lo - 1 <= tol + 1e-12;
}

/**
 * Runs warm-up batches of `sample()` until stable (or out of time), then
 * `runs` measured samples. Samples run strictly one after another: each call
 * is awaited before the next starts.
 */
export async function measureStable(sample: () => Promise<number>, options: StableTimingOptions = {}): Promise<StableTimingResult> {
  const batch = options.batch ?? STABLE_DEFAULTS.batch;
  const window = options.window ?? STABLE_DEFAULTS.window;
  const tol = options.tol ?? STABLE_DEFAULTS.tol;
  const runs = options.runs ?? STABLE_DEFAULTS.runs;
  const maxWarmupMs = options.maxWarmupMs ?? STABLE_DEFAULTS.maxWarmupMs;
  const driftFactor = options.driftFactor ?? STABLE_DEFAULTS.driftFactor;
  const now = options.now ?? (() => performance.now());
  if (!(batch >= 1 && window >= 1 && runs >= 1)) throw new Error('measureStable: batch, window and runs must be >= 1');

  const start = now();
  const batchMedians: number[] = [];
  let warmupSamples = 0;
  // The time limit is checked after every sample, so a slow row (one sample
  // taking seconds) costs at most the limit plus one sample; a batch cut
  // short is dropped (its median would rest on fewer samples).
  while (!isStable(batchMedians, window, tol)) {
    const times: number[] = [];
    while (times.length < batch) {
      times.push(await sample());
      warmupSamples++;
      if (now() - start > maxWarmupMs && !(times.length === batch && isStable([...batchMedians, median(times)], window, tol))) {
        return { ok: false, samples: [], batchMedians, warmupSamples, warmupMs: now() - start, drift: false };
      }
    }
    batchMedians.push(median(times));
  }
  const warmupMs = now() - start;

  const samples: number[] = [];
  for (let i = 0; i < runs; i++) samples.push(await sample());
  const stats = timingStats(samples);
  const last = batchMedians[batchMedians.length - 1]!;
  const driftRatio = last > 0 ? stats.median / last - 1 : stats.median === last ? 0 : Infinity;
  return {
    ok: true,
    samples,
    batchMedians,
    warmupSamples,
    warmupMs,
    stats,
    driftRatio,
    drift: Math.abs(driftRatio) > driftFactor * tol,
  };
}

/** x to 4 decimals, as the JSON rows give times. */
export const round4 = (x: number) => Math.round(x * 1e4) / 1e4;

/**
 * The timing fields of a benchmark JSON row. An unstable result has
 * "ms": null and "unstable": true (with the batch medians it saw), so that
 * no table can quote it as a number by mistake.
 */
export function timingFields(r: StableTimingResult): Record<string, unknown> {
  const common = { warmupRuns: r.warmupSamples, batchMedians: r.batchMedians.map(round4) };
  if (!r.ok || !r.stats) return { ms: null, unstable: true, ...common };
  const s = r.stats;
  return {
    ms: round4(s.median),
    runs: r.samples.length,
    min: round4(s.min),
    max: round4(s.max),
    p10: round4(s.p10),
    p90: round4(s.p90),
    spread: round4(s.spread),
    ...common,
    driftRatio: round4(r.driftRatio ?? 0),
    ...(r.drift ? { drift: true } : {}),
  };
}

/** A one-line warning for stderr when a result is unstable or drifted; undefined when it is fine. */
export function timingWarning(what: string, r: StableTimingResult, tol: number): string | undefined {
  const medians = r.batchMedians.map((m) => m.toPrecision(4)).join(', ');
  if (!r.ok) {
    return `warning: ${what}: consecutive warm-up batch medians never agreed within ${(100 * tol).toFixed(1)} % after ${(r.warmupMs / 1000).toFixed(1)} s (batch medians: ${medians} ms); reported as unstable`;
  }
  if (r.drift) {
    return `warning: ${what}: measured median ${r.stats!.median.toPrecision(4)} ms is ${(100 * (r.driftRatio ?? 0)).toFixed(1)} % off the last warm-up batch median (more than ${(200 * tol).toFixed(1)} %): flagged "drift"`;
  }
  return undefined;
}
