/**
 * Level changes along a path over a Streamed SOG world, with and without
 * cross-fades: the popping measure (bench/popping.ts) of the world drawn
 * under its budget, against the same path drawn at full detail (every leaf
 * in view at its finest level, no budget, no fades). A pixel pops between
 * two frames when its change passes the full detail's change there by more
 * than 16/255: a region switching level at once pops, one that
 * cross-fades over several frames changes by a part of that a frame.
 *
 *   npm run bench:build && node bench-dist/world-popping.mjs --index worlds/big/world/lod-meta.json \
 *     [--frames 90] [--width 480 --height 270] [--budget 2000000] [--threshold 0.5]
 *     [--fade-ms 0,300] [--altitude 0.01] [--start 0.3] [--step 0.0005] [--fps 60]
 *
 * The path runs low over the ground (--altitude in the world's widths)
 * along the world's diagonal from --start (0..1 of it), --step of it a
 * frame, looking ahead and down, at --fps frames a second of the fades'
 * clock. Each frame waits until every chunk it asks for has arrived
 * before it is drawn: the level changes measured are those the camera's
 * move and the budget make, each at the frame it happens, not the moments
 * chunks happen to land. One JSON line per --fade-ms: pops (summed over
 * the frames, and the largest of one frame), the raw jumps of both paths,
 * the splats drawn, the leaves fading summed over the frames, the most
 * splats the fades added, and the fades cut short for want of room.
 */
import { createNodeGpuContext } from '../src/gpu/node-gpu';
import { nodeFileSource } from '../src/io/node-scene-source';
import { openWorld } from '../src/io/lod/world-files';
import { nodeLoadLimits } from '../src/app/node-viewer';
import { SplatFrame } from '../src/app/frame/splat-frame';
import { GpuSortOrder } from '../src/app/frame/order/gpu-sort-order';
import { WorldSession } from '../src/app/world/world-session';
import { WORLD_DEFAULTS } from '../src/app/world/world-options';
import { OFFSCREEN_FORMAT } from '../src/app/frame/offscreen-render';
import type { CameraFile } from '../src/app/camera/camera-file';
import type { LodIndex } from '../src/io/lod/lod-meta';
import { renderOffscreen } from './render-offscreen';
import { countPops } from './popping';
import { quantile } from './stable-timing';
import { wholeNumber } from './bench-options';
import { commandLine } from './command-line';
import help from './world-popping.ts?help';

const { values: args } = commandLine('world-popping', help, {
  index: { type: 'string' },
  frames: { type: 'string', default: '90' },
  width: { type: 'string', default: '480' },
  height: { type: 'string', default: '270' },
  budget: { type: 'string', default: '2000000' },
  threshold: { type: 'string', default: String(WORLD_DEFAULTS.thresholdPx) },
  'fade-ms': { type: 'string', default: `0,${WORLD_DEFAULTS.fadeMs}` },
  altitude: { type: 'string', default: '0.01' },
  start: { type: 'string', default: '0.3' },
  step: { type: 'string', default: '0.0005' },
  fps: { type: 'string', default: '60' },
});
if (!args.index) throw new Error('world-popping needs --index PATH/lod-meta.json');
const frames = wholeNumber('frames', args.frames!, 2);
const width = wholeNumber('width', args.width!, 16);
const height = wholeNumber('height', args.height!, 16);
const budget = wholeNumber('budget', args.budget!, 1);
const fades = args['fade-ms']!.split(',').map(Number);
const [thresholdPx, altitude, start, step, fps] = ['threshold', 'altitude', 'start', 'step', 'fps'].map((name) => {
  const value = Number(args[name as 'threshold']);
  if (!(value >= 0)) throw new Error(`--${name} takes a number ≥ 0, got ${args[name as 'threshold']}`);
  return value;
}) as [number, number, number, number, number];
if (fades.some((f) => !(f >= 0))) throw new Error(`--fade-ms takes milliseconds (numbers ≥ 0), got ${args['fade-ms']}`);
const print = (line: Record<string, unknown>) => console.log(JSON.stringify(line));

