#!/usr/bin/env node
// Renders the sort benchmark's JSON lines (bench-sort and cub_sort output,
// any number of files) as the markdown tables of docs/benchmarks.md:
//   node bench/sort-table.mjs docs/results/<run>/*.jsonl
// Lines not starting with '{' (bench-sort's own ratio table) are ignored.
import { readFileSync } from 'node:fs';

const records = process.argv
  .slice(2)
  .flatMap((file) => readFileSync(file, 'utf8').split('\n'))
  .filter((line) => line.startsWith('{'))
  .map((line) => JSON.parse(line));
// The tables are of random keys: rows of another pattern (bench-sort --keys) are left out.
const rows = records.filter((r) => r.impl && r.keys === undefined);

// "unstable": the row never settled (ms null); "–": not measured.
const fmt = (ms) => (ms === undefined ? '–' : ms === null ? 'unstable' : ms < 1 ? ms.toFixed(3) : ms.toFixed(2));
const pct = (x) => (x === undefined || x === null || Number.isNaN(x) ? '–' : `${(100 * x).toFixed(1)} %`);
const label = (n) => (n >= 1 << 20 && n % (1 << 20) === 0 ? `${n / (1 << 20)}M` : n % 1024 === 0 ? `${n / 1024}K` : String(n));
const find = (pred) => rows.find(pred);
const gpuRows = rows.filter((r) => r.impl === 'gpu-radix');
const sizes = [...new Set(rows.map((r) => r.n).filter((n) => n !== undefined))].sort((a, b) => a - b);
const bitsList = [...new Set(gpuRows.map((r) => r.keyBits))].sort((a, b) => a - b);
const configs = [...new Set(gpuRows.map((r) => r.config))];
const rankingOf = (c) => find((r) => r.impl === 'gpu-radix' && r.config === c)?.ranking;

/** CUB's ms for (n, bits): the mean of every run given (bench-sort --compare emits one before and one after). */
function cubMs(n, bits) {
  const ms = rows.filter((r) => r.impl === 'cub' && r.n === n && r.bits === bits).map((r) => r.ms);
  return ms.length ? ms.reduce((a, b) => a + b, 0) / ms.length : undefined;
}

for (const { machine } of records.filter((r) => r.machine)) {
  const parts = [machine.device, machine.description && `driver ${machine.description}`, machine.vendor, machine.architecture].filter(Boolean);
  console.log(`Machine: ${parts.join(', ')}; Node ${machine.node}, webgpu ${machine.webgpu ?? '?'}.\n`);
}

// Copy bandwidth of the same GPU, the ceiling for the memory-bound phases.
const copy = find((r) => r.impl === 'copy');
const copyBuffer = find((r) => r.impl === 'copy-buffer');
for (const [name, r] of [['copy kernel (vec4<u32>)', copy], ['copyBufferToBuffer', copyBuffer]]) {
  if (!r) continue;
  const gbps = r.gbps === null ? 'unstable' : `${r.gbps} GB/s`;
  console.log(`Copy, ${name}: ${gbps} (${(r.bytes / 2 ** 20).toFixed(0)} MiB read + written in ${fmt(r.ms)} ms, spread ${pct(r.spread)}).`);
}
if (copy || copyBuffer) console.log('');

// Rows with batchMedians come from the stable warm-up; older files used a fixed one.
const warmup = (config) =>
  gpuRows.some((r) => r.config === config && r.batchMedians) ? 'a stable warm-up' : 'a fixed warm-up (older bench-sort)';

// One table per configuration (e.g. d8 with the portable and the subgroup ranking).
for (const config of configs) {
  const ranking = rankingOf(config);
  console.log(
    `GPU radix sort, ${config}${ranking ? ` (${ranking} ranking)` : ''}, beside CUB, same GPU, same run; ms, median of timestamped runs after ${warmup(config)}; spread = p90 / p10 - 1.\n`,
  );
  console.log('| pairs | key bits | Splatsort | spread | CUB | ratio | prepare | count | scan | scatter |');
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const keyBits of bitsList) {
    for (const n of sizes) {
      const ours = find((r) => r.impl === 'gpu-radix' && r.config === config && r.n === n && r.keyBits === keyBits);
      if (!ours) continue;
      const cub = cubMs(n, keyBits);
      const ratio = cub && typeof ours.ms === 'number' ? `${(ours.ms / cub).toFixed(2)}×` : '–';
      const ms = fmt(ours.ms) + (ours.drift ? ' (drift)' : '');
      console.log(
        `| ${label(n)} | ${keyBits} | ${ms} | ${pct(ours.spread)} | ${fmt(cub)} | ${ratio} | ${fmt(ours.prepareMs)} | ${fmt(ours.countMs)} | ${fmt(ours.scanMs)} | ${fmt(ours.scatterMs)} |`,
      );
    }
  }
  console.log('');
}

