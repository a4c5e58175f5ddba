/**
 * World benchmark under Node: a Streamed SOG world (lod-meta.json on local
 * disk) opened cold and driven along a camera path at 1920×1080 through
 * the viewer's own world session (level choice, chunk stream, page pool)
 * and frame (projector → GPU radix sort → the tile renderer), chunks read
 * and decoded as the camera asks for them. One JSON line each:
 *
 *   {kind: 'start', pipelinesMs}        device, frame and sort made (the viewer's own start, before any world)
 *   {kind: 'first', firstPictureMs}     from opening the index to the first frame with splats, done on the GPU
 *   {kind: 'path', frames, frameMs: {p50, p95, max}, projectMs, sortMs, renderMs (p50s), drawn: {p50, max},
 *     budget, bytesFetched, chunksLoaded, evicted, cancelled, gpuBytes: {pool, all}, wallMs, recordMs: {p50, p95, max},
 *     recordParts: {update, encode, submit, pages}: each {p50, p95, max}, recordWithPagesMs, decodedIn, choiceIn, dawnPolling, dawnPollMs}
 *   {kind: 'psnr', view, thresholdPx, budgetedDrawn, fullDrawn, psnr}   at sample cameras where the full detail fits
 *   {kind: 'budget', view, set: 'down'|'city', altitude, budget, policy, drawn, thresholdUsed, leftOut, psnr, shiftFloor,
 *     frameMs, fullDrawn, fullCut, cut}   with --budgets: each budget and policy against the full detail (bench/world-budget-sweep.ts);
 *     shiftFloor: the full detail against itself moved by thresholdUsed pixels (bench/shift-floor.ts; the 'threshold' policy's
 *     and the default's); fullCut, cut: what the tile renderer's candidate budget left out of a picture (null: nothing).
 *     The sweep's pictures are drawn by a frame that bins all the candidates the device sorts.
 *
 * frameMs is the GPU time of a frame's passes (timestamp queries: project
 * + sort + render). Of the CPU: recordMs, a frame's own work on this thread
 * (taking the newest choice, the runs and fades marked in the pool, the
 * recording and submission), and recordParts.pages, the chunk pages
 * copied into staging blocks while the frame was under way (from its
 * update to its timings read back: most in the microtasks right after its
 * submit, as in a page's frame callback; their one submit is the next
 * update's); recordWithPagesMs, the two together a frame, is what a page's
 * frame callback does; wallMs, from the frame's start until its timings are
 * read back (waiting for the GPU and the readback, which a page does not
 * wait for). The event loop's active time was tried as a measure of all this thread does and
 * is not given: waiting for a readback counts as active there. Chunks are decoded and
 * packed in worker threads, as the page's workers do, where the tools were
 * built with them (the path line's decodedIn: 'workers'), so this thread
 * only copies packed bytes to the GPU. The path's levels are chosen in a
 * worker thread too, as the page chooses (--choice worker, the default
 * where the tools were built with it; the path line's choiceIn), or on
 * this thread (--choice inline, as the render command and the sweeps do).
 * While a frame waits for the GPU, Dawn's events are polled every
 * millisecond (--dawn-polling timer, the default; --dawn-poll-ms sets the
 * period, the path line's dawnPollMs), not in the busy loop of
 * the `webgpu` package (--dawn-polling spin), whose garbage the frames'
 * thread collected inside its frames (src/gpu/dawn-polling.mjs); a page
 * never waits. --upload-mib lets that many MiB of chunk pages through a
 * frame on the path (default: the viewer's, UPLOAD_BYTES_A_FRAME; the path
 * line's uploadBytesAFrame). --frame-ms starts a frame at most
 * that often, as a display does (0: each frame as soon as the last is
 * done); the rest of each is left to what lands meanwhile. gpuBytes.all
 * counts every buffer and texture the process holds when the path ends
 * (device.createBuffer and createTexture, less what was destroyed).
 *
 *   npm run bench:build && node bench-dist/bench-world.mjs --index worlds/big/world/lod-meta.json \
 *     [--frames 600] [--width 1920 --height 1080] [--budget 4000000] [--threshold 0.5] [--hold-ms 20] [--frame-ms 16.7]
 *     [--choice worker|inline] [--dawn-polling timer|spin] [--dawn-poll-ms 1] [--upload-mib 8]
 *     [--psnr-views 4] [--altitudes 0.01,0.02] [--thresholds 1,0.5,0.25] [--full-limit N] [--pictures DIR]
 *     [--budgets 1000000,2000000,4000000,8000000 [--policies threshold,benefit,distance] [--down-views 6]
 *      [--city-views 6] [--city-altitudes 0.1] [--timed-frames 5] [--only-views 0,1] [--supersample 2] [--anti-aliased]]
 *
 * --anti-aliased draws the path with the anti-aliased screen filter (the
 * one the viewer draws worlds with) where it is drawn with the classic
 * one by default, and gives each sweep picture's frame time with it too
 * (frameMsAntiAliased).
 *
 * The path flies over the world's tree box: from above one corner, at a
 * tenth of its width over its middle height, across to the opposite
 * corner, looking ahead and down. The PSNR compares, at --psnr-views
 * cameras low over the ground along it, the picture under the budget at
 * each of --thresholds with the full detail (every leaf in view at its
 * finest level), where that fits --full-limit (default: the budget);
 * --pictures writes both pictures of each (the first threshold's) as PNGs.
 *
 * --budgets: at --down-views cameras along the path looking down at the
 * ground below them (at --altitudes in turn, as --psnr-views') and
 * --city-views cameras looking ahead across the city (at --city-altitudes
 * in turn, as the path looks), the full detail once, where it fits
 * --full-limit and the GPU (a line says why a view is left out), then at
 * the default threshold (WORLD_DEFAULTS.thresholdPx) the picture with no
 * budget that binds (budget 'full'), and the picture at each budget under
 * each of --policies, each with its PSNR against the full detail and the
 * median GPU time of --timed-frames frames of it. Those sessions share
 * their decoded chunks (each decoded once); --only-views keeps only those
 * view numbers of each set (to split a run); --pictures writes every
 * picture. --supersample S also draws the full detail at S times the
 * width and height, averaged down (bench/picture-downsample.ts), and gives
 * each picture's PSNR against that (psnrSupersampled; the full detail's
 * own: fullSupersampled); with --anti-aliased, each picture is drawn
 * again with the anti-aliased screen filter and put against it too
 * (psnrSupersampledAntiAliased; the full detail's: fullSupersampledAntiAliased),
 * and the full detail is supersampled again with that filter at its finer
 * pixels (each splat keeping the opacity it covers, where the classic
 * 0.3 px² widens a sub-pixel splat at full opacity), each picture against
 * that too: drawn as it is (psnrAgainstAntiAliasedTruth) and with the
 * filter (psnrAntiAliasedAgainstAntiAliasedTruth; the full detail's:
 * fullAgainstAntiAliasedTruth, fullAntiAliasedAgainstAntiAliasedTruth).
 */
