/**
 * Frame benchmark under Node: a scene through the viewer's own frame
 * (projector → GPU radix sort → splat render) into an offscreen target,
 * along a camera path that starts outside the scene and ends inside it.
 * Per pose and key width it times each pass with timestamp queries (warmed
 * up until the median is stable, then the median of --runs frames), draws
 * the same quads with a constant fragment (the GPU's raster/blend floor for
 * this coverage), reads the visible count and measures the ordering error.
 * One JSON line per pose, scene layout, key width and accumulation target:
 *   {pose, scene, copies, splats, chunks, keyBits, accumulation, visible,
 *    projectMs, sortMs, orderMs, renderMs, flatMs, renderOverFlat,
 *    invertedFraction, beyond, largest, width, height, adapter}
 *
 *   npm run bench:frame -- --scene FILE [--copies 40] [--width 1920 --height 1080]
 *     [--runs 20] [--bits 16,24,32] [--chunks 4] [--up -y] [--max-warm-batches 20]
 *     [--accumulation rgba16float,direct,rgba32float,rgb10a2unorm]
 *
 * renderMs is the splat pass and, with a float accumulation target, the
 * resolve pass that writes the picture out; the flat floor draws the same
 * quads into a target of the accumulation format.
 *
 * --copies tiles the scene on a grid (bench/replicate.ts) to make a large
 * one from a real capture; --chunks N also runs every pose with the scene
 * split across N buffers, to compare with one buffer.
 *
 * The scene is opened by the Viewer, as the page and the render command
 * open it (the same loader, under the load limits of this device's real
 * buffer sizes); the timed frames then drive its frame's passes directly,
 * one frame per accumulation target, to time each pass beside its flat twin.
 */
import { isUpAxis, UP_AXES, type UpAxis } from '../src/app/up-axis';
import { parseArgs } from 'node:util';
import { basename } from 'node:path';
import { mat4, vec3 } from 'gl-matrix';
import { GpuPassTimer } from '../src/gpu/pass-timer';
import { readBufferU32 } from '../src/gpu/readback';
import { GpuSplats } from '../src/scene/gpu-splats';
import type { SplatCloud } from '../src/scene/splat-cloud';
import { createNodeViewer, loadScenePath } from '../src/app/node-viewer';
import { SplatFrame, type FrameTimings } from '../src/app/splat-frame';
import { ACCUMULATIONS, DEFAULT_ACCUMULATION, type Accumulation } from '../src/render/accumulation-target';
import { GpuSortOrder } from '../src/app/gpu-sort-order';
import { SplatRenderer } from '../src/render/splat-renderer';
import { VISIBLE_STATE } from '../src/render/frame-layouts';
import { OrbitCamera } from '../src/app/orbit-camera';
import { median } from '../src/sort/self-test';
import type { FrameParameters } from '../src/render/frame-uniforms';
import { replicateCloud } from './replicate';

const { values: args } = parseArgs({
  options: {
    scene: { type: 'string' },
    copies: { type: 'string', default: '1' },
    width: { type: 'string', default: '1920' },
    height: { type: 'string', default: '1080' },
    runs: { type: 'string', default: '20' },
    bits: { type: 'string', default: '16,24,32' },
    chunks: { type: 'string', default: '1' },
    up: { type: 'string', default: '-y' },
    'max-warm-batches': { type: 'string', default: '20' },
    accumulation: { type: 'string', default: DEFAULT_ACCUMULATION },
  },
});
if (!args.scene) throw new Error('--scene FILE is required');
if (!isUpAxis(args.up)) throw new Error(`--up must be one of ${Object.keys(UP_AXES).join(', ')}, got ${args.up}`);
const width = Number(args.width);
const height = Number(args.height);
const runs = Number(args.runs);
const copies = Number(args.copies);
const FORMAT: GPUTextureFormat = 'rgba8unorm';
/** Warm-up: batches of this many frames until two batch medians agree within STABLE. */
const WARM_BATCH = 10;
const STABLE = 0.03;
const MAX_WARM_BATCHES = Number(args['max-warm-batches']);

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
const accumulations = args.accumulation!.split(',').map((a) => {
  if (!ACCUMULATIONS.includes(a as Accumulation)) throw new Error(`--accumulation: ${a} is not one of ${ACCUMULATIONS.join(', ')}`);
  return a as Accumulation;
});
const order = await GpuSortOrder.create(device);
const flatTimer = new GpuPassTimer(device, ['flat'] as const, 'bench.flatTimer');
const target = device.createTexture({ size: [width, height], format: FORMAT, usage: GPUTextureUsage.RENDER_ATTACHMENT });
const drawTarget = { view: target.createView(), background: [0, 0, 0] as const };

/** A frame of one accumulation target, with its flat-quad twin drawing into a texture of the same format. */
interface Setup {
  accumulation: Accumulation;
  frame: SplatFrame;
  flat: SplatRenderer;
  flatTarget: { view: GPUTextureView; background: readonly [number, number, number] };
  destroy(): void;
}

