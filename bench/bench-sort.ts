/**
 * Sort benchmark under Node: the GPU radix sort (through Dawn, timed with
 * timestamp queries around its compute pass), the copy bandwidth of the same
 * GPU, and the two CPU sorts, on random pairs (or another key pattern,
 * --keys). Prints one JSON object per
 * line on stdout:
 *   {"machine": {vendor, architecture, device, description, node, webgpu, ...}}   (first)
 *   {"impl":"copy"|"copy-buffer", "bytes", "ms", "gbps", ...}
 *   {"impl":"gpu-radix", "config", "ranking", "n", "keyBits", "ms" (median), "runs",
 *    "min", "max", "p10", "p90", "spread", "batchMedians", ...}
 *   {"impl":"cub", "n", "bits", "ms", "run":"before"|"after"}          (--compare)
 * and, with --compare, a markdown ratio table after the JSON lines.
 * Warnings (unstable or drifting rows, compare runs that disagree) go to stderr.
 *
 *   npm run bench:sort -- [--sizes 65536,1048576] [--bits 16,24,32]
 *                         [--runs 30] [--cpu-runs 20] [--impl gpu,copy,cpu-radix,cpu-counting-16]
 *                         [--gpu-configs d8,d8p,d8s,d4,d8i16] [--phases] [--verify]
 *                         [--stable-tol 0.02] [--warmup-max-s 20] [--warmup-batch 10]
 *                         [--compare "/tmp/cub 1048576 4194304"] [--without-features subgroups]
 *                         [--keys random|equal|sorted|reversed|high-bits|low-bits] [--count cpu|gpu|gpu-bound [--bound N]]
 *                         [--hold-ms 0]
 *
 * Timing (stable-timing.ts): before each GPU row, batches of --warmup-batch
 * timed runs until the medians of 3 consecutive batches agree within
 * --stable-tol; then --runs measured runs. A row that does not settle within
 * --warmup-max-s gets "ms": null, "unstable": true. A measured median more
 * than 2 × tol off the last warm-up batch gets "drift": true.
 *
 * --hold-ms: before each timed sort, a compute load of about that long
 * (bench/clock-hold.ts; 0, the default: none), so a small sort runs at the
 * clocks of a steady load rather than an idle GPU's.
 *
 * A GPU config is a digit width (d4 or d8), optionally the ranking (p:
 * portable, s: subgroup, a: auto; none: the sorter's default), and optionally pairs
 * per invocation (i4..i32; default: as the viewer picks), and optionally
 * invocations per workgroup (w64..w1024): d8, d8s, d8pi12, d8si16w512.
 * --phases adds, per GPU row, the time of each phase summed over the passes
 * (each dispatch then runs in its own timed compute pass; "prepare" is the
 * step that sizes the dispatches from a GPU-side count, an empty pass when
 * the count is known on the CPU, as here; --count gpu reads it on the GPU
 * from a buffer, as the viewer's frame sorts what its projector counted,
 * and sizes the dispatches from it indirectly; --count gpu-bound
 * dispatches directly for --bound pairs, default the largest size).
 * --verify checks
 * every GPU result pair by pair against the CPU radix sort ("verified").
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import os from 'node:os';
import { createNodeGpuContext } from '../src/gpu/node-gpu';
import type { GpuContext } from '../src/gpu/device';
import { GpuPassTimer } from '../src/gpu/pass-timer';
import { GpuRadixSort, type GpuRadixSortOptions, type SortedBuffers } from '../src/sort/gpu-radix-sort';
import { readBufferU32 } from '../src/gpu/readback';
import { CpuCountingSort16, CpuRadixSort, type CpuSorter } from '../src/sort/cpu-sort';
import { identityValues, KEY_PATTERNS, makeKeys, type KeyPattern } from '../src/sort/test-keys';
import type { DigitBits } from '../src/sort/radix-layout';
import { GpuClockHold } from './clock-hold';
import { measureStable, timingFields, timingStats, timingWarning, type StableTimingOptions } from './stable-timing';
import { measureCopyBandwidth } from './copy-bandwidth';
import { compareDisagreements, ratioTable, runCompare, type CompareRow, type OurRow } from './compare';
import { commandLine } from './command-line';
import help from './bench-sort.ts?help';
import { countModeOf, SortCount } from './sort-count';
import { profilePhases, type PhaseTiming } from './sort-phases';

const { values: args } = commandLine('bench-sort', help, {
  sizes: { type: 'string', default: [16, 18, 20, 22, 24].map((e) => 2 ** e).join(',') },
  bits: { type: 'string', default: '16,24,32' },
  runs: { type: 'string', default: '30' },
  'cpu-runs': { type: 'string', default: '20' },
  impl: { type: 'string', default: 'gpu,copy,cpu-radix,cpu-counting-16' },
  'gpu-configs': { type: 'string', default: 'd8' },
  phases: { type: 'boolean', default: false },
  verify: { type: 'boolean', default: false },
  'stable-tol': { type: 'string', default: '0.02' },
  'warmup-max-s': { type: 'string', default: '20' },
  'warmup-batch': { type: 'string', default: '10' },
  compare: { type: 'string' },
  'without-features': { type: 'string', default: '' },
  keys: { type: 'string', default: 'random' },
  count: { type: 'string', default: 'cpu' },
  bound: { type: 'string' },
  'hold-ms': { type: 'string', default: '0' },
});
const list = (s: string) => s.split(',').map((x) => x.trim()).filter(Boolean);
const sizes = list(args.sizes).map(Number);
const keyBitsList = list(args.bits).map(Number);
const cpuRuns = Number(args['cpu-runs']);
const impls = new Set(list(args.impl));
if (!(KEY_PATTERNS as readonly string[]).includes(args.keys)) {
  throw new Error(`--keys must be one of ${KEY_PATTERNS.join(', ')} (got "${args.keys}")`);
}
const keyPattern = args.keys as KeyPattern;
/** Where the sort reads its count (bench/sort-count.ts). */
const countMode = countModeOf(args.count, args.bound, Math.max(...sizes));
const timing: StableTimingOptions & { tol: number } = {
  batch: Number(args['warmup-batch']),
  window: 3,
  tol: Number(args['stable-tol']),
  runs: Number(args.runs),
  maxWarmupMs: 1000 * Number(args['warmup-max-s']),
};
const holdMs = Number(args['hold-ms']);
const numericArgs = { 'hold-ms': holdMs, sizes: Math.min(...sizes), bits: Math.min(...keyBitsList), runs: timing.runs!, 'cpu-runs': cpuRuns, 'stable-tol': timing.tol, 'warmup-max-s': timing.maxWarmupMs!, 'warmup-batch': timing.batch! };
for (const [name, v] of Object.entries(numericArgs)) {
  if (!(v >= 0) || !Number.isFinite(v)) throw new Error(`bad --${name}: ${args[name as keyof typeof args]}`);
}

