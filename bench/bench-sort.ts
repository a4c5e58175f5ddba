/**
 * Sort benchmark under Node: the GPU radix sort (through Dawn, timed with
 * timestamp queries around its compute pass) and the two CPU sorts, on random
 * pairs. Prints one JSON object per line:
 *   {"impl", "n", "keyBits", "ms" (median), "runs", "min", "max", "adapter", ...}
 *
 *   npm run bench:sort -- [--sizes 65536,1048576] [--bits 16,24,32]
 *                         [--runs 30] [--cpu-runs 20] [--impl gpu,cpu-radix,cpu-counting-16]
 *                         [--gpu-configs d8,d4,d8i16] [--phases]
 *
 * A GPU config is a digit width (d4 or d8) and optionally pairs per
 * invocation (i4..i16; default: as the viewer picks).
 * --phases adds, per GPU row, the time of each phase summed over the passes
 * (each dispatch then runs in its own timed compute pass). --verify checks
 * every GPU result pair by pair against the CPU radix sort ("verified").
 */
import { parseArgs } from 'node:util';
import { createNodeGpuContext } from '../src/gpu/node-gpu';
import { GpuPassTimer } from '../src/gpu/pass-timer';
import { GpuRadixSort, PHASES_PER_PASS, type SortedBuffers } from '../src/sort/gpu-radix-sort';
import { readBufferU32 } from '../src/gpu/readback';
import { CpuCountingSort16, CpuRadixSort, type CpuSorter } from '../src/sort/cpu-sort';
import { identityValues, makeKeys } from '../src/sort/test-keys';
import { median } from '../src/sort/self-test';
import type { DigitBits } from '../src/sort/radix-layout';

const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: [16, 18, 20, 22, 24].map((e) => 2 ** e).join(',') },
    bits: { type: 'string', default: '16,24,32' },
    runs: { type: 'string', default: '30' },
    'cpu-runs': { type: 'string', default: '20' },
    impl: { type: 'string', default: 'gpu,cpu-radix,cpu-counting-16' },
    'gpu-configs': { type: 'string', default: 'd8' },
    phases: { type: 'boolean', default: false },
    verify: { type: 'boolean', default: false },
  },
});
const list = (s: string) => s.split(',').map((x) => x.trim()).filter(Boolean);
const sizes = list(args.sizes).map(Number);
const keyBitsList = list(args.bits).map(Number);
const runs = Number(args.runs);
const cpuRuns = Number(args['cpu-runs']);
const impls = new Set(list(args.impl));
/**
 * Untimed runs before each measurement: at least this many, and at least
 * WARMUP_MS of wall time, so a GPU that idled (e.g. during --verify's CPU
 * sort) is back at full clocks. Three runs alone once gave 3.08 ms for a
 * sort that takes 1.21 ms warm.
 */
const WARMUP = 3;
const WARMUP_MS = 500;

function emit(record: Record<string, unknown>): void {
  console.log(JSON.stringify(record));
}

function stats(times: number[]) {
  return { ms: round(median(times)), runs: times.length, min: round(Math.min(...times)), max: round(Math.max(...times)) };
}

function round(x: number): number {
  return Math.round(x * 1e4) / 1e4;
}

async function benchGpu(): Promise<void> {
  const { device, adapterName, hasTimestamps } = await createNodeGpuContext('bench');
  if (!hasTimestamps) throw new Error(`${adapterName} has no timestamp-query: GPU times cannot be measured`);
  const timer = new GpuPassTimer(device, ['sort'] as const, 'bench.timer');
  const maxN = Math.max(...sizes);
  const usage = GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
  const pristineKeys = device.createBuffer({ label: 'bench.keys', size: 4 * maxN, usage });
  const pristineValues = device.createBuffer({ label: 'bench.values', size: 4 * maxN, usage });
  device.queue.writeBuffer(pristineValues, 0, identityValues(maxN));

  for (const config of list(args['gpu-configs'])) {
    const m = /^d(4|8)(?:i(\d+))?$/.exec(config);
    if (!m) throw new Error(`bad GPU config "${config}" (want d8, d4, d8i16, ...)`);
    const digitBits = Number(m[1]) as DigitBits;
    const sorter = await GpuRadixSort.create(device, {
      capacity: maxN,
      digitBits,
      ...(m[2] ? { itemsPerInvocation: Number(m[2]) } : {}),
      label: `bench.sort.${config}`,
    });
    for (const n of sizes) {
      // The same random keys for every key width; bits above keyBits are ignored by the sort.
      const keys = makeKeys('random', n, 0x9e3779b9);
      device.queue.writeBuffer(pristineKeys, 0, keys);
      for (const keyBits of keyBitsList) {
        const times: number[] = [];
        let result = { keys: sorter.keys, values: sorter.values };
        const warmUntil = performance.now() + WARMUP_MS;
        for (let warm = 0; times.length < runs; ) {
          const warming = warm < WARMUP || performance.now() < warmUntil;
          const encoder = device.createCommandEncoder({ label: 'bench.encoder' });
          // Fresh unsorted input every run: the sort's output may land in its input buffer.
          encoder.copyBufferToBuffer(pristineKeys, 0, sorter.keys, 0, 4 * n);
          encoder.copyBufferToBuffer(pristineValues, 0, sorter.values, 0, 4 * n);
          result = sorter.encode(encoder, { count: n, keyBits, timestampWrites: timer.timestampWrites('sort')! });
          timer.resolve(encoder);
          device.queue.submit([encoder.finish()]);
          const ms = (await timer.read()).sort!;
          if (warming) warm++;
          else times.push(ms);
        }
        const verified = args.verify ? await verify(device, result, keys, n, keyBits) : undefined;
        const phases = args.phases ? await profilePhases(device, sorter, n, keyBits, pristineKeys, pristineValues) : {};
        emit({
          impl: 'gpu-radix',
          config,
          digitBits,
          tile: sorter.layout.tile,
          maxPairs: GpuRadixSort.maxCapacity(device),
          n,
          keyBits,
          ...stats(times),
          ...phases,
          ...(verified === undefined ? {} : { verified }),
          adapter: adapterName,
        });
        if (verified === false) process.exitCode = 1;
      }
    }
    sorter.destroy();
  }
  timer.destroy();
  device.destroy();
}

