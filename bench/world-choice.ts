/**
 * What the level choice of a Streamed SOG world costs a frame, under Node:
 * WorldChoice.choose (the result rewritten in place) and chooseLevels (a
 * result of its own a call), from three cameras over the index's bounds,
 * each warmed until stable (bench/stable-timing.ts). Prints a line per
 * camera (leaves in view, splats wanted and drawn, the threshold the budget
 * allowed, ms p50/p95) and its JSON. Beside each wall-clock time, the
 * process's CPU time over the same calls: on a machine shared with other
 * work, the wall clock's p95 is mostly time the process was not running.
 *
 *   npm run bench:build && node bench-dist/world-choice.mjs --index worlds/k50/world/lod-meta.json
 *     [--budget 4000000] [--threshold 1] [--resident all|coarsest|none] [--policy threshold|benefit|distance]
 *   node bench-dist/world-choice.mjs --made 128x80 …
 *
 * Cameras, 1920×1080, 60° high, y up: "edge" 20 units above the middle of
 * the +z edge looking at the world's centre; "inside" in the middle, just over
 * the leaves' median top, looking along +x; "above" high over the centre
 * looking down. --threshold is the error asked for, in pixels; --resident
 * says which chunk files count as on the GPU: all, those of the coarsest
 * level, or none; --policy how a budget that binds is spent (default: the
 * viewer's, WORLD_DEFAULTS.budgetPolicy). --made COLSxROWS chooses over an
 * index made in memory instead: COLS × ROWS leaves of ground 10 × 10 units
 * (1 to 4 high), 3 levels of 4,000-6,000 splats, a quarter and a sixteenth
 * of that, displaced by 0.03-0.07 and 0.1-0.2 units, 32 leaves a chunk
 * file, a binary tree halving the longer side (fixed seed).
 */
import { readFileSync } from 'node:fs';
import type { CameraFile } from '../src/app/camera/camera-file';
import { chooseLevels, worldLeaves, worldView, WorldChoice, type LodChoice, type LodChoiceOptions, type WorldView } from '../src/app/world/world-lod';
import { parseLodMeta, type LodIndex, type LodNode } from '../src/io/lod/lod-meta';
import { WORLD_DEFAULTS } from '../src/app/world/world-options';
import { wholeNumber, listOption } from './bench-options';
import { measureStable, quantile, timingWarning } from './stable-timing';
import { commandLine } from './command-line';
import { random } from '../tests/support/up-scenes';
import help from './world-choice.ts?help';

const { values: args } = commandLine('world-choice', help, {
  index: { type: 'string' },
  budget: { type: 'string' },
  threshold: { type: 'string', default: '1' },
  resident: { type: 'string', default: 'all' },
  policy: { type: 'string', default: WORLD_DEFAULTS.budgetPolicy },
  made: { type: 'string' },
});
if (!args.index === !args.made) throw new Error('it needs --index PATH/lod-meta.json or --made COLSxROWS');
const budget = args.budget === undefined ? Infinity : wholeNumber('budget', args.budget, 1);
const thresholdPx = Number(args.threshold);
if (!(thresholdPx > 0)) throw new Error(`--threshold: ${args.threshold} is not a number of pixels > 0`);
const [residency] = listOption('resident', args.resident!, ['all', 'coarsest', 'none'] as const);
const [budgetPolicy] = listOption('policy', args.policy!, ['threshold', 'benefit', 'distance'] as const);

const index = args.index ? parseLodMeta(readFileSync(args.index, 'utf8'), args.index) : madeIndex(args.made!);
const leaves = worldLeaves(index);
const coarsestFiles = new Set(leaves.flatMap((leaf) => (leaf.runs[index.levels - 1] ? [leaf.runs[index.levels - 1]!.file] : [])));
const resident = { all: () => true, coarsest: (file: number) => coarsestFiles.has(file), none: () => false }[residency!];
const options: LodChoiceOptions = { thresholdPx, budget, budgetPolicy, resident };

const { min, max } = index.tree.bound;
const mid: [number, number, number] = [(min[0] + max[0]) / 2, (min[1] + max[1]) / 2, (min[2] + max[2]) / 2];
const tops = leaves.map((leaf) => leaf.max[1]).sort((a, b) => a - b);
const ground = tops[Math.floor(tops.length / 2)]!;
const across = Math.max(max[0] - min[0], max[2] - min[2]);
const camera = (eye: [number, number, number], target: [number, number, number], up: [number, number, number] = [0, 1, 0]): CameraFile => ({
  width: 1920, height: 1080, fovy_deg: 60, eye, target, up, background: [0, 0, 0], sh_degree: 0,
});
const cameras: [string, WorldView][] = [
  ['edge', worldView(camera([mid[0], max[1] + 20, max[2]], mid))],
  ['inside', worldView(camera([mid[0], ground + 2, mid[2]], [mid[0] + 1, ground + 2, mid[2]]))],
  ['above', worldView(camera([mid[0], max[1] + across, mid[2]], [mid[0], ground, mid[2]], [0, 0, -1]))],
];