import { createNodeGpuContext } from '../src/gpu/node-gpu';
import { nodeLoadLimits, openWorldPath } from '../src/app/node-viewer';
import { nodeChoiceWorker } from '../src/app/world/world-choice-node-port';
import { SplatFrame } from '../src/app/frame/splat-frame';
import { GpuSortOrder } from '../src/app/frame/order/gpu-sort-order';
import { WorldSession, type WorldChunks } from '../src/app/world/world-session';
import type { BudgetPolicy } from '../src/app/world/world-lod';
import { UPLOAD_BYTES_A_FRAME, WORLD_DEFAULTS } from '../src/app/world/world-options';
import { createOffscreenTarget, OFFSCREEN_FORMAT } from '../src/app/frame/offscreen-render';
import { storageWritable } from '../src/render/output-target';
import { cameraParameters } from './render-offscreen';
import { ANTIALIASED_FILTER, type ScreenFilter } from '../src/scene/anti-aliasing';
import type { CameraFile } from '../src/app/camera/camera-file';
import { psnr } from '../cli/picture-compare';
import { quantile } from './stable-timing';
import { listOption, wholeNumber, wholeNumbers } from './bench-options';
import { budgetSweep, settledPicture } from './world-budget-sweep';
import { GpuClockHold } from './clock-hold';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodePng } from '../cli/png';
import { commandLine } from './command-line';
import help from './bench-world.ts?help';

