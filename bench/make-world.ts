/**
 * A Streamed SOG world (lod-meta.json and its SOG chunks) far larger than
 * one scene, for the world benchmark and for trying the viewer: `copies`
 * copies of a real scene on a square grid in the x–z plane (as
 * bench/replicate.ts lays them out) at `levels` levels of detail. Level l
 * is level l-1 decimated to a quarter of its splats (--keep 25; --keep 50
 * makes levels twice as many for the same coarsest) by splat-transform (on
 * WebGPU: SwiftShader's driver where no other is named), made once and
 * placed like level 0. State in results that the world is replicated.
 *
 * The copies are split into `jobs` groups of neighbouring rows, each built
 * as a world of its own by splat-transform processes of its own, all at
 * once: per level, one PLY of the group's copies (splat-transform shifts
 * each input and writes them joined; it cuts into chunks only sources of
 * one space, so the shifts are baked first), then the group's chunks and
 * index in world/part-j/. bench/world-merge.ts joins the parts' indexes
 * into world/lod-meta.json and checks that every chunk it names is there;
 * bench/world-displacements-write.ts then measures how far each leaf's
 * levels move its detail (in a worker thread a core) and writes that into
 * the index.
 *
 * A part is built in a folder of its own and renamed when whole, and the
 * decimated levels are kept, so a build cut short goes on where it
 * stopped (out/plan.json records the options it was made for: another
 * plan starts the parts again); out/build.json (the printed line) is
 * written last, and a finished world with the same options is not built
 * again. Prints one JSON line:
 *   {scene, copies, levels, jobs, chunkThousands, counts, splats, chunks, leaves, bytes, seconds, phases, index, displacementDecodes}
 *
 *   node bench-dist/make-world.mjs --scene ../shared/scenes/inria_karangkidul_1M_sh0_decoded.ply \
 *     --copies 100 --levels 3 --jobs 8 --out worlds/big
 *
 * Options: --chunk K (splats a chunk holds before it is split, in thousands;
 * default 256), --workers W (splat-transform's encoding threads per job;
 * default: the cores shared among the jobs, rounded up), --decode (the check also
 * decodes every chunk), --decimation uniform|adaptive (splat-transform's
 * --decimate, the default, or --decimate-adaptive), --keep P (the percentage
 * of splats each level keeps of the one before; default 25).
 *
 * What it is doing goes to standard error as it goes, a line every 30 s
 * while one splat-transform run lasts. Decimating a scene with spherical
 * harmonics is slow without a GPU (minutes for 10k–250k splats on two
 * cores): try it first with --levels 1 or a small --copies.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { loadSceneFile } from '../src/io/node-scene-source';
import { nodeLoadLimits } from '../src/app/node-viewer';
import { gridShifts } from './replicate';
import { wholeNumber } from './bench-options';
import { SPLAT_TRANSFORM_CLI } from './splat-transform';
import { checkWorld, mergeWorlds } from './world-merge';
import { writeDisplacements } from './world-displacements-write';
import { commandLine } from './command-line';
import help from './make-world.ts?help';


const { values: args } = commandLine('make-world', help, {
    scene: { type: 'string' },
    copies: { type: 'string', default: '50' },
    levels: { type: 'string', default: '3' },
    jobs: { type: 'string', default: '1' },
    // 256K splats a chunk: a chunk is the unit the GPU pool loads and evicts, and at splat-transform's
    // default (512K) a 4M-splat budget holds only eight of them; 256K halves what one drawn leaf pins
    // while keeping the chunks of a 100-copy world to about 600 (each a fetch and a meta.json).
    chunk: { type: 'string', default: '256' },
    workers: { type: 'string' },
    decode: { type: 'boolean', default: false },
    // splat-transform's two decimations: 'uniform' (--decimate, the same rate everywhere) or 'adaptive'
    // (--decimate-adaptive, removal allocated by local error).
    decimation: { type: 'string', default: 'uniform' },
    // The percentage of its splats each level keeps of the one before.
    keep: { type: 'string', default: '25' },
    out: { type: 'string' },
});
if (!args.scene || !args.out) throw new Error('it needs --scene FILE and --out FOLDER (--help lists the options)');
if (!existsSync(args.scene)) throw new Error(`--scene ${args.scene}: no such file`);
const copies = wholeNumber('copies', args.copies!, 1);
const levels = wholeNumber('levels', args.levels!, 1);
// A root holds at most 64 children (LOD_META_LIMITS.maxChildren): one a job.
const jobs = Math.min(wholeNumber('jobs', args.jobs!, 1), copies, 64);
const chunkThousands = wholeNumber('chunk', args.chunk!, 1);
const decimation = args.decimation!;
const keep = wholeNumber('keep', args.keep!, 1);
if (keep >= 100) throw new Error(`--keep is the percentage a level keeps of the one before, under 100, got ${keep}`);
if (decimation !== 'uniform' && decimation !== 'adaptive') throw new Error(`--decimation takes uniform or adaptive, got ${decimation}`);
// Rounded up: a job's main thread waits on the GPU and the disk part of the time.
const workers = args.workers ? wholeNumber('workers', args.workers, 0) : Math.ceil(availableParallelism() / jobs);
const out = resolve(args.out);
const worldDir = join(out, 'world');
const done = join(out, 'build.json');
// A level's share is named only where it is not the quarter the first worlds were built with (their build.json stays valid).
const options = { scene: basename(args.scene), copies, levels, jobs, chunkThousands, decimation, ...(keep === 25 ? {} : { keep }) };

const same = existsSync(done) && JSON.parse(readFileSync(done, 'utf8')) as Record<string, unknown>;
if (same && Object.entries(options).every(([key, value]) => same[key] === value)) {
  console.log(JSON.stringify({ ...same, reused: true }));
  process.exit(0);
}
rmSync(done, { force: true });
// What is already in `out` was made for these options, or is removed: parts cut for other copies or
// chunks, and levels of another scene.
const planPath = join(out, 'plan.json');
const plan = existsSync(planPath) ? JSON.parse(readFileSync(planPath, 'utf8')) as Record<string, unknown> : null;
if (plan && Object.entries(options).some(([key, value]) => plan[key] !== value)) {
  rmSync(join(out, 'world'), { recursive: true, force: true });
  const stale = (name: string) => name.startsWith('part-') || ((plan.scene !== options.scene || plan.decimation !== options.decimation) && name.startsWith('level-'));
  if (existsSync(out)) for (const name of readdirSync(out)) if (stale(name)) rmSync(join(out, name), { force: true });
}
mkdirSync(out, { recursive: true });
writeFileSync(planPath, JSON.stringify(options));
const started = performance.now();
const seconds = (since: number) => Math.round((performance.now() - since) / 100) / 10;
const say = (what: string) => console.error(`[make-world ${seconds(started)} s] ${what}`);
mkdirSync(worldDir, { recursive: true });

// Set before anything opens a GPU: this process's load limits, and splat-transform's work. A driver
// named either way (VK_DRIVER_FILES is what the GPU machine's kit sets) is kept.
const SWIFTSHADER = '/usr/lib/chromium/vk_swiftshader_icd.json';
if (!process.env.VK_ICD_FILENAMES && !process.env.VK_DRIVER_FILES && existsSync(SWIFTSHADER)) process.env.VK_ICD_FILENAMES = SWIFTSHADER;
const env = { ...process.env };

// A build that stops (stopped from outside, or a part failed) stops its splat-transform processes too:
// left running, they would go on writing files the next build writes again.
const running = new Set<ChildProcess>();
process.on('exit', () => running.forEach((child) => child.kill('SIGKILL')));
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    say(`stopped (${signal}); a rerun goes on from the parts and levels already whole`);
    process.exit(130);
  });
}

/**
 * One splat-transform run writing `output`: a PLY under a temporary name first, so a PLY there is
 * whole (an index must be named lod-meta.json: its folder is renamed instead).
 */
