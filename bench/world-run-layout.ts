/**
 * What a loop over a world frame's runs costs where it is the first to
 * reach them, with the runs as objects (as the choice once listed them:
 * a leaf, level and LodRun object per leaf and level, made once) and with
 * the same fields in typed arrays indexed by run number (as it lists them
 * now: src/app/world/world-run-table.ts). Node, no GPU, no world: a
 * table of --leaves leaves × 3 levels made as the world's is, --drawn runs
 * a frame picked along it (a window that moves, a third of them a level
 * coarser), and between frames other allocation (20,000 small objects and
 * 4 MB written), as a frame's thread does between its updates. Each layout
 * is walked twice a frame (two loops reading different fields): the first
 * loop reaches the runs, the second finds them near. Prints the mean µs a
 * frame of each loop (the first 100 frames not counted: the JIT's), and its
 * JSON.
 *
 *   npm run bench:build && node bench-dist/world-run-layout.mjs [--leaves 20480] [--drawn 3000] [--frames 2000]
 */
import type { LodRun } from '../src/io/lod/lod-meta';
import { wholeNumber } from './bench-options';
import { commandLine } from './command-line';
import help from './world-run-layout.ts?help';

const { values: args } = commandLine('world-run-layout', help, {
  leaves: { type: 'string', default: '20480' },
  drawn: { type: 'string', default: '3000' },
  frames: { type: 'string', default: '2000' },
});
const LEVELS = 3;
const leaves = wholeNumber('leaves', args.leaves, 2);
const drawn = Math.min(wholeNumber('drawn', args.drawn, 1), leaves - 1);
const frames = wholeNumber('frames', args.frames, 101);
const WARM = 100;

/** A run as an object, the layout measured against the typed arrays. */
interface DrawnRun {
  readonly leaf: number;
  readonly level: number;
  readonly run: LodRun;
}

const table: DrawnRun[] = [];
for (let leaf = 0; leaf < leaves; leaf++) {
  for (let level = 0; level < LEVELS; level++) table.push({ leaf, level, run: { file: (leaf >> 6) * LEVELS + level, offset: (leaf & 63) * 5000, count: 5000 >> (2 * level) } });
}
const file = Int32Array.from(table, (d) => d.run.file);
const offset = Int32Array.from(table, (d) => d.run.offset);
const count = Int32Array.from(table, (d) => d.run.count);

/** The objects of the last frame, held until the next one, as a frame thread holds its own. */
let kept: unknown[] = [];
const scratch = new Float64Array(1 << 19);
/** Other work between frames: objects made and a few MB written. */
function elsewhere(): void {
  kept = Array.from({ length: 20000 }, (_, i) => ({ i, list: [i] }));
  for (let i = 0; i < scratch.length; i += 8) scratch[i] = i;
}

const ids = new Int32Array(drawn);
const draw: DrawnRun[] = [];
const sums = { objectsFirst: 0, objectsSecond: 0, arraysFirst: 0, arraysSecond: 0 };
let sink = 0;
for (let frame = 0; frame < frames; frame++) {
  const start = (frame * 7) % (leaves - drawn);
  for (let i = 0; i < drawn; i++) ids[i] = (start + i) * LEVELS + ((i + frame) % 3 === 0 ? 1 : 0);
  draw.length = drawn;
  for (let i = 0; i < drawn; i++) draw[i] = table[ids[i]!]!;
  elsewhere();
  let a = performance.now();
  for (let i = 0; i < draw.length; i++) sink += draw[i]!.run.file + draw[i]!.level;
  let b = performance.now();
  for (let i = 0; i < draw.length; i++) sink += draw[i]!.run.offset + draw[i]!.run.count;
  let c = performance.now();
  if (frame >= WARM) {
    sums.objectsFirst += b - a;
    sums.objectsSecond += c - b;
  }
  elsewhere();
  a = performance.now();
  for (let i = 0; i < drawn; i++) sink += file[ids[i]!]! + (ids[i]! % LEVELS);
  b = performance.now();
  for (let i = 0; i < drawn; i++) sink += offset[ids[i]!]! + count[ids[i]!]!;
  c = performance.now();
  if (frame >= WARM) {
    sums.arraysFirst += b - a;
    sums.arraysSecond += c - b;
  }
}
const us = (ms: number) => Math.round((1000 * ms) / (frames - WARM) * 10) / 10;
const line = { leaves, drawn, frames, objectsFirstUs: us(sums.objectsFirst), objectsSecondUs: us(sums.objectsSecond), arraysFirstUs: us(sums.arraysFirst), arraysSecondUs: us(sums.arraysSecond), sink: sink > 0 && kept.length > 0 };
console.log(`objects: first loop ${line.objectsFirstUs} µs a frame, second ${line.objectsSecondUs}; typed arrays: first ${line.arraysFirstUs}, second ${line.arraysSecondUs} (${drawn} of ${leaves * LEVELS} runs)`);
console.log(JSON.stringify(line));