const { values: args } = commandLine('bench-world', help, {
  index: { type: 'string' },
  frames: { type: 'string', default: '600' },
  width: { type: 'string', default: '1920' },
  height: { type: 'string', default: '1080' },
  budget: { type: 'string', default: String(WORLD_DEFAULTS.budget) },
  threshold: { type: 'string', default: String(WORLD_DEFAULTS.thresholdPx) },
  'hold-ms': { type: 'string', default: '20' },
  'frame-ms': { type: 'string', default: '0' },
  'psnr-views': { type: 'string', default: '4' },
  'full-limit': { type: 'string' },
  pictures: { type: 'string' },
  thresholds: { type: 'string', default: '1,0.5,0.25' },
  altitudes: { type: 'string', default: '0.01,0.02' },
  budgets: { type: 'string' },
  policies: { type: 'string', default: 'threshold,benefit,distance' },
  'down-views': { type: 'string', default: '0' },
  'city-views': { type: 'string', default: '0' },
  'city-altitudes': { type: 'string', default: '0.1' },
  'timed-frames': { type: 'string', default: '5' },
  'only-views': { type: 'string' },
  supersample: { type: 'string', default: '1' },
  'anti-aliased': { type: 'boolean', default: false },
  choice: { type: 'string', default: 'worker' },
  'dawn-polling': { type: 'string', default: 'timer' },
  'dawn-poll-ms': { type: 'string', default: '1' },
  'upload-mib': { type: 'string', default: String(UPLOAD_BYTES_A_FRAME / 2 ** 20) },
});
if (!args.index) throw new Error('bench-world needs --index PATH/lod-meta.json');
const frames = wholeNumber('frames', args.frames!, 2);
const width = wholeNumber('width', args.width!, 16);
const height = wholeNumber('height', args.height!, 16);
const budget = wholeNumber('budget', args.budget!, 1);
const holdMs = wholeNumber('hold-ms', args['hold-ms']!, 0);
const frameEveryMs = Number(args['frame-ms']);
if (!(frameEveryMs >= 0)) throw new Error(`--frame-ms takes milliseconds (a number ≥ 0), got ${args['frame-ms']}`);
const psnrViews = wholeNumber('psnr-views', args['psnr-views']!, 0);
const fullLimit = wholeNumber('full-limit', args['full-limit'] ?? String(budget), 1);
const thresholds = args.thresholds!.split(',').map(Number);
const shares = (name: string, text: string) => {
  const values = text.split(',').map(Number);
  if (values.some((a) => !(a > 0))) throw new Error(`--${name} takes shares of the world's width (numbers > 0), got ${text}`);
  return values;
};
const altitudes = shares('altitudes', args.altitudes!);
const sweep = args.budgets === undefined ? null : {
  budgets: wholeNumbers('budgets', args.budgets, 1),
  policies: listOption<BudgetPolicy>('policies', args.policies!, ['threshold', 'benefit', 'distance']),
  downViews: wholeNumber('down-views', args['down-views']!, 0),
  cityViews: wholeNumber('city-views', args['city-views']!, 0),
  altitudes,
  cityAltitudes: shares('city-altitudes', args['city-altitudes']!),
  fullLimit,
  frames: wholeNumber('timed-frames', args['timed-frames']!, 1),
  only: args['only-views'] === undefined ? null : new Set(wholeNumbers('only-views', args['only-views'], 0)),
  pictures: args.pictures ?? null,
  supersample: wholeNumber('supersample', args.supersample!, 1),
  antiAliased: args['anti-aliased']!,
};
if (thresholds.some((t) => !(t >= 0))) throw new Error(`--thresholds takes pixels (numbers ≥ 0), got ${args.thresholds}`);
const print = (line: Record<string, unknown>) => console.log(JSON.stringify(line));
if (args['dawn-polling'] !== 'timer' && args['dawn-polling'] !== 'spin') throw new Error(`--dawn-polling takes timer or spin, got ${args['dawn-polling']}`);
// The frames' thread waits for the GPU as a page's does, without spinning (src/gpu/dawn-polling.mjs says what spinning costs it).
if (args['dawn-polling'] === 'timer') (await import('../src/gpu/dawn-polling.mjs')).setDawnPollMs(Number(args['dawn-poll-ms']));

const started = performance.now();
const { device } = await createNodeGpuContext('bench-world');
const memory = trackGpuMemory(device);
const [frame, order, hold] = await Promise.all([SplatFrame.create(device, OFFSCREEN_FORMAT), GpuSortOrder.create(device), GpuClockHold.create(device, holdMs)]);
await frame.painters.tiles.prepare();
print({ kind: 'start', pipelinesMs: performance.now() - started, adapter: (device as { adapterInfo?: GPUAdapterInfo }).adapterInfo?.description ?? null });

