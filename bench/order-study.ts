/**
 * The quality of per-pixel orders for the tile renderer, on the CPU
 * reference (bench/reference-pixel-order.ts): along a slow turn
 * (bench/camera-turn.ts) from each camera file, a crop of the picture at
 * the camera's own pixel scale (the crop's focal length in pixels is the
 * full picture's, so a 16-pixel tile spans as much of the scene as it does
 * there), drawn in the centre-depth order, the per-pixel queues, and the
 * hierarchical windowed orders (a tile-level window by tile depth, then a
 * short per-pixel queue); each against the exact per-pixel order at the
 * same cameras: PSNR per frame (mean and minimum over the turn) and the
 * popping measure (bench/popping.ts), with centre-depth's pops beside it.
 * All the orders of a frame are drawn in one pass (manyPixelOrders). One
 * JSON line per camera and order:
 *
 *   node bench-dist/order-study.mjs --scene a.ply --camera 9k-inside.json,9k-outside.json \
 *     [--width 240 --height 135] [--frames 12] [--degrees 0.05] \
 *     [--queue 1,2,4,8,16] [--windows 0x128,32x96,64x64] [--window-queue 0,1,2,4] \
 *     [--tile-depth nearest,centre] [--noise-floor 0.005] [--faint-below 0.02,0.05 [--faint-queue 16]]
 *
 * --width and --height are the crop's, taken about the picture's centre;
 * each line's ms is the time spent ordering and blending that order's
 * pixels, sharedMs the pass that finds each pixel's splats for all of
 * them (an order drawn alone takes about the two together).
 * Each line's walkedPerTile is the list positions a tile's
 * workgroup would walk (until its last pixel stops) and arrivalsPerPixel
 * the splats that reach a pixel and go through its order before it stops,
 * means over the turn: what a rule would cost a GPU, beside its quality.
 * --faint-below A adds, for each bound A, a queue of --faint-queue places
 * that composites arrivals under an alpha of A into one bucket past its
 * places (bench/faint-bucket-queue.ts), and one that does so only for
 * arrivals in front of every held place (front: true); its line's
 * faintPerPixel is the arrivals that took that way.
 * --noise-floor D adds a line per camera: the exact order against itself
 * drawn with each camera turned D degrees more (jitterPixels: how far that
 * moves the picture's middle), the PSNR below which two pictures of the
 * same scene differ by a sub-pixel move alone.
 */
import { basename } from 'node:path';
import { readFile } from 'node:fs/promises';
import { parseCameraFile } from '../src/app/camera/camera-file';
import { cropAtPixelScale, turnCameras, yawCamera } from './camera-turn';
import { renderReferenceCamera } from '../cli/reference-camera';
import { loadSceneFile } from '../src/io/node-scene-source';
import { psnr, toRgba8 } from '../cli/picture-compare';
import { countPops, POP_LEVELS } from './popping';
import { perPixelOrder } from './reference-pixel-order';
import { manyPixelOrders, ruleName, TILE_DEPTHS, type PixelRule } from './windowed-pixel-order';
import { listOption, wholeNumber, wholeNumbers } from './bench-options';
import { commandLine } from './command-line';
import help from './order-study.ts?help';

const { values: args } = commandLine('order-study', help, {
  scene: { type: 'string' },
  camera: { type: 'string' },
  width: { type: 'string', default: '240' },
  height: { type: 'string', default: '135' },
  frames: { type: 'string', default: '12' },
  degrees: { type: 'string', default: '0.05' },
  queue: { type: 'string', default: '1,2,4,8,16' },
  windows: { type: 'string', default: '0x128,32x96,64x64' },
  'window-queue': { type: 'string', default: '0,1,2,4' },
  'tile-depth': { type: 'string', default: 'nearest,centre' },
  'noise-floor': { type: 'string', default: '0' },
  'faint-below': { type: 'string', default: '' },
  'faint-queue': { type: 'string', default: '16' },
});
if (!args.scene || !args.camera) throw new Error('order-study needs --scene and --camera');
const width = wholeNumber('width', args.width!, 16);
const height = wholeNumber('height', args.height!, 16);
const frames = wholeNumber('frames', args.frames!, 2);
const degrees = Number(args.degrees);
if (!Number.isFinite(degrees)) throw new Error(`--degrees: ${args.degrees} is not a number`);
const queues = wholeNumbers('queue', args.queue!, 1);
const windows = args.windows!.split(',').map((text) => {
  const m = /^(\d+)x(\d+)$/.exec(text);
  if (!m) throw new Error(`--windows: ${text} is not WINDOWxBATCH`);
  return { window: wholeNumber('windows', m[1]!, 0), batch: wholeNumber('windows', m[2]!, 1) };
});
const windowQueues = wholeNumbers('window-queue', args['window-queue']!, 0);
const tileDepths = listOption('tile-depth', args['tile-depth']!, TILE_DEPTHS);
const faintBelow = args['faint-below'] ? args['faint-below'].split(',').map(Number) : [];
if (faintBelow.some((a) => !(a > 0 && a <= 1))) throw new Error(`--faint-below takes alphas in (0, 1], got ${args['faint-below']}`);
const faintQueue = wholeNumber('faint-queue', args['faint-queue']!, 1);
const noiseDegrees = Number(args['noise-floor']);
if (!(noiseDegrees >= 0)) throw new Error(`--noise-floor: ${args['noise-floor']} is not a turn in degrees ≥ 0`);

