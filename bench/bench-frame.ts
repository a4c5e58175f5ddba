/**
 * Frame benchmark under Node: a scene through the viewer's own frame
 * (projector → GPU radix sort → splats drawn by the quad renderer or the
 * compute tile renderer) into an offscreen target, along a camera path
 * that starts outside the scene and ends inside it, or from camera files.
 * Per pose, key width, accumulation target, renderer and order it times each pass
 * with timestamp queries (warmed up until the median is stable, then the
 * median of --runs frames), reads the visible count and measures the
 * ordering error. One JSON line each:
 *   {pose, camera?, scene, copies, splats, chunks, keyBits, accumulation, renderer,
 *    order, visible, projectMs, sortMs, orderMs, renderMs, frameMs, invertedFraction,
 *    beyond, largest, width, height, adapter, ...}
 * quads add the flat floor: the same quads with a constant fragment (the
 * GPU's raster/blend floor for this coverage):  flatMs, renderOverFlat,
 * cutSplats (the farthest splats the candidate budget left out);
 * tiles add their pairs and passes (bench/tile-frame.ts):  drawn, pairs
 * (touched), pairSlots (sorted), pairsPerSplat, pairCapacity, rasterWalk (all, or block lists), tileSide,
 * cutSplats (the farthest splats left out past the candidate budget: a
 * hostile file's), boxPairs, binMs, pairSortMs,
 * rangesMs, rasterMs, resolveMs, profiledRenderMs, untimedMs (what of the
 * profiled span no pass holds), tilePairsMax/P99/P50, tilesUsed, tiles (how
 * the pairs spread over the tiles), splitTiles and chunkItems (the tiles
 * whose runs were cut into chunks, and their chunks past the first;
 * --chunk-pairs sets the fewest pairs of a chunk, 0: never cut); drawn:
 * 'tiles'. --tile-side 8 or 16 draws every tile frame at that side
 * (default auto: src/render/tiles/tile-side.ts).
 *
 *   npm run bench:frame -- --scene FILE [--copies 40] [--width 1920 --height 1080]
 *     [--camera A.json,B.json [--path]] [--renderer quads,tiles] [--order centre-depth,per-pixel [--queue 8,16]]
 *     [--runs 20] [--bits 16,24,32] [--chunks 4] [--up -y] [--max-warm-batches 20] [--hold-ms 20]
 *     [--accumulation rgba16float,direct,rgba32float,rgb10a2unorm] [--chunk-pairs 0] [--tile-side auto|8|16]
 *
 * renderMs is the frame's whole 'render' span: for quads the splat pass
 * and, with a float accumulation target, the resolve pass; for tiles every
 * tile pass and the resolve. frameMs = projectMs + sortMs + renderMs. The
 * flat floor draws the same quads into a target of the accumulation format.
 *
 * --order lists how each pixel's splats are ordered (default centre-depth):
 * every renderer listed draws each order it can, the per-pixel order with
 * tiles only (one row whatever --renderer lists), and a row whose frames
 * were not drawn in its order fails rather than report another's times;
 * --queue lists the per-pixel order's queue sizes (default
 * DEFAULT_PIXEL_QUEUE), a row each. Every row of a pose is timed back to
 * back in one process, so a GPU that lowers its clocks for a while
 * lowers them for neighbouring rows alike rather than for one order's.
 *
 * --hold-ms: before each timed frame, a compute load of about that long
 * (bench/clock-hold.ts; 0: none), so the frame runs at the clocks of a
 * steady load rather than those of a GPU idling between read-backs.
 *
 * --camera times from camera files (the render command's format) instead
 * of the built-in path (--path: as well), at their size unless --width and
 * --height are given; each pose is named after its file.
 *
 * --copies tiles the scene on a grid (bench/replicate.ts) to make a large
 * one from a real capture; --chunks N also runs every pose with the scene
 * split across N buffers, to compare with one buffer.
 *
 * The scene is opened by the Viewer, as the page and the render command
 * open it (the same loader, under the load limits of this device's real
 * buffer sizes); the timed frames then drive its frame's passes directly.
 */