const limits = await nodeLoadLimits();
const opened = performance.now();
// Decoded in worker threads, as the page decodes in its workers (src/app/node-viewer.ts, openWorldPath).
const opening = await openWorldPath(args.index)!({ signal: new AbortController().signal, limits });
// `base` with `own` laid over it. Not a spread, which reads every property: the worker world's index getter parses the index here.
const over = <T extends object>(base: T, own: Partial<T>): T => Object.assign(Object.create(base) as T, own);
// The sessions below share the world's readers (a session ends its files' readers when it closes): the benchmark ends them last.
const files: WorldChunks = over<WorldChunks>(opening, { close: undefined });
const indexMs = performance.now() - opened;
const world = files.outline.bound;
const uploadMib = Number(args['upload-mib']);
if (!(uploadMib > 0)) throw new Error(`--upload-mib takes MiB a frame (a number > 0), got ${args['upload-mib']}`);
const uploadBytesAFrame = Math.round(uploadMib * 2 ** 20);
const options = { ...WORLD_DEFAULTS, budget, thresholdPx: Number(args.threshold) };
if (args.choice !== 'worker' && args.choice !== 'inline') throw new Error(`--choice takes worker or inline, got ${args.choice}`);
// The path's choice where the page makes it (world-choice-node-port.ts); the sweeps' sessions choose inline.
const choiceWorker = args.choice === 'worker' ? nodeChoiceWorker() : null;
const session = new WorldSession(device, choiceWorker ? over(files, { choiceWorker }) : files, { ...options, uploadBytesAFrame });
let firstChunkMs: number | null = null;
session.onChange = () => (firstChunkMs ??= performance.now() - opened);
const target = createOffscreenTarget(device, 'bench-world.target', width, height, OFFSCREEN_FORMAT);
const writable = storageWritable(device, OFFSCREEN_FORMAT);
const targetView = target.createView();
const background: [number, number, number] = [0, 0, 0];

/**
 * Camera `t` (0..1) of the path, `altitude` (in the world's widths) over
 * its middle height, looking ahead and down (`steep`: down at about 63°,
 * the ground below rather than the horizon).
 */
