/**
 * What a world's level fades (src/app/world/world-fades.ts) cost a frame
 * when every leaf drawn changes level at once, as a budget moved in the
 * panel, or a world first drawn, asks: the frame of the change (every
 * leaf's fade starts), the frames during the fades (each run's opacity),
 * and the frame they all end in. Node, no GPU: LevelFades.update alone,
 * over --leaves leaves of two levels, frames 16 ms apart, the fades
 * FADE_MS long, the change made --changes times (the first two not
 * counted: the JIT's); prints the median over the changes of each
 * frame's ms, and its JSON.
 *
 *   npm run bench:build && node bench-dist/world-fades.mjs [--leaves 20480] [--changes 12]
 */
import { LevelFades } from '../src/app/world/world-fades';
import { FADE_MS } from '../src/app/world/world-options';
import { wholeNumber } from './bench-options';
import { commandLine } from './command-line';
import help from './world-fades.ts?help';

const { values: args } = commandLine('world-fades', help, {
  leaves: { type: 'string', default: '20480' },
  changes: { type: 'string', default: '12' },
});
const leaves = wholeNumber('leaves', args.leaves, 1);
const changes = wholeNumber('changes', args.changes, 3);
const FRAME_MS = 16;

// Two levels a leaf: run 2 · leaf + level, of 1,000 and 250 splats.
const runCounts = Float64Array.from({ length: 2 * leaves }, (_, run) => 1000 >> (2 * (run % 2)));
const fades = new LevelFades({ leaves, levels: 2, runCounts }, FADE_MS);
const draw: number[] = [];
const framesAFade = Math.ceil(FADE_MS / FRAME_MS) + 2;
const change: number[] = [];
const during: number[] = [];
const end: number[] = [];
let now = 0;
for (let c = 0; c < changes; c++) {
  draw.length = 0;
  for (let leaf = 0; leaf < leaves; leaf++) draw.push(2 * leaf + (c % 2));
  for (let frame = 0; frame < framesAFade; frame++) {
    now += FRAME_MS;
    const active = fades.active;
    const started = performance.now();
    fades.update(draw, now, Infinity);
    const ms = performance.now() - started;
    if (c < 2) continue;
    if (frame === 0) change.push(ms);
    else if (active && !fades.active) end.push(ms);
    else if (fades.active) during.push(ms);
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
const result = { leaves, changes: changes - 2, fadeMs: FADE_MS, changeMs: median(change), duringMs: median(during), endMs: median(end), endMaxMs: Math.max(...end) };
console.log(`${leaves} leaves changing level at once: the change ${result.changeMs.toFixed(2)} ms, a frame of the fades ${result.duringMs.toFixed(2)}, the frame they end ${result.endMs.toFixed(2)} (at most ${result.endMaxMs.toFixed(2)})`);
console.log(JSON.stringify(result));