import { isUpAxis, UP_AXES, type UpAxis } from '../src/app/camera/up-axis';
import { basename } from 'node:path';
import { GpuPassTimer } from '../src/gpu/pass-timer';
import { readBufferU32 } from '../src/gpu/readback';
import { GpuSplats } from '../src/scene/gpu-splats';
import type { SplatCloud } from '../src/scene/splat-cloud';
import { createNodeViewer, loadScenePath } from '../src/app/node-viewer';
import { SplatFrame } from '../src/app/frame/splat-frame';
import { ACCUMULATIONS, DEFAULT_ACCUMULATION, type Accumulation } from '../src/render/accumulation-target';
import { DEFAULT_SPLAT_ORDER, FRAME_RENDERERS, rendererSettingFor, SPLAT_ORDERS, type FrameRenderer, type SplatOrder } from '../src/render/frame-renderer';
import { GpuSortOrder } from '../src/app/frame/order/gpu-sort-order';
import { SplatRenderer } from '../src/render/splat-renderer';
import { DEFAULT_PIXEL_QUEUE } from '../src/render/tiles/tile-raster';
import { VISIBLE_STATE } from '../src/render/frame-layouts';
import type { FrameParameters } from '../src/render/frame-uniforms';
import { replicateCloud } from './replicate';
import { cameraPoses, pathPoses, poseParameters, readCameraFiles, runSize, type FramePose } from './frame-poses';
import { DEFAULT_WARM_UP, sampleFrames, type WarmUp } from './frame-sampling';
import { GpuClockHold } from './clock-hold';
import { listOption, wholeNumber, wholeNumbers } from './bench-options';
import { measureTiles, TileBenchFrames, type TileView } from './tile-frame';
import { commandLine } from './command-line';
import { outputUsage, storageWritable } from '../src/render/output-target';
import help from './bench-frame.ts?help';
import type { TileSide } from '../src/render/tiles/tile-side';

const { values: args } = commandLine('bench-frame', help, {
  scene: { type: 'string' },
  copies: { type: 'string', default: '1' },
  width: { type: 'string' },
  height: { type: 'string' },
  camera: { type: 'string' },
  path: { type: 'boolean', default: false },
  renderer: { type: 'string', default: FRAME_RENDERERS.join(',') },
  order: { type: 'string', default: DEFAULT_SPLAT_ORDER },
  queue: { type: 'string', default: String(DEFAULT_PIXEL_QUEUE) },
  runs: { type: 'string', default: '20' },
  bits: { type: 'string', default: '16,24,32' },
  chunks: { type: 'string', default: '1' },
  up: { type: 'string', default: '-y' },
  'max-warm-batches': { type: 'string', default: String(DEFAULT_WARM_UP.maxBatches) },
  'hold-ms': { type: 'string', default: '20' },
  accumulation: { type: 'string', default: DEFAULT_ACCUMULATION },
  'chunk-pairs': { type: 'string' },
  'tile-side': { type: 'string', default: 'auto' },
});
if (!args.scene) throw new Error('--scene FILE is required');
if (!isUpAxis(args.up)) throw new Error(`--up must be one of ${Object.keys(UP_AXES).join(', ')}, got ${args.up}`);
const cameras = readCameraFiles(args.camera ? args.camera.split(',') : []);
const size = runSize(args.width, args.height, cameras);
const { width, height } = size;
const runs = Number(args.runs);
const copies = Number(args.copies);
const FORMAT: GPUTextureFormat = 'rgba8unorm';
const warm: WarmUp = { ...DEFAULT_WARM_UP, maxBatches: Number(args['max-warm-batches']) };
const accumulations = listOption('accumulation', args.accumulation!, ACCUMULATIONS);
const orders = listOption('order', args.order!, SPLAT_ORDERS);
const pixelQueues = wholeNumbers('queue', args.queue!, 1);
/** --chunk-pairs: the fewest pairs of a chunk of a tile's run (0: runs never cut; default the renderer's). */
const tileSide = listOption('tile-side', args['tile-side']!, ['auto', '8', '16'] as const)[0]!;
const tileOptions = {
  ...(args['chunk-pairs'] === undefined ? {} : { chunking: { minPairs: wholeNumber('chunk-pairs', args['chunk-pairs'], 0) } }),
  tileSide: tileSide === 'auto' ? tileSide : (Number(tileSide) as TileSide),
};
const perPixel = orders.includes('per-pixel');
const renderers = listOption('renderer', args.renderer!, FRAME_RENDERERS);
/** Each order with each renderer, the per-pixel order drawn with tiles whatever the renderer (as the viewer's setting), each pair once. */
const rows = orders
  .flatMap((splatOrder) => renderers.map((renderer) => ({ renderer: rendererSettingFor(renderer, splatOrder) as FrameRenderer, order: splatOrder })))
  .filter((row, i, all) => all.findIndex((r) => r.renderer === row.renderer && r.order === row.order) === i);

