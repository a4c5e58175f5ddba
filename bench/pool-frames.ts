/**
 * What the page pool's setDrawn costs a frame's main thread, under Node:
 * a pool of the viewer's size (SH degree 0, pages reserved, no splats
 * written: the mask and scales do not read them), drawing about `--drawn`
 * splats as runs of a few thousand (a leaf's level) from chunks of 256K,
 * and every frame a share of the runs swapped for others (the choice after
 * the camera moved) or, with --fading, the same runs at new opacities (a
 * level change fading). Each frame's setDrawn is timed once the GPU has
 * done the frame before (a queue.onSubmittedWorkDone), warmed until stable
 * (bench/stable-timing.ts); the CPU time over the same calls beside the
 * wall clock. One JSON line:
 *   {kind: 'setDrawn', capacity, drawn, runs, changed, fading, ms: {p50, p95}, cpuMs: {p50, p95}}
 *
 *   npm run bench:build && node bench-dist/pool-frames.mjs [--capacity 13000000] [--drawn 4000000]
 *     [--run 5000] [--change 0.1] [--fading]
 */
import { createNodeGpuContext } from '../src/gpu/node-gpu';
import { SplatPool, type PooledChunk, type PooledRun } from '../src/scene/splat-pool';
import { wholeNumber } from './bench-options';
import { measureStable, quantile, round4, timingWarning } from './stable-timing';
import { commandLine } from './command-line';
import { random } from '../tests/support/up-scenes';
import help from './pool-frames.ts?help';

const { values: args } = commandLine('pool-frames', help, {
  capacity: { type: 'string', default: '13000000' },
  drawn: { type: 'string', default: '4000000' },
  run: { type: 'string', default: '5000' },
  change: { type: 'string', default: '0.1' },
  fading: { type: 'boolean', default: false },
});
const capacity = wholeNumber('capacity', args.capacity!, 1 << 14);
const drawnWanted = wholeNumber('drawn', args.drawn!, 1);
const runSplats = wholeNumber('run', args.run!, 1);
const change = Number(args.change);
if (!(change >= 0 && change <= 1)) throw new Error(`--change takes a share of the runs (0 to 1), got ${args.change}`);

const { device } = await createNodeGpuContext('pool-frames');
const pool = new SplatPool(device, capacity, 0, 'pool-frames');
const CHUNK = 256 * 1024;
const chunks: PooledChunk[] = [];
for (let chunk = pool.reserve(CHUNK); chunk; chunk = pool.reserve(CHUNK)) chunks.push(chunk);
// Every run a chunk could give, shuffled: those drawn are the first, the others wait to be swapped in.
const rand = random(7);
const all: PooledRun[] = chunks.flatMap((chunk) => Array.from({ length: Math.floor(chunk.count / runSplats) }, (_, k) => ({ chunk, offset: k * runSplats, count: runSplats })));
for (let i = all.length - 1; i > 0; i--) {
  const j = Math.floor(rand() * (i + 1));
  [all[i], all[j]] = [all[j]!, all[i]!];
}
const drawnRuns = Math.min(all.length, Math.ceil(drawnWanted / runSplats));
const runs = all.slice(0, drawnRuns);
const waiting = all.slice(drawnRuns);
const swaps = Math.round(change * drawnRuns);
let frame = 0;
const nextFrame = () => {
  frame++;
  if (args.fading) {
    const opacity = 0.1 + 0.8 * ((frame % 10) / 10);
    for (let r = 0; r < swaps; r++) runs[r]!.opacity = opacity;
    return;
  }
  for (let s = 0; s < swaps && waiting.length > 0; s++) {
    const r = Math.floor(rand() * runs.length);
    const w = Math.floor(rand() * waiting.length);
    [runs[r], waiting[w]] = [waiting[w]!, runs[r]!];
  }
};

const cpu: number[] = [];
const TIMING = { batch: 20, window: 3, tol: 0.05, runs: 200 };
const result = await measureStable(async () => {
  nextFrame();
  await device.queue.onSubmittedWorkDone();
  const startCpu = process.cpuUsage();
  const start = performance.now();
  pool.setDrawn(runs);
  const ms = performance.now() - start;
  const used = process.cpuUsage(startCpu);
  cpu.push((used.user + used.system) / 1000);
  return ms;
}, TIMING);
const warning = timingWarning('setDrawn', result, TIMING.tol);
if (warning) console.error(warning);
const measuredCpu = cpu.slice(-TIMING.runs);
console.log(JSON.stringify({
  kind: 'setDrawn', capacity: pool.scene.count, drawn: drawnRuns * runSplats, runs: drawnRuns, changed: swaps, fading: args.fading,
  ms: result.ok ? { p50: round4(quantile(result.samples, 0.5)), p95: round4(quantile(result.samples, 0.95)) } : null,
  cpuMs: { p50: round4(quantile(measuredCpu, 0.5)), p95: round4(quantile(measuredCpu, 0.95)) },
}));
pool.destroy();