const choice = new WorldChoice(leaves, index.tree);
// The first calls, before the JIT has compiled anything: what the first frames of a world cost.
const cold: number[] = [];
for (let i = 0; i < 20; i++) {
  const start = performance.now();
  choice.choose(cameras[0]![1], options);
  cold.push(performance.now() - start);
}
console.log(`${args.index ?? `made ${args.made}`}: ${leaves.length.toLocaleString('en-US')} leaves, ${index.levels} levels; budget ${budget.toLocaleString('en-US')} (${budgetPolicy}), ${thresholdPx} px, resident: ${residency}`);
console.log(`first call ${cold[0]!.toFixed(2)} ms, first 20 calls ${(cold.reduce((a, b) => a + b) / cold.length).toFixed(2)} ms each (camera "edge")`);

const TIMING = { batch: 20, window: 3, tol: 0.05, runs: 200 };
const ms = (x: number) => x.toFixed(3);
for (const [name, view] of cameras) {
  const timed = async (call: () => LodChoice) => {
    const cpu: number[] = [];
    const result = await measureStable(async () => {
      const startCpu = process.cpuUsage();
      const start = performance.now();
      call();
      const ms = performance.now() - start;
      const used = process.cpuUsage(startCpu);
      cpu.push((used.user + used.system) / 1000);
      return ms;
    }, TIMING);
    const warning = timingWarning(`${name}`, result, TIMING.tol);
    if (warning) console.error(warning);
    const measuredCpu = cpu.slice(-TIMING.runs);
    return result.ok ? { p50: quantile(result.samples, 0.5), p95: quantile(result.samples, 0.95), cpuP50: quantile(measuredCpu, 0.5), cpuP95: quantile(measuredCpu, 0.95) } : null;
  };
  const shared = await timed(() => choice.choose(view, options));
  const copied = await timed(() => chooseLevels(leaves, view, options));
  const r = choice.choose(view, options);
  const inView = r.wanted.filter((level) => level >= 0).length + r.leftOut;
  const row = {
    camera: name, policy: budgetPolicy, inView, wanted: r.wantedSplats, drawn: r.drawnSplats, thresholdPx: +r.thresholdPx.toFixed(4), leftOut: r.leftOut, fetch: r.fetch.length,
    chooseMs: shared && Object.fromEntries(Object.entries(shared).map(([k, v]) => [k, +ms(v)])),
    chooseLevelsMs: copied && Object.fromEntries(Object.entries(copied).map(([k, v]) => [k, +ms(v)])),
  };
  const t = (x: { p50: number; p95: number; cpuP50: number; cpuP95: number } | null) => (x ? `${ms(x.p50)} / ${ms(x.p95)} ms (CPU ${ms(x.cpuP50)} / ${ms(x.cpuP95)})` : 'unstable');
  console.log(
    `${name.padEnd(6)} in view ${inView.toLocaleString('en-US')}, wanted ${r.wantedSplats.toLocaleString('en-US')}, drawn ${r.drawnSplats.toLocaleString('en-US')}, ` +
      `threshold ${r.thresholdPx.toFixed(3)} px, left out ${r.leftOut}, fetch ${r.fetch.length}; choose ${t(shared)}, chooseLevels ${t(copied)} (p50 / p95)`,
  );
  console.log(JSON.stringify(row));
}

/** The --made index (see the file's header). */
function madeIndex(size: string): LodIndex {
  const [cols, rows] = /^(\d+)x(\d+)$/.exec(size)?.slice(1).map(Number) ?? [];
  if (!(cols! >= 1 && rows! >= 1)) throw new Error(`--made: ${size} is not COLSxROWS`);
  const rand = random(20261130);
  const perLevel = Math.ceil((cols! * rows!) / 32);
  const counts = [0, 0, 0];
  let leaves = 0;
  let nodes = 0;
  const leaf = (c: number, r: number): LodNode => {
    const k = leaves++;
    const finest = 4000 + Math.floor(rand() * 2000);
    const runs = [finest, finest >> 2, finest >> 4].map((count, level) => ((counts[level]! += count), { file: level * perLevel + (k >> 5), offset: 0, count }));
    const bound = { min: [10 * c, 0, 10 * r], max: [10 * c + 10, 1 + rand() * 3, 10 * r + 10] } as LodNode['bound'];
    return { path: `leaf ${k}`, bound, children: [], runs, errors: null, displacements: [0, 0.03 + rand() * 0.04, 0.1 + rand() * 0.1] };
  };
  const node = (c0: number, c1: number, r0: number, r1: number): LodNode => {
    nodes++;
    if (c1 - c0 === 1 && r1 - r0 === 1) return leaf(c0, r0);
    const [cm, rm] = [(c0 + c1) >> 1, (r0 + r1) >> 1];
    const children = c1 - c0 >= r1 - r0 ? [node(c0, cm, r0, r1), node(cm, c1, r0, r1)] : [node(c0, c1, r0, rm), node(c0, c1, rm, r1)];
    const bound = { min: [10 * c0, 0, 10 * r0], max: [10 * c1, Math.max(...children.map((child) => child.bound.max[1])), 10 * r1] } as LodNode['bound'];
    return { path: `node ${nodes}`, bound, children, runs: [], errors: null, displacements: null };
  };
  const tree = node(0, cols!, 0, rows!);
  const filenames = Array.from({ length: 3 * perLevel }, (_, f) => `${Math.floor(f / perLevel)}_${f}/meta.json`);
  return { levels: 3, counts, filenames, environment: null, tree, nodes, leaves };
}