async function setup(accumulation: Accumulation): Promise<Setup> {
  const frame = await SplatFrame.create(device, FORMAT, { accumulation });
  const format = accumulation === 'direct' ? FORMAT : accumulation;
  const flat = await SplatRenderer.create(device, frame.uniforms.buffer, format, { fragment: 'flat' });
  const texture = device.createTexture({ size: [width, height], format, usage: GPUTextureUsage.RENDER_ATTACHMENT });
  return {
    accumulation,
    frame,
    flat,
    flatTarget: { view: texture.createView(), background: [0, 0, 0] },
    destroy: () => {
      frame.destroy();
      texture.destroy();
    },
  };
}
const setups = await Promise.all(accumulations.map(setup));

/** The camera path: outside the scene, half of it off screen, closer, then inside looking level and back. */
function poses(): { name: string; camera: OrbitCamera }[] {
  const make = (edit: (c: OrbitCamera) => void) => {
    const c = new OrbitCamera({ yaw: 0.6, pitch: 0.35 });
    c.setUp(UP_AXES[args.up as UpAxis]);
    c.frame(bounds, width / height);
    edit(c);
    return c;
  };
  return [
    { name: 'outside: whole scene', camera: make(() => {}) },
    { name: 'outside: half off screen', camera: make((c) => c.pan(width / 2, 0, height)) },
    { name: 'closer (1/3 the distance)', camera: make((c) => c.zoom(1 / 3)) },
    { name: 'entering (1/8)', camera: make((c) => c.zoom(1 / 8)) },
    { name: 'inside, level', camera: make((c) => { c.zoom(1 / 40); c.pitch = 0.05; }) },
    { name: 'inside, turned round', camera: make((c) => { c.zoom(1 / 40); c.pitch = 0.05; c.orbit(Math.PI, 0); }) },
  ];
}

function parametersOf(camera: OrbitCamera, keyBits: number): FrameParameters {
  const p: FrameParameters = {
    view: mat4.create(), projection: mat4.create(), eye: vec3.create(), fovY: camera.fovY, width, height,
    splatCount: cloud.count, shDegree: cloud.shDegree, splatScale: 1, keyBits,
  };
  camera.viewMatrix(p.view);
  camera.projectionMatrix(p.projection, width / height);
  camera.eye(p.eye);
  return p;
}

/** One timed frame and its flat-quad twin. */
async function timedFrame(s: Setup, params: FrameParameters, measure: boolean): Promise<FrameTimings & { flat: number }> {
  const { frame } = s;
  const encoder = device.createCommandEncoder();
  frame.encode(encoder, params, drawTarget, order, { measure });
  const drawn = frame.drawn!;
  s.flat.encode(encoder, s.flatTarget, { records: frame.projector.records!, order: drawn.order, count: drawn.drawArgs ?? drawn.count }, flatTimer.timestampWrites('flat'));
  flatTimer.resolve(encoder);
  device.queue.submit([encoder.finish()]);
  const t = await frame.readTimings();
  const f = (await flatTimer.read()).flat!;
  return { ...t, flat: f };
}

async function run(scene: GpuSplats, chunks: number): Promise<void> {
  for (const s of setups) s.frame.setScene(scene);
  for (const pose of poses()) {
    for (const keyBits of args.bits!.split(',').map(Number)) {
      for (const s of setups) await measureRow(s, pose.name, pose.camera, keyBits, chunks);
    }
  }
}

async function measureRow(s: Setup, poseName: string, camera: OrbitCamera, keyBits: number, chunks: number): Promise<void> {
  const { frame } = s;
  const params = parametersOf(camera, keyBits);
  // Warm up until the frame's median is stable (clocks, caches, first-use compiles).
  let previous = Infinity;
  for (let batch = 0; batch < MAX_WARM_BATCHES; batch++) {
    const totals: number[] = [];
    for (let r = 0; r < WARM_BATCH; r++) {
      const t = await timedFrame(s, params, false);
      totals.push(t.project! + t.sort! + t.render!);
    }
    const m = median(totals);
    if (Math.abs(m - previous) <= STABLE * m) break;
    previous = m;
  }
  const samples = { project: [] as number[], sort: [] as number[], render: [] as number[], flat: [] as number[], order: [] as number[] };
  for (let r = 0; r < runs; r++) {
    const t = await timedFrame(s, params, false);
    samples.project.push(t.project!);
    samples.sort.push(t.sort!);
    samples.order.push(t.project! + t.sort!);
    samples.render.push(t.render!);
    samples.flat.push(t.flat);
  }
  await timedFrame(s, params, true);
  const error = await frame.readOrderError();
  const visible = (await readBufferU32(device, frame.projector.state!, VISIBLE_STATE.size / 4))[VISIBLE_STATE.word('visible')]!;
  const round = (x: number) => Math.round(x * 1e4) / 1e4;
  const renderMs = median(samples.render);
  const flatMs = median(samples.flat);
  console.log(JSON.stringify({
    pose: poseName,
    scene: basename(args.scene!),
    copies,
    splats: cloud.count,
    chunks,
    keyBits,
    accumulation: s.accumulation,
    visible,
    projectMs: round(median(samples.project)),
    sortMs: round(median(samples.sort)),
    orderMs: round(median(samples.order)),
    renderMs: round(renderMs),
    flatMs: round(flatMs),
    renderOverFlat: round(renderMs / flatMs),
    invertedFraction: Number(error.invertedFraction.toPrecision(4)),
    beyond: error.beyond,
    largest: Number(error.largest.toPrecision(4)),
    width,
    height,
    adapter: adapterName,
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
viewer.destroy();
device.destroy();