function pathCamera(t: number, altitude = 0.1, steep = false): CameraFile {
  const [min, max] = [world.min, world.max];
  const size = Math.max(max[0] - min[0], max[2] - min[2]);
  const from = [min[0] + 0.05 * size, 0, min[2] + 0.05 * size];
  const to = [max[0] - 0.05 * size, 0, max[2] - 0.05 * size];
  const along = [to[0]! - from[0]!, 0, to[2]! - from[2]!];
  const length = Math.hypot(along[0]!, along[2]!);
  const dir = [along[0]! / length, 0, along[2]! / length];
  // Captures are y down: above is lower y.
  const y = (min[1] + max[1]) / 2 - altitude * size;
  const eye: [number, number, number] = [from[0]! + t * along[0]!, y, from[2]! + t * along[2]!];
  const [ahead, down] = steep ? [0.5, 1] : [1, 0.5];
  const target: [number, number, number] = [eye[0] + ahead * altitude * size * dir[0]!, y + down * altitude * size, eye[2] + ahead * altitude * size * dir[2]!];
  return { width, height, fovy_deg: 60, eye, target, up: [0, -1, 0], background, sh_degree: 3 };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/**
 * A frame's times, ms: its GPU passes, its recording on this thread (update
 * to submit) and that recording's parts (the world's update; the frame's
 * encoding; its submission), the chunk pages written while it was under
 * way, and its wall time to its timings read back.
 */
interface FrameTimes { gpuMs: number; project: number; sort: number; render: number; recordMs: number; updateMs: number; encodeMs: number; submitMs: number; pagesMs: number; wallMs: number }

/** One frame of `world` for `camera`: its GPU times (null: nothing drawn yet). */
async function drawFrame(world: WorldSession, camera: CameraFile, firstPicture = false, screenFilter?: ScreenFilter): Promise<FrameTimes | null> {
  const wall = performance.now();
  const pagesBefore = world.uploadWriteMs;
  const p = cameraParameters(camera, 0, { screenFilter });
  world.update(p);
  const scene = world.scene;
  if (!scene || (firstPicture && world.frame.drawnSplats === 0)) return null;
  frame.setScene(scene, world.maxDrawn);
  p.splatCount = scene.count;
  p.shDegree = Math.min(3, scene.shDegree);
  let recordMs = 0;
  let encodeMs = 0;
  let submitMs = 0;
  for (let attempt = 0; attempt < 3; attempt++) {
    hold?.hold();
    const encoding = performance.now();
    const encoder = device.createCommandEncoder({ label: 'bench-world.frame' });
    frame.encode(encoder, p, { view: targetView, background, writable }, order, { renderer: 'tiles' });
    const commands = encoder.finish();
    const submitting = performance.now();
    device.queue.submit([commands]);
    if (attempt === 0) {
      const submitted = performance.now();
      recordMs = submitted - wall;
      // The rest is the world's update, with setScene: the work before the frame's own encoding.
      encodeMs = submitting - encoding;
      submitMs = submitted - submitting;
    }
    // A tile frame that outgrew its pair buffers drew nothing: they are grown by now, so it is drawn again.
    if (!(await frame.painters.tiles.readStatistics())?.overflowed) break;
  }
  const t = await frame.readTimings();
  const [project, sort, render] = [t.project ?? 0, t.sort ?? 0, t.render ?? 0];
  const pagesMs = world.uploadWriteMs - pagesBefore;
  return { gpuMs: project + sort + render, project, sort, render, recordMs, updateMs: recordMs - encodeMs - submitMs, encodeMs, submitMs, pagesMs, wallMs: performance.now() - wall };
}

// The path, chunks streaming in as it goes.
const pathFilter = args['anti-aliased'] ? ANTIALIASED_FILTER : undefined;
const times: FrameTimes[] = [];
const drawn: number[] = [];
let firstPictureMs: number | null = null;
let pathStarted = performance.now();
for (let i = 0; i < frames; i++) {
  const frameStart = performance.now();
  const camera = pathCamera(i / (frames - 1));
  const result = await drawFrame(session, camera, firstPictureMs === null, pathFilter);
  if (result) {
    if (firstPictureMs === null) {
      firstPictureMs = performance.now() - opened;
      pathStarted = performance.now();
      print({ kind: 'first', firstPictureMs, indexMs, firstChunkMs, drawn: session.frame.drawnSplats, chunksLoaded: session.progress.chunksLoaded });
    }
    times.push(result);
    drawn.push(session.frame.drawnSplats);
  } else {
    // Nothing to draw yet: the path waits for the first chunks (the first picture's time counts it).
    i--;
    if (performance.now() - opened > 120_000) throw new Error(`no picture after 2 minutes: ${JSON.stringify({ ...session.frame, ...session.progress, failed: [...session.progress.failed] })}`);
  }
  await nextTurn();
  // A display's frames: the rest of --frame-ms goes to what lands meanwhile, as a page's idle time does.
  const rest = frameStart + frameEveryMs - performance.now();
  if (rest > 0) await new Promise((resolve) => setTimeout(resolve, rest));
}
const p = session.progress;
const stat = (xs: number[]) => ({ p50: quantile(xs, 0.5), p95: quantile(xs, 0.95), max: Math.max(...xs) });
print({
  kind: 'path', frames: times.length, width, height, budget, thresholdPx: options.thresholdPx, frameEveryMs, pathMs: performance.now() - pathStarted,
  frameMs: stat(times.map((t) => t.gpuMs)),
  projectMs: quantile(times.map((t) => t.project), 0.5), sortMs: quantile(times.map((t) => t.sort), 0.5), renderMs: quantile(times.map((t) => t.render), 0.5),
  wallMs: stat(times.map((t) => t.wallMs)), recordMs: stat(times.map((t) => t.recordMs)),
  recordParts: { update: stat(times.map((t) => t.updateMs)), encode: stat(times.map((t) => t.encodeMs)), submit: stat(times.map((t) => t.submitMs)), pages: stat(times.map((t) => t.pagesMs)) },
  recordWithPagesMs: stat(times.map((t) => t.recordMs + t.pagesMs)),
  drawn: { p50: quantile(drawn, 0.5), max: Math.max(...drawn) },
  bytesFetched: p.bytesLoaded, chunksLoaded: p.chunksLoaded, chunks: p.chunks, evicted: p.evicted, cancelled: p.cancelled,
  gpuBytes: { pool: p.gpuBytes, all: memory.live() },
  splats: files.outline.counts,
  decodedIn: files.decodedIn ?? 'this thread',
  choiceIn: choiceWorker ? 'worker' : 'this thread',
  dawnPolling: args['dawn-polling'],
  dawnPollMs: args['dawn-polling'] === 'timer' ? Number(args['dawn-poll-ms']) : null,
  uploadBytesAFrame,
});

// Budgeted against full detail, at cameras along the path, low over the ground looking down (where the full
// detail may fit the budget), at --altitudes in turn: the
// budgeted picture at each threshold of --thresholds against the full detail (every leaf in view
// at its finest level, no budget), where that is at most --full-limit splats.
for (let v = 0; v < psnrViews; v++) {
  const altitude = altitudes[v % altitudes.length]!;
  const camera = pathCamera((v + 1) / (psnrViews + 1), altitude, true);
  const full = new WorldSession(device, files, { ...options, budget: 1e9, thresholdPx: 0, memoryBytes: 16 * 2 ** 30 });
  full.updateCamera(camera);
  const fullWanted = full.frame.wantedSplats;
  if (fullWanted > fullLimit) {
    print({ kind: 'psnr', view: v, altitude, fullWanted, psnr: null, why: 'the full detail passes --full-limit' });
    full.close();
    continue;
  }
  const fine = await settledPicture(device, frame, order, full, camera);
  full.close();
  for (const thresholdPx of thresholds) {
    session.setThreshold(thresholdPx);
    const budgeted = await settledPicture(device, frame, order, session, camera);
    const db = budgeted && fine ? psnr(budgeted, fine) : null;
    if (args.pictures && budgeted && fine && thresholdPx === thresholds[0]) {
      mkdirSync(args.pictures, { recursive: true });
      writeFileSync(join(args.pictures, `view-${v}-budgeted.png`), encodePng(width, height, budgeted));
      writeFileSync(join(args.pictures, `view-${v}-full.png`), encodePng(width, height, fine));
    }
    // Identical pictures: an infinite PSNR, which JSON cannot hold.
    print({ kind: 'psnr', view: v, altitude, thresholdPx, budgetedDrawn: session.frame.drawnSplats, thresholdUsed: session.frame.thresholdPx, fullDrawn: fullWanted, psnr: db === null ? null : Number.isFinite(db) ? db : 'identical' });
  }
  session.setThreshold(options.thresholdPx);
}
session.close();
if (sweep) {
  const frameMs = async (world: WorldSession, camera: CameraFile, screenFilter?: ScreenFilter) => (await drawFrame(world, camera, false, screenFilter))?.gpuMs ?? null;
  // The pictures by a frame that bins all the candidates the device sorts: a full detail of tens of millions of splats over the city
  // passes the viewer's candidate budget (tile-pairs.ts), which would leave its farthest splats out of the reference. Timed by the viewer's.
  const pictures = await SplatFrame.create(device, OFFSCREEN_FORMAT, { tiles: { candidateBudget: Infinity } });
  await pictures.painters.tiles.prepare();
  await budgetSweep({ device, frame: pictures, order, files, camera: pathCamera, frameMs, print }, sweep);
}
opening.close?.();
target.destroy();

/** Live bytes of the buffers and textures made on `device` (wraps its create calls). */
function trackGpuMemory(device: GPUDevice): { live(): number } {
  let live = 0;
  const track = <T extends { destroy(): void }>(thing: T, bytes: number): T => {
    live += bytes;
    const destroy = thing.destroy.bind(thing);
    let gone = false;
    thing.destroy = () => {
      if (!gone) live -= bytes;
      gone = true;
      destroy();
    };
    return thing;
  };
  const createBuffer = device.createBuffer.bind(device);
  const createTexture = device.createTexture.bind(device);
  device.createBuffer = (d) => track(createBuffer(d), d.size);
  device.createTexture = (d) => {
    const size = d.size as number[] | GPUExtent3DDict;
    const [w, h] = Array.isArray(size) ? [size[0]!, size[1] ?? 1] : [size.width, size.height ?? 1];
    // Up to 16 bytes a texel (rgba32float): an upper bound for the formats the frame uses.
    return track(createTexture(d), w * h * (d.format.startsWith('rgba32') ? 16 : d.format.startsWith('rgba16') ? 8 : 4));
  };
  return { live: () => live };
}
