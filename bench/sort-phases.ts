/**
 * The GPU radix sort's time by phase, for bench-sort's --phases: every
 * dispatch in a timed pass of its own (the sort's phaseTimestamps), the
 * medians of each phase kind summed over the passes.
 */
import { GpuRadixSort, PHASES_PER_PASS } from '../src/sort/gpu-radix-sort';
import { readBufferU32 } from '../src/gpu/readback';
import { measureStable, median, round4, timingWarning, type StableTimingOptions } from './stable-timing';
import type { SortCount } from './sort-count';

export interface PhaseTiming {
  timing: StableTimingOptions & { tol: number };
  /** Runs before each timed sort (the clock hold, or nothing). */
  hold: () => void;
  warn: (line: string) => void;
}

/**
 * Median time of each phase kind (summed over the passes) over the measured
 * profiled sorts, under the same stable warm-up (on the sum of the phases).
 */
export async function profilePhases(
  device: GPUDevice,
  sorter: GpuRadixSort,
  count: SortCount,
  n: number,
  keyBits: number,
  keys: GPUBuffer,
  values: GPUBuffer,
  what: string,
  { timing, hold, warn }: PhaseTiming,
): Promise<Record<string, unknown>> {
  const phases = 1 + PHASES_PER_PASS * Math.ceil(32 / sorter.layout.digitBits);
  const used = 1 + PHASES_PER_PASS * Math.ceil(keyBits / sorter.layout.digitBits);
  const querySet = device.createQuerySet({ type: 'timestamp', count: 2 * phases });
  const resolved = device.createBuffer({ size: 16 * phases, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
  const names = ['prepare', 'count', 'scan', 'scatter'] as const;
  type Sums = Record<(typeof names)[number], number>;
  // Every sample's breakdown, in order: the measured ones are the last `runs`.
  const history: Sums[] = [];
  const sample = async () => {
    hold();
    const encoder = device.createCommandEncoder();
    encoder.copyBufferToBuffer(keys, 0, sorter.keys, 0, 4 * n);
    encoder.copyBufferToBuffer(values, 0, sorter.values, 0, 4 * n);
    sorter.encode(encoder, { ...count.of(n), keyBits, phaseTimestamps: querySet });
    encoder.resolveQuerySet(querySet, 0, 2 * phases, resolved, 0);
    device.queue.submit([encoder.finish()]);
    const t = new BigInt64Array((await readBufferU32(device, resolved, 4 * phases)).buffer);
    const sums: Sums = { prepare: 0, count: 0, scan: 0, scatter: 0 };
    for (let i = 0; i < used; i++) {
      const kind = i === 0 ? 'prepare' : names[1 + ((i - 1) % PHASES_PER_PASS)]!;
      sums[kind] += Number(t[2 * i + 1]! - t[2 * i]!) / 1e6;
    }
    history.push(sums);
    return names.reduce((total, k) => total + sums[k], 0);
  };
  const measured = await measureStable(sample, timing);
  querySet.destroy();
  resolved.destroy();
  const warning = timingWarning(`${what} (phases)`, measured, timing.tol);
  if (warning) warn(warning);
  if (!measured.ok) return { ...Object.fromEntries(names.map((k) => [`${k}Ms`, null])), phasesUnstable: true };
  const kept = history.slice(-measured.samples.length);
  return {
    ...Object.fromEntries(names.map((k) => [`${k}Ms`, round4(median(kept.map((s) => s[k])))])),
    phasesSpread: round4(measured.stats!.spread),
    ...(measured.drift ? { phasesDrift: true } : {}),
  };
}