function emit(record: Record<string, unknown>): void {
  // `at`: when the row was finished, to line rows up with a GPU clock log.
  console.log(JSON.stringify({ ...record, at: new Date().toISOString() }));
}

function warn(line: string): void {
  console.error(line);
}

function round(x: number): number {
  return Math.round(x * 1e4) / 1e4;
}

/** The `webgpu` package's version (Dawn build), or null where it cannot be found. */
function webgpuVersion(): string | null {
  const candidates: (() => string)[] = [
    () => createRequire(import.meta.url).resolve('webgpu/package.json'),
    () => join(process.cwd(), 'node_modules', 'webgpu', 'package.json'),
  ];
  for (const path of candidates) {
    try {
      return (JSON.parse(readFileSync(path(), 'utf8')) as { version?: string }).version ?? null;
    } catch {
      // Not resolvable this way (exports map, other cwd): try the next.
    }
  }
  return null;
}

/**
 * What the figures were measured on: the adapter as Dawn names it (on
 * Vulkan the description usually carries the driver version), Node and the
 * `webgpu` package, so a results file says which GPU and driver it is from.
 */
function machineInfo(ctx: GpuContext | undefined): Record<string, unknown> {
  const info = ctx?.adapter.info;
  // GPUAdapterInfo's fields are getters, invisible to JSON.stringify: copy them.
  const gpu = info
    ? Object.fromEntries(
        ['vendor', 'architecture', 'device', 'description', 'backendType', 'subgroupMinSize', 'subgroupMaxSize', 'isFallbackAdapter']
          .map((k) => [k, (info as unknown as Record<string, unknown>)[k]])
          .filter(([, v]) => v !== undefined),
      )
    : {};
  return {
    ...gpu,
    ...(ctx ? { adapter: ctx.adapterName, timestampQuery: ctx.hasTimestamps, subgroups: ctx.hasSubgroups } : {}),
    node: process.version,
    webgpu: webgpuVersion(),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    cpu: os.cpus()[0]?.model ?? null,
  };
}

