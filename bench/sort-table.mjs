#!/usr/bin/env node
// Renders the sort benchmark's JSON lines (bench-sort and cub_sort output,
// any number of files) as the markdown tables of docs/benchmarks.md:
//   node bench/sort-table.mjs docs/results/<run>/*.jsonl
import { readFileSync } from 'node:fs';

const rows = process.argv
  .slice(2)
  .flatMap((file) => readFileSync(file, 'utf8').split('\n'))
  .filter((line) => line.startsWith('{'))
  .map((line) => JSON.parse(line))
  .filter((r) => r.impl);

const fmt = (ms) => (ms === undefined ? '–' : ms < 1 ? ms.toFixed(3) : ms.toFixed(2));
const label = (n) => (n >= 1 << 20 ? `${n / (1 << 20)}M` : `${n / 1024}K`);
const find = (pred) => rows.find(pred);
const sizes = [...new Set(rows.map((r) => r.n))].sort((a, b) => a - b);
const bitsList = [...new Set(rows.filter((r) => r.impl === 'gpu-radix').map((r) => r.keyBits))].sort((a, b) => a - b);
const mainConfig = 'd8';

console.log('GPU radix sort (default configuration) beside CUB, same GPU, same run; ms, median of timestamped runs.\n');
console.log('| pairs | key bits | Splatsort | CUB | ratio | count | scan | scatter |');
console.log('|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const keyBits of bitsList) {
  for (const n of sizes) {
    const ours = find((r) => r.impl === 'gpu-radix' && r.config === mainConfig && r.n === n && r.keyBits === keyBits);
    const cub = find((r) => r.impl === 'cub' && r.n === n && r.bits === keyBits);
    if (!ours) continue;
    const ratio = cub ? `${(ours.ms / cub.ms).toFixed(2)}×` : '–';
    console.log(
      `| ${label(n)} | ${keyBits} | ${fmt(ours.ms)} | ${fmt(cub?.ms)} | ${ratio} | ${fmt(ours.countMs)} | ${fmt(ours.scanMs)} | ${fmt(ours.scatterMs)} |`,
    );
  }
}

const configs = [...new Set(rows.filter((r) => r.impl === 'gpu-radix').map((r) => r.config))];
console.log('\nGPU configurations (digit bits, pairs per invocation → tile); ms.\n');
console.log(`| pairs | key bits | ${configs.map((c) => `${c} (tile ${find((r) => r.config === c).tile})`).join(' | ')} |`);
console.log(`|---:|---:|${configs.map(() => '---:').join('|')}|`);
for (const keyBits of bitsList) {
  for (const n of sizes.filter((s) => s >= 1 << 20)) {
    const cells = configs.map((c) => fmt(find((r) => r.config === c && r.n === n && r.keyBits === keyBits)?.ms));
    console.log(`| ${label(n)} | ${keyBits} | ${cells.join(' | ')} |`);
  }
}

const cpuImpls = [...new Set(rows.filter((r) => r.impl.startsWith('cpu')).map((r) => r.impl))];
if (cpuImpls.length) {
  console.log('\nCPU sorts (Node, one thread); ms, median.\n');
  console.log('| pairs | key bits | ' + cpuImpls.join(' | ') + ' |');
  console.log('|---:|---:|' + cpuImpls.map(() => '---:').join('|') + '|');
  for (const keyBits of bitsList) {
    for (const n of sizes) {
      const cells = cpuImpls.map((impl) => fmt(find((r) => r.impl === impl && r.n === n && r.keyBits === keyBits)?.ms));
      if (cells.every((c) => c === '–')) continue;
      console.log(`| ${label(n)} | ${keyBits} | ${cells.join(' | ')} |`);
    }
  }
}