const { viewer, gpu } = await createNodeViewer('bench-frame', {
  load: async (path, options) => {
    const loaded = await loadScenePath(path, options);
    return { ...loaded, cloud: replicateCloud(loaded.cloud, copies) };
  },
});
const { device, adapterName, hasTimestamps } = gpu;
if (!hasTimestamps) throw new Error(`${adapterName} has no timestamp-query: GPU times cannot be measured`);
let opened: SplatCloud | null = null;
viewer.on('opened', ({ cloud }) => (opened = cloud));
if ((await viewer.open(args.scene, { name: basename(args.scene) })) !== 'opened' || !opened) throw new Error(viewer.state.lastError ?? `${args.scene} did not open`);
const cloud: SplatCloud = opened;
const bounds = viewer.state.scene!.bounds;
const order = await GpuSortOrder.create(device);
const holdMs = Number(args['hold-ms']);
if (!(holdMs >= 0)) throw new Error(`--hold-ms: ${args['hold-ms']} is not a number of milliseconds ≥ 0`);
const clockHold = await GpuClockHold.create(device, holdMs);
if (clockHold) warm.hold = () => clockHold.hold();
const flatTimer = new GpuPassTimer(device, ['flat'] as const, 'bench.flatTimer');
// As the viewer's canvas: written by compute where the format allows (render/output-target.ts).
const target = device.createTexture({ size: [width, height], format: FORMAT, usage: outputUsage(device, FORMAT) });
const drawTarget = { view: target.createView(), background: [0, 0, 0] as const, writable: storageWritable(device, FORMAT) };

/**
 * A frame of one accumulation target and per-pixel queue (drawing with
 * either renderer), with its flat-quad twin drawing into a texture of the
 * same format and, when tiles are timed, the tile rows' profiled and box
 * frames. The first queue's setup of each target times the centre-depth
 * rows; each setup times the per-pixel row of its queue.
 */
interface Setup {
  accumulation: Accumulation;
  pixelQueue: number;
  centreRows: boolean;
  frame: SplatFrame;
  flat: SplatRenderer;
  flatTarget: { view: GPUTextureView; background: readonly [number, number, number] };
  tiles: TileBenchFrames | null;
  destroy(): void;
}

async function setup(accumulation: Accumulation, pixelQueue: number, centreRows: boolean): Promise<Setup> {
  const withTiles = rows.some((row) => row.renderer === 'tiles');
  const frame = await SplatFrame.create(device, FORMAT, { accumulation, tiles: { pixelQueue, ...tileOptions } });
  const format = accumulation === 'direct' ? FORMAT : accumulation;
  const [flat, tiles] = await Promise.all([
    SplatRenderer.create(device, frame.uniforms.buffer, format, { fragment: 'flat' }),
    withTiles ? TileBenchFrames.create(device, FORMAT, accumulation, { pixelQueue, ...tileOptions }, perPixel) : null,
    withTiles ? (perPixel ? frame.painters.tiles.prepare(true) : frame.painters.tiles.prepare()) : null,
  ]);
  const texture = device.createTexture({ size: [width, height], format, usage: GPUTextureUsage.RENDER_ATTACHMENT });
  return {
    accumulation,
    pixelQueue,
    centreRows,
    frame,
    flat,
    flatTarget: { view: texture.createView(), background: [0, 0, 0] },
    tiles,
    destroy: () => {
      frame.destroy();
      tiles?.destroy();
      texture.destroy();
    },
  };
}
const setups = await Promise.all(accumulations.flatMap((accumulation) =>
  (perPixel ? pixelQueues : pixelQueues.slice(0, 1)).map((queue, i) => setup(accumulation, queue, i === 0))));
/** The rows a setup times (see Setup). */
const rowsOf = (s: Setup) => rows.filter((row) => row.order === 'per-pixel' || s.centreRows);

function poses(): FramePose[] {
  const path = cameras.length === 0 || args.path ? pathPoses(bounds, UP_AXES[args.up as UpAxis], width, height) : [];
  return [...cameraPoses(cameras, width, height), ...path];
}