/** Config letter → ranking; none: the sorter's default (DEFAULT_RANKING). */
const RANKINGS: Record<string, GpuRadixSortOptions['ranking']> = { '': undefined, a: 'auto', p: 'portable', s: 'subgroup' };

/** The load that holds the clocks before each timed sort (--hold-ms; null: none). */
let clockHold: GpuClockHold | null = null;
const phaseTiming: PhaseTiming = { timing, hold: () => clockHold?.hold(), warn };

async function benchGpu(ctx: GpuContext): Promise<OurRow[]> {
  const { device, adapterName } = ctx;
  const timer = new GpuPassTimer(device, ['sort'] as const, 'bench.timer');
  const maxN = Math.max(...sizes, countMode.bound ?? 0);
  const usage = GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
  const pristineKeys = device.createBuffer({ label: 'bench.keys', size: 4 * maxN, usage });
  const pristineValues = device.createBuffer({ label: 'bench.values', size: 4 * maxN, usage });
  device.queue.writeBuffer(pristineValues, 0, identityValues(maxN));
  const count = new SortCount(device, countMode.mode, countMode.bound);
  const rows: OurRow[] = [];
  clockHold = await GpuClockHold.create(device, holdMs);

  for (const config of list(args['gpu-configs'])) {
    const m = /^d(4|8)([aps]?)(?:i(\d+))?(?:w(\d+))?$/.exec(config);
    if (!m) throw new Error(`bad GPU config "${config}" (want d8, d8p, d8s, d4, d8i16, d8si12, d8si16w512, ...)`);
    const digitBits = Number(m[1]) as DigitBits;
    const requested = RANKINGS[m[2]!];
    let sorter: GpuRadixSort;
    try {
      sorter = await GpuRadixSort.create(device, {
        capacity: maxN,
        digitBits,
        ...(requested ? { ranking: requested } : {}),
        ...(m[3] ? { itemsPerInvocation: Number(m[3]) } : {}),
        ...(m[4] ? { workgroupSize: Number(m[4]) } : {}),
        label: `bench.sort.${config}`,
      });
    } catch (error) {
      // E.g. d8s on a device without subgroups: say so, measure the other configs.
      warn(`warning: GPU config ${config}: ${(error as Error).message}; skipped`);
      process.exitCode = 1;
      continue;
    }
    const ranking = sorter.ranking;
    for (const n of sizes) {
      // The same keys for every key width; bits above keyBits are ignored by the sort.
      const keys = makeKeys(keyPattern, n, 0x9e3779b9);
      device.queue.writeBuffer(pristineKeys, 0, keys);
      for (const keyBits of keyBitsList) {
        let result: SortedBuffers = { keys: sorter.keys, values: sorter.values };
        const sample = async () => {
          clockHold?.hold();
          const encoder = device.createCommandEncoder({ label: 'bench.encoder' });
          // Fresh unsorted input every run (outside the timed pass): the sort's output may land in its input buffer.
          encoder.copyBufferToBuffer(pristineKeys, 0, sorter.keys, 0, 4 * n);
          encoder.copyBufferToBuffer(pristineValues, 0, sorter.values, 0, 4 * n);
          result = sorter.encode(encoder, { ...count.of(n), keyBits, timestampWrites: timer.timestampWrites('sort')! });
          timer.resolve(encoder);
          device.queue.submit([encoder.finish()]);
          return (await timer.read()).sort!;
        };
        const measured = await measureStable(sample, timing);
        const what = `gpu-radix ${config} n=${n} keyBits=${keyBits}`;
        const warning = timingWarning(what, measured, timing.tol);
        if (warning) warn(warning);
        const fields = timingFields(measured);
        const verified = args.verify ? await verify(device, result, keys, n, keyBits) : undefined;
        const phases = args.phases ? await profilePhases(device, sorter, count, n, keyBits, pristineKeys, pristineValues, what, phaseTiming) : {};
        emit({
          impl: 'gpu-radix',
          config,
          ranking,
          digitBits,
          radix: sorter.layout.radix,
          tile: sorter.layout.tile,
          maxPairs: GpuRadixSort.maxCapacity(device),
          n,
          keyBits,
          count: countMode.mode,
          ...(countMode.bound === undefined ? {} : { bound: countMode.bound }),
          ...(keyPattern === 'random' ? {} : { keys: keyPattern }),
          ...fields,
          ...phases,
          ...(verified === undefined ? {} : { verified }),
          adapter: adapterName,
        });
        rows.push({
          config,
          ranking,
          n,
          keyBits,
          ms: fields.ms as number | null,
          ...(measured.stats ? { spread: measured.stats.spread } : {}),
          ...(measured.drift ? { drift: true } : {}),
        });
        if (verified === false) process.exitCode = 1;
      }
    }
    sorter.destroy();
  }
  timer.destroy();
  clockHold?.destroy();
  count.destroy();
  pristineKeys.destroy();
  pristineValues.destroy();
  return rows;
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

/**
 * CPU sorts: one warm-up run, then --cpu-runs (a 16M-pair CPU sort takes
 * about a second, so batches of stable warm-up would take minutes per row;
 * the CPU has no clocks to ramp the way an idle GPU does).
 */
function benchCpu(sorter: CpuSorter, bitsList: number[]): void {
  const maxN = Math.max(...sizes);
  const keys = new Uint32Array(maxN);
  const values = new Uint32Array(maxN);
  for (const n of sizes) {
    const source = makeKeys(keyPattern, n, 0x9e3779b9);
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
      const s = timingStats(times);
      emit({
        impl: sorter.name,
        n,
        keyBits,
        ...(keyPattern === 'random' ? {} : { keys: keyPattern }),
        ms: round(s.median),
        runs: times.length,
        min: round(s.min),
        max: round(s.max),
        p10: round(s.p10),
        p90: round(s.p90),
        spread: round(s.spread),
        adapter: 'cpu (node, one thread)',
      });
    }
  }
}

