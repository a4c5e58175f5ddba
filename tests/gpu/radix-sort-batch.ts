/**
 * Many GPU radix sorts checked with one wait for their results, for
 * tests/gpu/gpu-radix-sort.test.ts: on SwiftShader a wait for a readback
 * costs far more than a small sort (the file took 440 s on a 2-core
 * machine waiting for two readbacks a sort). Sorts of different sorters
 * share a command encoder and a submit; the sorts of one sorter go one per
 * submit (its inputs and a CPU count reach it by queue.writeBuffer,
 * ordered between submits), so each runs exactly as a lone sort would.
 * (504 small sorts of four sorters took the same time four or one to a
 * submit.) Each result is copied into a buffer of its own, all are mapped
 * at once, and each is compared pair by pair with the CPU reference.
 */
import { expect } from 'vitest';
import type { GpuRadixSort } from '../../src/sort/gpu-radix-sort';
import { CpuRadixSort } from '../../src/sort/cpu-sort';
import { referenceSortPairs } from '../support/reference-sort';
import { identityValues, makeKeys, type KeyPattern } from '../../src/sort/test-keys';

export interface SortCase {
  /** The sorter's configuration, as failure messages name it. */
  config: string;
  sorter: GpuRadixSort;
  /** Pairs written to the sorter. */
  n: number;
  pattern: KeyPattern;
  keyBits: number;
  /** Key seed (default n + keyBits). */
  seed?: number;
  /**
   * The count read on the GPU from a buffer (the prepare step and indirect
   * dispatches), at `offset` (0, 4, 8 or 12) in its 16 bytes: the sort then
   * orders the first min(count, capacity) pairs. With `bound`, the phases
   * are dispatched directly for that many pairs (SortEncodeOptions.countBound)
   * and the count is clamped to it too. Without it the count is n, given on
   * the CPU.
   */
  gpuCount?: { count: number; offset?: number; bound?: number };
  /** Called just before the sort is recorded, after every earlier sort of the batch was. */
  before?: () => void;
}

/** A recorded sort: what was sorted and the buffer its result is copied into. */
interface Recorded {
  name: string;
  /** Names the input and key width: configurations sorting the same input want the same result. */
  input: string;
  keys: Uint32Array;
  keyBits: number;
  /** Pairs sorted (the first `sorted` of `keys`). */
  sorted: number;
  /** The sorted keys, then the sorted values; null when nothing was sorted. */
  result: GPUBuffer | null;
}

/** Result bytes that may wait to be read before a batch is read (host memory on SwiftShader). */
const MAX_WAITING_BYTES = 256 << 20;

/** Wanted results of small inputs, which configurations with the same tile size sort alike. */
const wanted = new Map<string, { keys: Uint32Array; values: Uint32Array }>();
const MAX_REMEMBERED_PAIRS = 20_000;

function want(r: Recorded): { keys: Uint32Array; values: Uint32Array } {
  let w = wanted.get(r.input);
  if (!w) {
    w = expected(r.keys.subarray(0, r.sorted), r.keyBits);
    if (r.sorted <= MAX_REMEMBERED_PAIRS) wanted.set(r.input, w);
  }
  return w;
}

function describeCase(c: SortCase, n: number): string {
  const bound = c.gpuCount?.bound === undefined ? '' : `, bound ${c.gpuCount.bound}`;
  const count = c.gpuCount ? `, GPU count ${c.gpuCount.count} at offset ${c.gpuCount.offset ?? 0}${bound}` : '';
  return `${c.config}: n=${n} ${c.pattern} keys, ${c.keyBits} bits, seed ${c.seed ?? n + c.keyBits}${count}`;
}

/**
 * The sorted pairs the contract asks for: the simple reference up to a few
 * thousand pairs, where it is quick, else the CPU radix sort (itself
 * checked against the reference in tests/unit/cpu-sort.test.ts).
 */
function expected(keys: Uint32Array, keyBits: number): { keys: Uint32Array; values: Uint32Array } {
  if (keys.length <= 5000) return referenceSortPairs(keys, identityValues(keys.length), keyBits);
  const k = keys.slice();
  const v = identityValues(keys.length);
  new CpuRadixSort(k.length).sort(k, v, k.length, keyBits);
  return { keys: k, values: v };
}

/** Where a result first differs from the wanted pairs, in words; null if it does not. */
function firstDifference(gotKeys: Uint32Array, gotValues: Uint32Array, want: { keys: Uint32Array; values: Uint32Array }): string | null {
  const keys = want.keys;
  for (let i = 0; i < keys.length; i++) {
    if (gotKeys[i] !== want.keys[i] || gotValues[i] !== want.values[i]) {
      return `first difference at ${i} of ${keys.length}: got (key ${gotKeys[i]}, value ${gotValues[i]}), want (key ${want.keys[i]}, value ${want.values[i]})`;
    }
  }
  return null;
}

/**
 * Sorts every case on the GPU and checks each against the CPU reference;
 * fails the test with one line per wrong case (its configuration, size,
 * key pattern, bits, seed, and where it first differs). Batches given as
 * promises are sorted each as soon as it is there.
 */
