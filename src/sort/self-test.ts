/**
 * Sorts random pairs on the GPU and checks the order against the CPU radix
 * sort, pair by pair (values are the original positions, so instability
 * shows). DOM-free: the page shows the result, the tests call it directly.
 */
import { GpuRadixSort } from './gpu-radix-sort';
import { CpuRadixSort } from './cpu-sort';
import { identityValues, makeKeys } from './test-keys';
import { readBufferU32 } from '../gpu/readback';
import { GpuPassTimer } from '../gpu/pass-timer';

export interface SortSelfTestResult {
  ok: boolean;
  n: number;
  keyBits: number;
  /** Median GPU time of the sort over the runs; null without timestamp-query. */
  gpuMs: number | null;
  /** Wall time of the CPU radix sort of the same pairs. */
  cpuMs: number;
  message: string;
}

export async function runSortSelfTest(
  device: GPUDevice,
  options: { n: number; keyBits?: number; runs?: number; seed?: number },
): Promise<SortSelfTestResult> {
  const { n } = options;
  const keyBits = options.keyBits ?? 32;
  const runs = Math.max(1, options.runs ?? 1);
  const keys = makeKeys('random', n, options.seed ?? 7);
  const values = identityValues(n);

  const sorter = await GpuRadixSort.create(device, { capacity: n, label: 'SelfTest.sort' });
  const timer = new GpuPassTimer(device, ['sort'] as const, 'SelfTest.timer');
  try {
    const times: number[] = [];
    let result = { keys: sorter.keys, values: sorter.values };
    for (let r = 0; r < runs; r++) {
      device.queue.writeBuffer(sorter.keys, 0, keys);
      device.queue.writeBuffer(sorter.values, 0, values);
      const encoder = device.createCommandEncoder({ label: 'SelfTest.encoder' });
      const timestampWrites = timer.timestampWrites('sort');
      result = sorter.encode(encoder, { count: n, keyBits, ...(timestampWrites ? { timestampWrites } : {}) });
      timer.resolve(encoder);
      device.queue.submit([encoder.finish()]);
      const ms = (await timer.read()).sort;
      if (ms !== null) times.push(ms);
    }
    const [gpuKeys, gpuValues] = [await readBufferU32(device, result.keys, n), await readBufferU32(device, result.values, n)];

    const cpuKeys = keys.slice();
    const cpuValues = values.slice();
    const t0 = performance.now();
    new CpuRadixSort(n).sort(cpuKeys, cpuValues, n, keyBits);
    const cpuMs = performance.now() - t0;

    const mismatch = firstMismatch(gpuKeys, gpuValues, cpuKeys, cpuValues);
    const what = `${n} pairs, ${keyBits}-bit keys`;
    return {
      ok: mismatch < 0,
      n,
      keyBits,
      gpuMs: times.length ? median(times) : null,
      cpuMs,
      message:
        mismatch < 0
          ? `${what}: GPU order equals CPU order`
          : `${what}: first difference at ${mismatch}: GPU (key ${gpuKeys[mismatch]}, value ${gpuValues[mismatch]}), CPU (key ${cpuKeys[mismatch]}, value ${cpuValues[mismatch]})`,
    };
  } finally {
    sorter.destroy();
    timer.destroy();
  }
}

function firstMismatch(ak: Uint32Array, av: Uint32Array, bk: Uint32Array, bv: Uint32Array): number {
  for (let i = 0; i < ak.length; i++) {
    if (ak[i] !== bk[i] || av[i] !== bv[i]) return i;
  }
  return -1;
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}