/** One timed quad frame and its flat-quad twin. */
async function timedQuads(s: Setup, params: FrameParameters): Promise<Record<'project' | 'sort' | 'order' | 'render' | 'frame' | 'flat' | 'cutSplats', number>> {
  const { frame } = s;
  const encoder = device.createCommandEncoder();
  frame.encode(encoder, params, drawTarget, order, { renderer: 'quads' });
  // The flat twin draws the quads the frame drew: those its candidate budget kept (src/render/quad-cut.ts).
  const drawn = frame.painters.quads.lastDraw!;
  s.flat.encode(encoder, s.flatTarget, { records: drawn.records, order: drawn.order, count: drawn.count }, flatTimer.timestampWrites('flat'));
  flatTimer.resolve(encoder);
  device.queue.submit([encoder.finish()]);
  const counts = await frame.painters.quads.readStatistics();
  const t = await frame.readTimings();
  const flat = (await flatTimer.read()).flat!;
  return { project: t.project!, sort: t.sort!, order: t.project! + t.sort!, render: t.render!, frame: t.project! + t.sort! + t.render!, flat, cutSplats: counts?.cutEntries ?? 0 };
}

async function run(scene: GpuSplats, chunks: number): Promise<void> {
  for (const s of setups) {
    s.frame.setScene(scene);
    s.tiles?.setScene(scene);
  }
  for (const pose of poses()) {
    for (const keyBits of args.bits!.split(',').map(Number)) {
      for (const s of setups) {
        for (const row of rowsOf(s)) await measureRow(s, pose, keyBits, chunks, row.renderer, row.order);
      }
    }
  }
}

const round = (x: number) => Math.round(x * 1e4) / 1e4;

async function measureRow(s: Setup, pose: FramePose, keyBits: number, chunks: number, renderer: FrameRenderer, splatOrder: SplatOrder): Promise<void> {
  const { frame } = s;
  const params = poseParameters(pose, { splatCount: cloud.count, shDegree: cloud.shDegree }, size, keyBits);
  let figures: Record<string, unknown>;
  if (renderer === 'quads') {
    const t = await sampleFrames(() => timedQuads(s, params), (t) => t.frame, runs, warm);
    figures = { projectMs: t.project, sortMs: t.sort, orderMs: t.order, renderMs: t.render, frameMs: t.frame, flatMs: t.flat, renderOverFlat: round(t.render / t.flat), cutSplats: t.cutSplats };
  } else {
    const view: TileView = { device, parameters: params, target: drawTarget, order, splatOrder };
    figures = await measureTiles(view, frame, s.tiles!, runs, warm);
  }
  // One more frame of this renderer, measuring its order (the sort's, the same for both renderers).
  const encoder = device.createCommandEncoder();
  frame.encode(encoder, params, drawTarget, order, { measure: true, renderer, order: splatOrder });
  device.queue.submit([encoder.finish()]);
  await frame.painters.tiles.readStatistics();
  const error = await frame.readOrderError();
  const visible = (await readBufferU32(device, frame.projector.state!, VISIBLE_STATE.size / 4))[VISIBLE_STATE.word('visible')]!;
  console.log(JSON.stringify({
    pose: pose.name,
    ...(pose.camera ? { camera: pose.camera } : {}),
    scene: basename(args.scene!),
    copies,
    splats: cloud.count,
    chunks,
    keyBits,
    accumulation: s.accumulation,
    renderer,
    order: splatOrder,
    ...(splatOrder === 'per-pixel' ? { pixelQueue: s.pixelQueue } : {}),
    visible,
    ...Object.fromEntries(Object.entries(figures).map(([k, v]) => [k, typeof v === 'number' && k.endsWith('Ms') ? round(v) : v])),
    ...(typeof figures.pairs === 'number' ? { pairsPerSplat: round(figures.pairs / Math.max(1, visible)) } : {}),
    invertedFraction: Number(error.invertedFraction.toPrecision(4)),
    beyond: error.beyond,
    largest: Number(error.largest.toPrecision(4)),
    width,
    height,
    adapter: adapterName,
    holdMs,
  }));
}

const single = viewer.core.gpuScene!;
await run(single, 1);
const chunks = Number(args.chunks);
if (chunks > 1) {
  // A chunk holds a power of two of splats: the smallest that splits the
  // scene into at most `chunks` buffers (exactly `chunks` when the count is
  // in (chunks-1, chunks] times that power).
  const perSplat = single.layout.bytesPerSplat;
  const chunkSplats = 2 ** Math.ceil(Math.log2(cloud.count / chunks));
  const split = new GpuSplats(device, cloud, 'bench.split', { maxChunkBytes: chunkSplats * perSplat + 16 });
  await run(split, split.chunks.length);
  split.destroy();
}
for (const s of setups) s.destroy();
order.destroy();
clockHold?.destroy();
viewer.destroy();
device.destroy();