if (configs.length > 1) {
  console.log('GPU configurations (digit bits, ranking, pairs per invocation → tile); ms.\n');
  const head = configs.map((c) => `${c}${rankingOf(c) ? ` ${rankingOf(c)}` : ''} (tile ${find((r) => r.config === c).tile})`);
  console.log(`| pairs | key bits | ${head.join(' | ')} |`);
  console.log(`|---:|---:|${configs.map(() => '---:').join('|')}|`);
  for (const keyBits of bitsList) {
    for (const n of sizes) {
      const cells = configs.map((c) => fmt(find((r) => r.impl === 'gpu-radix' && r.config === c && r.n === n && r.keyBits === keyBits)?.ms));
      if (cells.every((c) => c === '–')) continue;
      console.log(`| ${label(n)} | ${keyBits} | ${cells.join(' | ')} |`);
    }
  }
  console.log('');
}

// Per-phase traffic, from the --phases rows. Bytes moved per pair and pass:
//  count: reads the key (4 B);
//  scan: the per-tile digit counts, radix × 4 B per tile, written by count,
//        then read and written by the scan and read by the scatter, taken as
//        8 × radix × 4 B per tile (an estimate that leaves out the scan's
//        reads of the block sums; small beside the others);
//  scatter: reads and writes key and value (16 B).
// (The prepare step moves no pairs.)
// Achieved GB/s = bytes/pair × n × passes / time; "% copy" is that against
// the copy kernel measured in the same run.
const phaseRows = gpuRows.filter((r) => typeof r.countMs === 'number');
if (phaseRows.length) {
  const copyGbps = typeof copy?.gbps === 'number' ? copy.gbps : undefined;
  console.log(
    `Phase bandwidth (bytes per pair and pass: count 4, scan 8 × radix × 4 / tile, scatter 16)${copyGbps ? `; % of the copy kernel's ${copyGbps} GB/s` : ''}.\n`,
  );
  console.log('| config | pairs | key bits | passes | count GB/s | % copy | scan B/pair | scan GB/s | % copy | scatter GB/s | % copy |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of phaseRows.sort((a, b) => a.config.localeCompare(b.config) || a.keyBits - b.keyBits || a.n - b.n)) {
    const passes = Math.ceil(r.keyBits / r.digitBits);
    const radix = r.radix ?? 2 ** r.digitBits;
    const scanBytes = (8 * radix * 4) / r.tile;
    const gbps = (bytes, ms) => (ms > 0 ? (bytes * r.n * passes) / (ms * 1e6) : undefined);
    const cells = [
      [4, r.countMs],
      [scanBytes, r.scanMs],
      [16, r.scatterMs],
    ].map(([bytes, ms]) => {
      const g = gbps(bytes, ms);
      return [g === undefined ? '–' : g < 10 ? g.toPrecision(2) : g.toFixed(0), g !== undefined && copyGbps ? pct(g / copyGbps) : '–'];
    });
    console.log(
      `| ${r.config} | ${label(r.n)} | ${r.keyBits} | ${passes} | ${cells[0].join(' | ')} | ${scanBytes.toFixed(2)} | ${cells[1].join(' | ')} | ${cells[2].join(' | ')} |`,
    );
  }
  console.log('');
}

const cpuImpls = [...new Set(rows.filter((r) => r.impl.startsWith('cpu')).map((r) => r.impl))];
if (cpuImpls.length) {
  const cpuBits = [...new Set(rows.filter((r) => r.impl.startsWith('cpu')).map((r) => r.keyBits))].sort((a, b) => a - b);
  console.log('CPU sorts (Node, one thread); ms, median.\n');
  console.log('| pairs | key bits | ' + cpuImpls.join(' | ') + ' |');
  console.log('|---:|---:|' + cpuImpls.map(() => '---:').join('|') + '|');
  for (const keyBits of cpuBits) {
    for (const n of sizes) {
      const cells = cpuImpls.map((impl) => fmt(find((r) => r.impl === impl && r.n === n && r.keyBits === keyBits)?.ms));
      if (cells.every((c) => c === '–')) continue;
      console.log(`| ${label(n)} | ${keyBits} | ${cells.join(' | ')} |`);
    }
  }
}