export async function expectSortsCorrect(device: GPUDevice, batches: readonly (SortCase[] | Promise<SortCase[]>)[]): Promise<void> {
  let total = 0;
  const problems = await Promise.all(batches.map(async (batch) => {
    const cases = await batch;
    total += cases.length;
    return sortAll(device, cases);
  }));
  const wrong = problems.flat();
  expect(wrong, `${wrong.length} of ${total} sorts wrong, first ${wrong.slice(0, 3).join('; ')}`).toEqual([]);
}

/** Sorts every case (see expectSortsCorrect); returns one line per wrong case. */
export async function sortAll(device: GPUDevice, cases: readonly SortCase[]): Promise<string[]> {
  // Each sorter's cases in order; round r records the r-th case of every sorter.
  const queues = new Map<GpuRadixSort, SortCase[]>();
  for (const c of cases) {
    const queue = queues.get(c.sorter);
    if (queue) queue.push(c);
    else queues.set(c.sorter, [c]);
  }
  const rounds = Math.max(0, ...[...queues.values()].map((q) => q.length));
  const counts = device.createBuffer({ label: 'sortBatch.counts', size: 16 * Math.max(1, cases.length), usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
  const problems: string[] = [];
  const waiting: Recorded[] = [];
  let waitingBytes = 0;
  const checkWaiting = async () => {
    await Promise.all(waiting.map((r) => r.result?.mapAsync(GPUMapMode.READ)));
    for (const r of waiting) {
      const words = r.result ? new Uint32Array(r.result.getMappedRange()) : new Uint32Array(0);
      const difference = firstDifference(words.subarray(0, r.sorted), words.subarray(r.sorted, 2 * r.sorted), want(r));
      if (difference) problems.push(`${r.name}: ${difference}`);
      r.result?.destroy();
    }
    waiting.length = 0;
    waitingBytes = 0;
  };
  let recorded = 0;
  // One error scope a round, pushed and popped with nothing awaited between,
  // so that batches running side by side keep their errors apart.
  const errors: Promise<GPUError | null>[] = [];
  try {
    for (let round = 0; round < rounds; round++) {
      device.pushErrorScope('validation');
      try {
        const encoder = device.createCommandEncoder({ label: 'sortBatch.encoder' });
        for (const queue of queues.values()) {
          const c = queue[round];
          if (!c) continue;
          const r = record(device, encoder, c, counts, 16 * recorded++);
          waiting.push(r);
          waitingBytes += 8 * r.sorted;
        }
        device.queue.submit([encoder.finish()]);
      } finally {
        errors.push(device.popErrorScope());
      }
      if (waitingBytes > MAX_WAITING_BYTES) await checkWaiting();
    }
    await checkWaiting();
  } finally {
    for (const error of await Promise.all(errors)) if (error) problems.push(`WebGPU validation error: ${error.message}`);
    counts.destroy();
  }
  return problems;
}

/** Writes a case's inputs (and GPU count, into `counts` at `countAt`), records its sort and the copy of its result. */
function record(device: GPUDevice, encoder: GPUCommandEncoder, c: SortCase, counts: GPUBuffer, countAt: number): Recorded {
  c.before?.();
  const { sorter } = c;
  const { n } = c;
  sorter.ensureCapacity(n);
  const name = describeCase(c, n);
  const sorted = c.gpuCount ? Math.min(c.gpuCount.count, sorter.capacity, c.gpuCount.bound ?? Infinity) : n;
  if (sorted > n) throw new Error(`${name}: the GPU count would sort ${sorted - n} pairs that were never written`);
  const seed = c.seed ?? n + c.keyBits;
  const keys = makeKeys(c.pattern, n, seed);
  device.queue.writeBuffer(sorter.keys, 0, keys);
  device.queue.writeBuffer(sorter.values, 0, identityValues(n));
  let out;
  if (c.gpuCount) {
    const at = countAt + (c.gpuCount.offset ?? 0);
    device.queue.writeBuffer(counts, at, new Uint32Array([c.gpuCount.count]));
    const bound = c.gpuCount.bound === undefined ? {} : { countBound: c.gpuCount.bound };
    out = sorter.encode(encoder, { countBuffer: { buffer: counts, offset: at }, keyBits: c.keyBits, ...bound });
  } else {
    out = sorter.encode(encoder, { count: n, keyBits: c.keyBits });
  }
  let result: GPUBuffer | null = null;
  if (sorted > 0) {
    result = device.createBuffer({ label: 'sortBatch.result', size: 8 * sorted, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
    encoder.copyBufferToBuffer(out.keys, 0, result, 0, 4 * sorted);
    encoder.copyBufferToBuffer(out.values, 0, result, 4 * sorted, 4 * sorted);
  }
  return { name, input: `${c.pattern}/${n}/${seed}/${sorted}/${c.keyBits}`, keys, keyBits: c.keyBits, sorted, result };
}