/** Whether the sorted pairs on the GPU equal the CPU radix sort's, pair by pair. */
async function verify(device: GPUDevice, result: SortedBuffers, keys: Uint32Array, n: number, keyBits: number): Promise<boolean> {
  const gotKeys = await readBufferU32(device, result.keys, n);
  const gotValues = await readBufferU32(device, result.values, n);
  const wantKeys = keys.slice(0, n);
  const wantValues = identityValues(n);
  new CpuRadixSort(n).sort(wantKeys, wantValues, n, keyBits);
  for (let i = 0; i < n; i++) {
    if (gotKeys[i] !== wantKeys[i] || gotValues[i] !== wantValues[i]) return false;
  }
  return true;
}

/** Median time of each phase kind (summed over the passes) over `runs` profiled sorts. */
async function profilePhases(
  device: GPUDevice,
  sorter: GpuRadixSort,
  n: number,
  keyBits: number,
  keys: GPUBuffer,
  values: GPUBuffer,
): Promise<Record<string, number>> {
  const phases = 1 + PHASES_PER_PASS * Math.ceil(32 / sorter.layout.digitBits);
  const querySet = device.createQuerySet({ type: 'timestamp', count: 2 * phases });
  const resolved = device.createBuffer({ size: 16 * phases, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
  const names = ['prepare', 'count', 'scan', 'scatter'] as const;
  const samples: Record<(typeof names)[number], number[]> = { prepare: [], count: [], scan: [], scatter: [] };
  for (let r = 0; r < WARMUP + runs; r++) {
    const encoder = device.createCommandEncoder();
    encoder.copyBufferToBuffer(keys, 0, sorter.keys, 0, 4 * n);
    encoder.copyBufferToBuffer(values, 0, sorter.values, 0, 4 * n);
    sorter.encode(encoder, { count: n, keyBits, phaseTimestamps: querySet });
    encoder.resolveQuerySet(querySet, 0, 2 * phases, resolved, 0);
    device.queue.submit([encoder.finish()]);
    const t = new BigInt64Array((await readBufferU32(device, resolved, 4 * phases)).buffer);
    if (r < WARMUP) continue;
    const sums = { prepare: 0, count: 0, scan: 0, scatter: 0 };
    const used = 1 + PHASES_PER_PASS * Math.ceil(keyBits / sorter.layout.digitBits);
    for (let i = 0; i < used; i++) {
      const kind = i === 0 ? 'prepare' : names[1 + ((i - 1) % PHASES_PER_PASS)]!;
      sums[kind] += Number(t[2 * i + 1]! - t[2 * i]!) / 1e6;
    }
    for (const k of names) samples[k].push(sums[k]);
  }
  querySet.destroy();
  resolved.destroy();
  return Object.fromEntries(names.map((k) => [`${k}Ms`, round(median(samples[k]))]));
}

function benchCpu(sorter: CpuSorter, bitsList: number[]): void {
  const maxN = Math.max(...sizes);
  const keys = new Uint32Array(maxN);
  const values = new Uint32Array(maxN);
  for (const n of sizes) {
    const source = makeKeys('random', n, 0x9e3779b9);
    const ids = identityValues(n);
    for (const keyBits of bitsList) {
      const times: number[] = [];
      for (let r = 0; r < 1 + cpuRuns; r++) {
        keys.set(source);
        values.set(ids);
        const t0 = performance.now();
        sorter.sort(keys, values, n, keyBits);
        if (r >= 1) times.push(performance.now() - t0);
      }
      emit({ impl: sorter.name, n, keyBits, ...stats(times), adapter: 'cpu (node, one thread)' });
    }
  }
}

if (impls.has('gpu')) await benchGpu();
if (impls.has('cpu-radix')) benchCpu(new CpuRadixSort(), keyBitsList);
if (impls.has('cpu-counting-16')) benchCpu(new CpuCountingSort16(), keyBitsList.filter((b) => b <= 16));