function splatTransform(what: string, inputs: string[], output: string, extra: string[] = []): Promise<void> {
  const partial = output.endsWith('.ply') ? join(dirname(output), `partial-${basename(output)}`) : output;
  const since = performance.now();
  say(`${what}…`);
  // A run may take minutes (decimation of SH scenes without a GPU): say it is still going.
  const still = setInterval(() => say(`${what}: still going, ${seconds(since)} s`), STILL_GOING_MS);
  return new Promise<void>((finished, failed) => {
    const child = spawn(process.execPath, [SPLAT_TRANSFORM_CLI, '--no-tty', '--quiet', '--overwrite', ...inputs, partial, ...extra], { env, stdio: ['ignore', 'ignore', 'inherit'] });
    running.add(child);
    child.on('error', failed);
    child.on('exit', (code, signal) => {
      running.delete(child);
      if (code !== 0) return failed(new Error(`splat-transform → ${output} failed (${signal ?? `exit ${code}`})`));
      if (partial !== output) renameSync(partial, output);
      say(`${what}: done in ${seconds(since)} s`);
      finished();
    });
  }).finally(() => clearInterval(still));
}
/** How often a long splat-transform run is said to be still going. */
const STILL_GOING_MS = 30_000;
const phases: Record<string, number> = {};
async function phase<T>(name: string, work: () => Promise<T>): Promise<T> {
  const since = performance.now();
  const result = await work();
  phases[name] = seconds(since);
  say(`${name}: ${phases[name]} s`);
  return result;
}