// The judge first, then centre-depth (the pops' yardstick), then the rest.
const rules: PixelRule[] = [{ kind: 'exact' }, { kind: 'centre-depth' }, ...queues.map((queue) => ({ kind: 'queue' as const, queue }))];
for (const front of [false, true]) for (const below of faintBelow) rules.push({ kind: 'faint', queue: faintQueue, below, front });
for (const tileDepth of tileDepths) for (const w of windows) for (const queue of windowQueues) rules.push({ kind: 'window', ...w, tileDepth, queue });

const cloud = (await loadSceneFile(args.scene)).cloud;
const rgba = (sums: Float32Array, background: readonly [number, number, number]) => {
  const rgb = new Float32Array((sums.length / 4) * 3);
  for (let p = 0; p < sums.length / 4; p++) {
    const T = sums[4 * p + 3]!;
    for (let c = 0; c < 3; c++) rgb[3 * p + c] = sums[4 * p + c]! + T * background[c]!;
  }
  return toRgba8(rgb);
};

for (const cameraPath of args.camera.split(',')) {
  const full = parseCameraFile(await readFile(cameraPath, 'utf8'));
  const crop = cropAtPixelScale(full, width, height, cameraPath);
  const cameras = turnCameras(crop, frames, degrees);
  const pictures: Uint8Array[][] = rules.map(() => []);
  const ms = new Float64Array(rules.length);
  let sharedMs = 0;
  let drawMs = 0;
  const walked = new Float64Array(rules.length), arrivals = new Float64Array(rules.length), faint = new Float64Array(rules.length);
  for (const camera of cameras) {
    const many = manyPixelOrders(rules, width, height);
    const started = performance.now();
    renderReferenceCamera(cloud, camera, { order: many.order });
    drawMs += performance.now() - started;
    many.sums.forEach((sums, r) => pictures[r]!.push(rgba(sums, camera.background)));
    many.ms.forEach((t, r) => (ms[r] += t));
    sharedMs += many.sharedMs;
    const cost = many.cost();
    cost.walked.forEach((w, r) => (walked[r] += w / (Math.ceil(width / 16) * Math.ceil(height / 16)) / frames));
    cost.arrivals.forEach((a, r) => (arrivals[r] += a / (width * height) / frames));
    cost.faint.forEach((a, r) => (faint[r] += a / (width * height) / frames));
  }
  // The check that one pass draws what the order alone does: the exact order on its own at the first camera.
  const started = performance.now();
  const alone = toRgba8(renderReferenceCamera(cloud, cameras[0]!, { order: perPixelOrder() }).rgb);
  const exactAloneMs = performance.now() - started;
  if (psnr(alone, pictures[0]![0]!) !== Infinity) throw new Error(`${cameraPath}: the exact order drawn with the others differs from the exact order alone`);

  const exact = pictures[0]!;
  const centrePops = countPops(pictures[1]!, exact).pixels;
  const common = { scene: basename(args.scene), camera: basename(cameraPath), fullWidth: full.width, fullHeight: full.height, width, height, fovyDeg: crop.fovy_deg, frames, degreesPerFrame: degrees, levels: POP_LEVELS };
  if (noiseDegrees > 0) {
    // The noise floor: the exact order against itself drawn with the camera turned a little more.
    const floor = cameras.map((camera, i) => psnr(toRgba8(renderReferenceCamera(cloud, yawCamera(camera, noiseDegrees), { order: perPixelOrder() }).rgb), exact[i]!));
    console.log(JSON.stringify({ ...common, order: 'noise-floor', kind: 'noise-floor', jitterDegrees: noiseDegrees, jitterPixels: (noiseDegrees * Math.PI / 180) * (height / 2) / Math.tan((crop.fovy_deg * Math.PI) / 360), psnrMean: floor.reduce((a, b) => a + b, 0) / floor.length, psnrMin: Math.min(...floor) }));
  }
  const timing = { sharedMs: Math.round(sharedMs), drawMs: Math.round(drawMs), exactAloneMsPerFrame: Math.round(exactAloneMs) };
  rules.forEach((rule, r) => {
    if (r === 0) return;
    const frameDb = pictures[r]!.map((picture, i) => psnr(picture, exact[i]!));
    const finite = frameDb.filter(Number.isFinite);
    const pops = countPops(pictures[r]!, exact);
    const options = rule.kind === 'window' ? { window: rule.window, batch: rule.batch, tileDepth: rule.tileDepth, queue: rule.queue }
      : rule.kind === 'queue' ? { queue: rule.queue }
      : rule.kind === 'faint' ? { queue: rule.queue, below: rule.below, front: rule.front, faintPerPixel: Math.round(faint[r]! * 100) / 100 } : {};
    console.log(JSON.stringify({
      ...common,
      order: ruleName(rule),
      kind: rule.kind,
      ...options,
      // Frames drawn the same as the exact order's (PSNR ∞) are left out of the mean and minimum, and counted.
      psnrMean: finite.length ? finite.reduce((s, v) => s + v, 0) / finite.length : null,
      psnrMin: finite.length ? Math.min(...finite) : null,
      identicalFrames: frameDb.length - finite.length,
      pops: pops.pixels,
      fraction: pops.fraction,
      jumpsPerFrame: pops.jumps / (frames - 1),
      exactJumpsPerFrame: pops.referenceJumps / (frames - 1),
      centrePops,
      popsOfCentre: pops.pixels / Math.max(1, centrePops),
      perStep: pops.perStep,
      walkedPerTile: Math.round(walked[r]! * 10) / 10,
      arrivalsPerPixel: Math.round(arrivals[r]! * 100) / 100,
      ms: Math.round(ms[r]!),
      ...timing,
    }));
  });
}
