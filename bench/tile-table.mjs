#!/usr/bin/env node
// Markdown tables of the tile renderer's frame benchmark (bench/tile-frame-run.sh): bench-frame's
// lines for both renderers, and the INRIA rasterizer's times at the same camera files when an
// inria.jsonl (time-ref.sh's lines) is given:
//   node bench/tile-table.mjs frame.jsonl [inria.jsonl [popping.jsonl]]
// Per view and order (centre depth, per pixel; a line without one is centre depth): the tile frame
// (project + sort + every tile pass + resolve) against the INRIA forward pass, the quad frame
// (centre depth, the only order quads draw) and, per pixel, the centre-depth tile frame; then the tile frame's passes, its pairs, what the
// ellipse test saves against binning every tile of a quad's box, and the sorts' share of the frame;
// with popping.jsonl (bench-popping's lines), the pops of each order along the slow turn from each camera.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

const read = (file) => readFileSync(file, 'utf8').split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
const [frameFile, inriaFile, poppingFile] = process.argv.slice(2);
if (!frameFile) throw new Error('usage: node bench/tile-table.mjs frame.jsonl [inria.jsonl]');
const rows = read(frameFile);
/** The INRIA time per camera file name (time-ref.sh names the file it was given). */
const inria = new Map((inriaFile ? read(inriaFile) : []).map((r) => [basename(r.camera, '.json'), r]));

const ms = (x) => (x === undefined || x === null ? '—' : x < 1 ? x.toFixed(3) : x < 10 ? x.toFixed(2) : x.toFixed(1));
const count = (n) => (n >= 1e6 ? `${(n / 1e6).toFixed(2)}M` : n >= 1e3 ? `${(n / 1e3).toFixed(1)}K` : String(n));
const ratio = (a, b) => (a === undefined || b === undefined ? '—' : `${(a / b).toFixed(2)}×`);
const pct = (x) => `${(100 * x).toFixed(0)} %`;
const goal = (r) => (r === undefined ? '—' : r <= 0.5 ? 'met, ≤ 0.5×' : r <= 1 ? 'met, ≤ 1.0×' : 'missed');

/** A line's order, the per-pixel one with its queue. */
const orderOf = (r) => (r.order === 'per-pixel' && r.pixelQueue ? `per-pixel, queue ${r.pixelQueue}` : (r.order ?? 'centre-depth'));
/**
 * One view: its lines keyed by renderer and order ('tiles|per-pixel'; the first accumulation and key
 * width measured), and the orders its tile lines were drawn in.
 */
const views = new Map();
for (const r of rows) {
  const key = `${r.scene}×${r.copies}|${r.pose}`;
  if (!views.has(key)) views.set(key, { scene: r.scene, copies: r.copies, splats: r.splats, pose: r.pose, camera: r.camera, first: r, lines: new Map(), tileOrders: [] });
  const v = views.get(key);
  if (r.accumulation !== v.first.accumulation || r.keyBits !== v.first.keyBits || r.chunks !== v.first.chunks) continue;
  const line = `${r.renderer}|${orderOf(r)}`;
  if (v.lines.has(line)) continue;
  v.lines.set(line, r);
  if (r.renderer === 'tiles') v.tileOrders.push(orderOf(r));
}
/** Each view's rows: one per order its tiles drew (centre depth alone where only quads were measured). */
const viewRows = [...views.values()].flatMap((v) =>
  (v.tileOrders.length > 0 ? v.tileOrders : ['centre-depth']).map((order) => ({ v, order, t: v.lines.get(`tiles|${order}`), q: v.lines.get('quads|centre-depth') })),
);
const sceneName = (v) => `${v.scene}${v.copies > 1 ? ` ×${v.copies}` : ''} (${count(v.splats)})`;
const first = rows[0];
console.log(`${first.width}×${first.height}, ${first.adapter}, ${first.accumulation === 'direct' ? 'rgba8unorm' : first.accumulation}, ${first.keyBits}-bit depth keys; times are medians in ms.\n`);