// Level 0 as a PLY (splat-transform joins and decimates PLYs; the scene may come compressed, as .sog or .spz).
const scene = resolve(args.scene);
const level0 = scene.endsWith('.ply') ? scene : join(out, 'level-0.ply');
if (!existsSync(level0)) await phase('unpack', () => splatTransform('unpacking the scene to a PLY', [scene], level0));
const levelFiles = [level0, ...Array.from({ length: levels - 1 }, (_, l) => join(out, `level-${l + 1}.ply`))];
// Each level from the one before (--keep of it; a quarter: a 1M-splat level 2 took 4 minutes of SwiftShader from
// level 0), while the grid is measured; made once for every job.
async function decimate(): Promise<void> {
  for (let level = 1; level < levels; level++) {
    if (!existsSync(levelFiles[level]!)) await splatTransform(`decimating level ${level} from level ${level - 1}`, [levelFiles[level - 1]!, decimation === 'adaptive' ? '--decimate-adaptive' : '--decimate', `${keep}%`], levelFiles[level]!);
  }
}
const decimated = phase('decimate', decimate);
// The grid from the scene's own extent (robust to stray splats).
const limits = await nodeLoadLimits();
const shifts = gridShifts((await loadSceneFile(level0, { limits })).cloud, copies);
await decimated;

/** Part j: copies [first, end) as a world in world/part-j (built under a temporary name, renamed when whole). */
async function buildPart(j: number, first: number, end: number): Promise<void> {
  const part = join(worldDir, `part-${j}`);
  if (existsSync(join(part, 'lod-meta.json'))) return;
  const building = join(worldDir, `building-${j}`);
  rmSync(building, { recursive: true, force: true });
  const tagged: string[] = [];
  for (const [level, file] of levelFiles.entries()) {
    const joined = join(out, `part-${j}-level-${level}.ply`);
    // splat-transform's -t moves splats in its own space, PLY's turned half a turn about z: x and y change sign.
    const inputs = shifts.slice(first, end).flatMap(([dx, dz]) => [file, '--translate', `${-dx},0,${dz}`]);
    if (!existsSync(joined)) await splatTransform(`part ${j}: joining copies ${first}–${end - 1} of level ${level}`, inputs, joined);
    tagged.push(joined, '--tag-lod', String(level));
  }
  await splatTransform(`part ${j}: writing its chunks and index`, tagged, join(building, 'lod-meta.json'), ['--lod-chunk-count', String(chunkThousands), '--max-workers', String(workers)]);
  renameSync(building, part);
  for (let level = 0; level < levels; level++) rmSync(join(out, `part-${j}-level-${level}.ply`), { force: true });
  say(`part ${j} (copies ${first}–${end - 1}) built`);
}
const bounds = Array.from({ length: jobs + 1 }, (_, j) => Math.round((j * copies) / jobs));
const parts = Array.from({ length: jobs }, (_, j) => `part-${j}`);
await phase('parts', () => Promise.all(parts.map((_, j) => buildPart(j, bounds[j]!, bounds[j + 1]!))));
const index = await phase('merge', async () => mergeWorlds(worldDir, parts));
const { world, bytes } = await phase('check', () => checkWorld(index, args.decode));
// How far each level moves each leaf's detail, in scene units: what the viewer's threshold in pixels is measured against.
// On every core (nothing else runs by then), in the workers whose bundle lies beside this command's.
const measured = await phase('displacements', () => writeDisplacements(index, { say, jobs: availableParallelism(), worker: new URL('./world-displacements-worker.mjs', import.meta.url) }));

const line = JSON.stringify({
  ...options, counts: world.counts, splats: world.counts.reduce((a, b) => a + b, 0), chunks: world.filenames.length,
  leaves: world.leaves, bytes, seconds: seconds(started), phases, workers, index, displacementDecodes: measured.chunks,
});
writeFileSync(done, line + '\n');
console.log(line);
