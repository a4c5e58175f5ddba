#!/usr/bin/env node
// Markdown tables of bench-frame results (one JSON line per pose, layout
// and key width), with CUB's time for the same number of 32-bit pairs when
// a cub.jsonl is given:  node bench/frame-table.mjs frame.jsonl [cub.jsonl]
// Quad lines only (the tile renderer's have their own tables: bench/tile-table.mjs).
import { readFileSync } from 'node:fs';

const read = (file) => readFileSync(file, 'utf8').split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
const [frameFile, cubFile] = process.argv.slice(2);
const rows = read(frameFile).filter((r) => (r.renderer ?? 'quads') === 'quads');
const cub = cubFile ? read(cubFile).filter((r) => r.impl === 'cub') : [];
const ms = (x) => (x < 1 ? x.toFixed(3) : x < 10 ? x.toFixed(2) : x.toFixed(1));
const pct = (x) => (x === 0 ? '0' : x < 0.001 ? `${(100 * x).toFixed(3)} %` : `${(100 * x).toFixed(1)} %`);
const count = (n) => (n >= 1e6 ? `${(n / 1e6).toFixed(2)}M` : `${Math.round(n / 1e3)}K`);
/** CUB at the nearest measured size, scaled linearly to `n` (it is linear in this range). */
function cubAt(n, bits) {
  const same = cub.filter((r) => r.bits === bits);
  if (same.length === 0) return null;
  const near = same.reduce((a, b) => (Math.abs(b.n - n) < Math.abs(a.n - n) ? b : a));
  return (near.ms * n) / near.n;
}

const first = rows[0];
console.log(`Scene: ${first.scene} ×${first.copies} (${count(first.splats)} splats), ${first.width}×${first.height}, ${first.adapter}.\n`);
console.log('| pose | buffers | key bits | blended into | visible | project | sort | project + sort | CUB 32-bit, same count | render | flat floor | render / floor | inverted pairs | beyond a 16-bit step | largest / range |');
console.log('|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const r of rows) {
  const c = cubAt(r.visible, 32);
  console.log(`| ${r.pose} | ${r.chunks} | ${r.keyBits} | ${r.accumulation && r.accumulation !== 'direct' ? r.accumulation : 'rgba8unorm'} | ${count(r.visible)} | ${ms(r.projectMs)} | ${ms(r.sortMs)} | ${ms(r.orderMs)} | ${c === null ? '—' : ms(c)} | ${ms(r.renderMs)} | ${ms(r.flatMs)} | ${r.renderOverFlat.toFixed(2)} | ${pct(r.invertedFraction)} | ${r.beyond} | ${r.largest.toExponential(1)} |`);
}