/** Runs the --compare command and re-emits its lines, tagged with the run. */
function compareRun(command: string, run: 'before' | 'after'): CompareRow[] {
  const { rows, info } = runCompare(command);
  for (const line of info) emit({ compare: { command, run, ...line } });
  for (const row of rows) emit({ ...row, run });
  return rows;
}

const wantsGpu = impls.has('gpu') || impls.has('copy');
// --without-features subgroups: a device as a GPU without them would give (the sorter then ranks portably).
const withoutFeatures = list(args['without-features']) as GPUFeatureName[];
const ctx = wantsGpu ? await createNodeGpuContext('bench', { withoutFeatures }) : undefined;
if (ctx && !ctx.hasTimestamps) throw new Error(`${ctx.adapterName} has no timestamp-query: GPU times cannot be measured`);
emit({ machine: machineInfo(ctx) });

const before = args.compare ? compareRun(args.compare, 'before') : [];
let ours: OurRow[] = [];
if (ctx) {
  if (impls.has('copy')) {
    // Sized like the largest sort's keys + values: 8 bytes per pair.
    for (const row of await measureCopyBandwidth(ctx.device, 8 * Math.max(...sizes), timing, warn)) emit(row);
  }
  if (impls.has('gpu')) ours = await benchGpu(ctx);
  ctx.device.destroy();
}
const after = args.compare ? compareRun(args.compare, 'after') : [];
const disagreeing = new Set<string>();
for (const { row, change } of compareDisagreements(before, after)) {
  warn(`warning: --compare ${row.impl} n=${row.n} bits=${row.bits}: after differs from before by ${(100 * change).toFixed(1)} % (> 5 %)`);
  disagreeing.add(`${row.n}/${row.bits}`);
}

if (impls.has('cpu-radix')) benchCpu(new CpuRadixSort(), keyBitsList);
if (impls.has('cpu-counting-16')) benchCpu(new CpuCountingSort16(), keyBitsList.filter((b) => b <= 16));

// The table comes last, after every JSON line: sort-table.mjs (and anything
// else reading the JSON) skips lines that do not start with '{'.
if (args.compare) console.log('\n' + ratioTable(ours, [...before, ...after], disagreeing));
