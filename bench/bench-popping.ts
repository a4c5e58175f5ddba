/**
 * The popping measure (bench/popping.ts) along a slow turn
 * (bench/camera-turn.ts) from a camera file: the tile renderer's frames
 * in the centre-depth order and in the per-pixel order (one line per queue
 * size asked for), each counted against the CPU reference's exact
 * per-pixel sort at the same cameras, with the raw jumps a frame of each
 * order and of the exact sort (bench/popping.ts). One JSON line per order:
 *
 *   node bench-dist/bench-popping.mjs --scene a.ply --camera 9k-inside.json \
 *     [--width 320 --height 180] [--frames 60] [--degrees 0.05] [--queue 8,16]
 *
 * The exact reference is a CPU rasterizer (about 90 µs a pixel on the 9k
 * scene), so the turn is drawn smaller than the camera file's size: the
 * figure is a property of the pictures, not of the GPU's speed.
 */
import { basename } from 'node:path';
import { readFile } from 'node:fs/promises';
import { parseCameraFile, type CameraFile } from '../src/app/camera/camera-file';
import { turnCameras } from './camera-turn';
import { GpuSortOrder } from '../src/app/frame/order/gpu-sort-order';
import { renderOffscreen } from './render-offscreen';
import { renderReferenceCamera } from '../cli/reference-camera';
import { SplatFrame } from '../src/app/frame/splat-frame';
import { createNodeGpuContext } from '../src/gpu/node-gpu';
import { nodeLoadLimits } from '../src/app/node-viewer';
import { loadSceneFile } from '../src/io/node-scene-source';
import { toRgba8 } from '../cli/picture-compare';
import { countPops, POP_LEVELS, type PopCount } from './popping';
import { perPixelOrder } from './reference-pixel-order';
import { GpuSplats } from '../src/scene/gpu-splats';
import { wholeNumber, wholeNumbers } from './bench-options';
import { commandLine } from './command-line';
import help from './bench-popping.ts?help';

const { values: args } = commandLine('bench-popping', help, {
  scene: { type: 'string' },
  camera: { type: 'string' },
  width: { type: 'string', default: '320' },
  height: { type: 'string', default: '180' },
  frames: { type: 'string', default: '60' },
  degrees: { type: 'string', default: '0.05' },
  queue: { type: 'string', default: '8' },
});
if (!args.scene || !args.camera) throw new Error('bench-popping needs --scene and --camera');
const width = wholeNumber('width', args.width!, 16);
const height = wholeNumber('height', args.height!, 16);
const frames = wholeNumber('frames', args.frames!, 2);
const degrees = Number(args.degrees);
const queues = wholeNumbers('queue', args.queue!, 1);

const gpu = await createNodeGpuContext('bench-popping');
const { device } = gpu;
const loaded = await loadSceneFile(args.scene, { limits: await nodeLoadLimits() });
const cloud = loaded.cloud;
const scene = new GpuSplats(device, cloud, 'bench-popping.scene');
const order = await GpuSortOrder.create(device);
const camera: CameraFile = { ...parseCameraFile(await readFile(args.camera, 'utf8')), width, height };
const cameras = turnCameras(camera, frames, degrees);

const started = performance.now();
const exact = cameras.map((c) => toRgba8(renderReferenceCamera(cloud, c, { order: perPixelOrder() }).rgb));
const referenceMs = performance.now() - started;

async function turn(queue: number | null): Promise<Uint8Array[]> {
  const frame = await SplatFrame.create(device, 'rgba8unorm', { tiles: { pixelQueue: queue ?? undefined } });
  await frame.painters.tiles.prepare(true);
  const pictures: Uint8Array[] = [];
  for (const c of cameras) pictures.push((await renderOffscreen(device, frame, order, scene, c, { renderer: 'tiles', splatOrder: queue === null ? 'centre-depth' : 'per-pixel' })).rgba);
  frame.destroy();
  return pictures;
}

const common = { scene: basename(args.scene), camera: basename(args.camera), width, height, frames, degreesPerFrame: degrees, levels: POP_LEVELS, referenceMs: Math.round(referenceMs) };
// Raw jumps a frame (pixels changing by more than the levels, pops or not), the order's and the exact order's.
const jumps = (count: PopCount) => ({ jumpsPerFrame: count.jumps / (frames - 1), exactJumpsPerFrame: count.referenceJumps / (frames - 1) });
const centre = countPops(await turn(null), exact);
console.log(JSON.stringify({ ...common, order: 'centre-depth', pops: centre.pixels, fraction: centre.fraction, perStep: centre.perStep, ...jumps(centre) }));
for (const queue of queues) {
  const perPixel = countPops(await turn(queue), exact);
  console.log(JSON.stringify({ ...common, order: 'per-pixel', queue, pops: perPixel.pixels, fraction: perPixel.fraction, ratio: centre.pixels / Math.max(1, perPixel.pixels), perStep: perPixel.perStep, ...jumps(perPixel) }));
}
scene.destroy();
device.destroy();