const { device } = await createNodeGpuContext('world-popping');
const [frame, order] = await Promise.all([SplatFrame.create(device, OFFSCREEN_FORMAT), GpuSortOrder.create(device)]);
const limits = await nodeLoadLimits();
const files = await openWorld(nodeFileSource(args.index), { limits });
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** Camera `i` of the path over `index`'s tree box (see the file's header). */
function pathCamera(index: LodIndex, i: number): CameraFile {
  const { min, max } = index.tree.bound;
  const size = Math.max(max[0] - min[0], max[2] - min[2]);
  const t = start + i * step;
  const eye: [number, number, number] = [min[0] + t * (max[0] - min[0]), (min[1] + max[1]) / 2 - altitude * size, min[2] + t * (max[2] - min[2])];
  const dir = [max[0] - min[0], max[2] - min[2]];
  const length = Math.hypot(dir[0]!, dir[1]!);
  // Captures are y down: the ground is at higher y; half a height ahead for each height down.
  const target: [number, number, number] = [eye[0] + (0.5 * altitude * size * dir[0]!) / length, eye[1] + altitude * size, eye[2] + (0.5 * altitude * size * dir[1]!) / length];
  return { width, height, fovy_deg: 60, eye, target, up: [0, -1, 0], background: [0, 0, 0], sh_degree: 3 };
}

/** The path's pictures drawn by a session with `options`; with the splats drawn and the fades' figures a frame. */
async function drawPath(options: { budget: number; thresholdPx: number; fadeMs: number }) {
  const session = new WorldSession(device, files, { ...WORLD_DEFAULTS, memoryBytes: 8 * 2 ** 30, ...options });
  let clock = 0;
  session.now = () => clock;
  const pictures: Uint8Array[] = [];
  const drawn: number[] = [];
  let mostFading = 0;
  let fading = 0;
  const settle = async (camera: CameraFile, what: string) => {
    for (let turn = 0; ; turn++) {
      session.updateCamera(camera);
      if (session.chunksSettled) return;
      if (turn > 1e6) throw new Error(`${what}: the chunks did not arrive`);
      await nextTurn();
    }
  };
  try {
    // The first camera's picture whole before the path starts: the world's first fade-in is not a level change.
    clock = -2 * options.fadeMs - 1;
    await settle(pathCamera(files.index, 0), 'the first camera');
    clock = -1;
    session.updateCamera(pathCamera(files.index, 0));
    for (let i = 0; i < frames; i++) {
      const camera = pathCamera(files.index, i);
      clock = (1000 * i) / fps;
      await settle(camera, `frame ${i}`);
      const scene = session.scene;
      if (!scene) throw new Error(`frame ${i}: nothing to draw`);
      pictures.push((await renderOffscreen(device, frame, order, scene, camera, { renderer: 'tiles', maxDrawn: session.maxDrawn })).rgba);
      drawn.push(session.frame.drawnSplats);
      mostFading = Math.max(mostFading, session.frame.fadingSplats);
      fading += session.frame.fading;
    }
    return { pictures, drawn, mostFading, fading, cutShort: session.frame.fadesCutShort };
  } finally {
    session.close();
  }
}

const full = await drawPath({ budget: 1e9, thresholdPx: 0, fadeMs: 0 });
print({ kind: 'full', frames, width, height, drawn: { p50: quantile(full.drawn, 0.5), max: Math.max(...full.drawn) } });
for (const fadeMs of fades) {
  const path = await drawPath({ budget, thresholdPx, fadeMs });
  const pops = countPops(path.pictures, full.pictures);
  print({
    kind: 'popping', fadeMs, budget, thresholdPx, frames, width, height,
    pops: pops.pixels, mostInOneFrame: Math.max(...pops.perStep), popFraction: pops.fraction,
    jumps: pops.jumps, fullJumps: pops.referenceJumps,
    drawn: { p50: quantile(path.drawn, 0.5), max: Math.max(...path.drawn) },
    fadingLeafFrames: path.fading, mostFadingSplats: path.mostFading, fadesCutShort: path.cutShort,
  });
}
