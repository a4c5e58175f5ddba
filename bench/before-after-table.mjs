#!/usr/bin/env node
// A Markdown table of two bench-frame runs side by side (bench/before-after-run.sh): per pose,
// renderer and order, each pass's time before and after (the tile raster's of the render) and the
// frame's ratio.
//   node bench/before-after-table.mjs before.jsonl after.jsonl
import { readFileSync } from 'node:fs';

const read = (file) => readFileSync(file, 'utf8').split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
const [beforeFile, afterFile] = process.argv.slice(2);
if (!afterFile) {
  console.error('usage: node bench/before-after-table.mjs before.jsonl after.jsonl');
  process.exit(2);
}
const key = (r) => `${r.pose} ${r.renderer ?? 'quads'} ${r.order ?? 'centre-depth'} ${r.keyBits}`;
const before = new Map(read(beforeFile).map((r) => [key(r), r]));
const ms = (x) => (x === undefined || x === null ? '—' : x < 1 ? x.toFixed(3) : x < 10 ? x.toFixed(2) : x.toFixed(1));
const rows = read(afterFile).filter((r) => before.has(key(r)));
if (rows.length === 0) throw new Error('no pose, renderer and order in both files');
console.log(`${rows[0].width}×${rows[0].height}, ${rows[0].adapter}.\n`);
console.log('| pose | renderer | order | project before / after | sort before / after | render before / after | raster before / after | frame before / after | after / before |');
console.log('|---|---|---|---:|---:|---:|---:|---:|---:|');
for (const a of rows) {
  const b = before.get(key(a));
  console.log(`| ${a.pose} | ${a.renderer ?? 'quads'} | ${a.order ?? 'centre-depth'} | ${ms(b.projectMs)} / ${ms(a.projectMs)} | ${ms(b.sortMs)} / ${ms(a.sortMs)} | ${ms(b.renderMs)} / ${ms(a.renderMs)} | ${ms(b.rasterMs)} / ${ms(a.rasterMs)} | ${ms(b.frameMs)} / ${ms(a.frameMs)} | ${(a.frameMs / b.frameMs).toFixed(3)} |`);
}