console.log('| view | order | scene | visible (INRIA) | INRIA | tile frame | tiles / INRIA | goal | quad frame | tiles / quads | / centre depth |');
console.log('|---|---|---|---:|---:|---:|---:|---|---:|---:|---:|');
for (const { v, order, t, q } of viewRows) {
  const ref = inria.get(v.pose);
  const tileMs = t?.frameMs;
  // What the per-pixel order costs: its tile frame over the centre-depth one at the same view.
  const centreMs = order === 'centre-depth' ? undefined : v.lines.get('tiles|centre-depth')?.frameMs;
  const visible = (t ?? q).visible;
  console.log(
    `| ${v.pose} | ${order} | ${sceneName(v)} | ${count(visible)}${ref ? ` (${count(ref.visible)})` : ''} | ${ms(ref?.ms_median)} | ${t?.drawn === 'tiles' ? ms(tileMs) : t ? t.drawn : '—'} | ` +
      `${ref ? ratio(tileMs, ref.ms_median) : '—'} | ${ref ? goal(tileMs / ref.ms_median) : '—'} | ${ms(q?.frameMs)} | ${ratio(tileMs, q?.frameMs)} | ${ratio(tileMs, centreMs)} |`,
  );
}

console.log('\nThe tile frame, pass by pass (bin … resolve from a frame that times each; render is the whole span of the unprofiled frame, then of the profiled one; untimed is what of the profiled span no pass holds):\n');
console.log('| view | order | pairs | pairs / splat | pairs a tile: most / p99 / p50 | box pairs | ellipse saves | project | sort | bin | ray shapes | pair sort | ranges | raster | resolve | untimed | render | render, profiled | sorts / frame |');
console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const { v, order, t } of viewRows) {
  if (!t) continue;
  if (t.drawn !== 'tiles') {
    console.log(`| ${v.pose} | ${order} | ${count(t.pairs)} | ${t.pairsPerSplat.toFixed(1)} | — | — | — | ${t.drawn} |||||||||||`);
    continue;
  }
  // The depth sort (the frame's own) and the pair sort (the profiled frame's), over the whole frame.
  const sorts = (t.sortMs + t.pairSortMs) / t.frameMs;
  console.log(
    `| ${v.pose} | ${order} | ${count(t.pairs)} | ${t.pairsPerSplat.toFixed(2)} | ${t.tilePairsMax === undefined ? '—' : `${count(t.tilePairsMax)} / ${count(t.tilePairsP99)} / ${count(t.tilePairsP50)}`} | ${count(t.boxPairs)} | ${pct(1 - t.pairs / t.boxPairs)} (${ratio(t.boxPairs, t.pairs)}) | ` +
      `${ms(t.projectMs)} | ${ms(t.sortMs)} | ${ms(t.binMs)} | ${t.shapesMs ? ms(t.shapesMs) : '—'} | ${ms(t.pairSortMs)} | ${ms(t.rangesMs)} | ${ms(t.rasterMs)} | ${t.resolveMs === undefined ? '—' : ms(t.resolveMs)} | ${t.untimedMs === undefined ? '—' : ms(t.untimedMs)} | ${ms(t.renderMs)} | ${ms(t.profiledRenderMs)} | ` +
      `${pct(sorts)} (${pct(t.sortMs / t.frameMs)} + ${pct(t.pairSortMs / t.frameMs)}) |`,
  );
}

if (poppingFile) {
  const popping = read(poppingFile);
  const p0 = popping[0];
  console.log(
    `\nPops along a slow turn (${p0.frames} frames, ${p0.degreesPerFrame}° of yaw a frame, at ${p0.width}×${p0.height}): pixels whose change between two ` +
      `frames passes the exact per-pixel sort's change by more than ${p0.levels}/255, summed over the turn (the share of all pixel steps):\n`,
  );
  console.log('| view | order | pops | share | centre depth / this |');
  console.log('|---|---|---:|---:|---:|');
  for (const r of popping) {
    const order = orderOf({ order: r.order, pixelQueue: r.queue });
    console.log(`| ${basename(r.camera, '.json')} | ${order} | ${r.pops} | ${(100 * r.fraction).toFixed(3)} % | ${r.ratio === undefined || r.ratio === 0 ? '—' : `${r.ratio.toFixed(1)}×`} |`);
  }
}
