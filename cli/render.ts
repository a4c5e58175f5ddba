/**
 * Headless render command: one frame of a scene (any format the viewer
 * opens) with the viewer's own passes, written as a PNG; prints the frame's
 * per-pass GPU timings as one JSON line.
 *
 *   npm run render -- --scene FILE --out OUT.png [--camera CAMERA.json]
 *     [--width 1280 --height 800] [--up +y|-y|+z|-z|+x|-x]
 *     [--key-bits 32] [--accumulation rgba16float|rgba32float|rgb10a2unorm|direct]
 *     [--anti-aliasing auto|off|on] [--reference] [--difference [--order-camera OTHER.json]]
 *
 * --anti-aliasing picks the screen filter as the viewer's setting does
 * (src/scene/anti-aliasing.ts): auto follows the file, off is the
 * reference's +0.3 px², on the anti-aliased filter; the JSON line names it.
 * --reference also renders the CPU reference rasterizer's picture
 * (src/render/reference-rasterizer.ts), writes it beside OUT as
 * OUT.reference.png and adds its PSNR against the GPU picture (psnrDb).
 * --difference writes the sort difference view instead of the picture: the
 * frame drawn in the GPU sort's order at --key-bits, or, with
 * --order-camera, in the exact order of that other camera (a stale order,
 * as a frozen one after the camera moved), against the exact order of this
 * frame; the JSON line adds how many pixels differ and by how much.
 *
 * Without --camera the scene is framed as the viewer opens it
 * (src/app/home-view.ts) at --width × --height, with --up up or, without
 * it, the viewer's choice (sceneUp: +y for its default scene, a guess from
 * the splats where they show a clear ground, else −y); the JSON line gives
 * that camera, to edit and pass back with --camera. The camera file format
 * is in src/app/camera-file.ts. Colours are written as the renderer computes
 * them (no extra gamma).
 */
import { parseArgs } from 'node:util';
import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { createNodeGpuContext } from '../src/gpu/node-gpu';
import { loadSplatFile } from '../src/io/parse-splat-file';
import { GpuSplats } from '../src/scene/gpu-splats';
import { SplatFrame, type FrameView } from '../src/app/splat-frame';
import { GpuSortOrder } from '../src/app/gpu-sort-order';
import { parseCameraFile, type CameraFile } from '../src/app/camera-file';
import { OFFSCREEN_FORMAT, renderOffscreen } from '../src/app/offscreen-render';
import { ACCUMULATIONS, DEFAULT_ACCUMULATION, type Accumulation } from '../src/render/accumulation-target';
import { renderReferenceCamera } from '../src/app/reference-camera';
import { psnr, toRgba8 } from '../src/render/picture-compare';
import { encodePng } from './png';
import { homeCameraFile, isUpAxis, sceneUp, UP_AXES, type UpAxis } from '../src/app/home-view';
import { ANTI_ALIASING_SETTINGS, describeScreenFilter, screenFilterFor, type AntiAliasingSetting, type ScreenFilter } from '../src/scene/anti-aliasing';

/** The viewer's background, #101318. */
const VIEWER_BACKGROUND: [number, number, number] = [0x10 / 255, 0x13 / 255, 0x18 / 255];

const USAGE =
  'usage: npm run render -- --scene FILE --out OUT.png [--camera CAMERA.json | --width 1280 --height 800 --up -y] [--key-bits 32] ' +
  `[--accumulation ${ACCUMULATIONS.join('|')}] [--anti-aliasing ${ANTI_ALIASING_SETTINGS.join('|')}] [--reference] [--difference [--order-camera OTHER.json]]`;

async function main(): Promise<void> {
  const { values: args } = parseArgs({
    options: {
      scene: { type: 'string' },
      camera: { type: 'string' },
      width: { type: 'string', default: '1280' },
      height: { type: 'string', default: '800' },
      up: { type: 'string' },
      out: { type: 'string' },
      'key-bits': { type: 'string', default: '32' },
      accumulation: { type: 'string', default: DEFAULT_ACCUMULATION },
      'anti-aliasing': { type: 'string', default: 'auto' },
      reference: { type: 'boolean', default: false },
      difference: { type: 'boolean', default: false },
      'order-camera': { type: 'string' },
    },
  });
  if (!args.scene || !args.out) throw new Error(USAGE);
  const [width, height] = [Number(args.width), Number(args.height)];
  for (const [name, v] of [['--width', width], ['--height', height]] as const) {
    if (!Number.isInteger(v) || v < 1 || v > 16384) throw new Error(`${name} must be a whole number of pixels from 1 to 16384, got ${name === '--width' ? args.width : args.height}`);
  }
  if (args.up !== undefined && !isUpAxis(args.up)) throw new Error(`--up must be one of ${Object.keys(UP_AXES).join(', ')}, got ${args.up}`);
  const keyBits = Number(args['key-bits']);
  if (!Number.isInteger(keyBits) || keyBits < 1 || keyBits > 32) throw new Error(`--key-bits must be a whole number from 1 to 32, got ${args['key-bits']}`);
  const accumulation = args.accumulation as Accumulation;
  if (!ACCUMULATIONS.includes(accumulation)) throw new Error(`--accumulation must be one of ${ACCUMULATIONS.join(', ')}, got ${args.accumulation}`);
  const antiAliasing = args['anti-aliasing'] as AntiAliasingSetting;
  if (!ANTI_ALIASING_SETTINGS.includes(antiAliasing)) throw new Error(`--anti-aliasing must be one of ${ANTI_ALIASING_SETTINGS.join(', ')}, got ${args['anti-aliasing']}`);
  if (args['order-camera'] && !args.difference) throw new Error('--order-camera goes with --difference');
  const orderCamera = args['order-camera'] ? parseCameraFile(readFileSync(args['order-camera'], 'utf8')) : null;
  const cloud = await loadSplatFile(readFileSync(args.scene), basename(args.scene));
  // The viewer's rule, unless --up says otherwise.
  const up: UpAxis = args.up !== undefined && isUpAxis(args.up) ? args.up : sceneUp(cloud, basename(args.scene) === 'default-scene.ply').axis;
  const screenFilter = screenFilterFor(antiAliasing, cloud.antiAliasing);
  const camera = args.camera
    ? parseCameraFile(readFileSync(args.camera, 'utf8'))
    : homeCameraFile(cloud, { width, height, up, background: VIEWER_BACKGROUND, shDegree: cloud.shDegree });
  const { device, adapterName } = await createNodeGpuContext('render');
  const scene = new GpuSplats(device, cloud, 'render.scene');
  const frame = await SplatFrame.create(device, OFFSCREEN_FORMAT, { accumulation });
  const order = await GpuSortOrder.create(device);
  const fields: Record<string, unknown> = {};
  try {
    let view: FrameView = 'picture';
    if (args.difference) {
      await frame.prepareDifferenceView();
      view = 'difference';
    }
    if (orderCamera) {
      // The order drawn last becomes the frozen order: the exact order of the other camera.
      await renderOffscreen(device, frame, order, scene, { ...orderCamera, width: camera.width, height: camera.height }, { screenFilter });
    }
    const picture = await renderOffscreen(device, frame, orderCamera ? 'frozen' : order, scene, camera, { keyBits, view, screenFilter });
    writeFileSync(args.out, encodePng(picture.width, picture.height, picture.rgba));
    if (picture.difference) {
      const d = picture.difference;
      Object.assign(fields, { differingPixels: d.pixels, differingFraction: round(d.fraction, 6), largestDifference: d.largest, meanDifference: round(d.mean, 3) });
    }
    if (args.reference) Object.assign(fields, referenceFields(cloud, camera, screenFilter, picture.rgba, args.out));
    if (!args.camera) fields.camera = camera;
    console.log(JSON.stringify({ out: args.out, width: picture.width, height: picture.height, splats: cloud.count, accumulation, screenFilter: describeScreenFilter(screenFilter), ...fields, ...msFields(picture.timings), adapter: adapterName }));
  } finally {
    scene.destroy();
    frame.destroy();
    order.destroy();
    device.destroy();
  }
}

/** Renders the reference picture, writes it beside `out` and measures the GPU picture against it. */
function referenceFields(cloud: Parameters<typeof renderReferenceCamera>[0], camera: CameraFile, screenFilter: ScreenFilter, gpu: Uint8Array, out: string): Record<string, unknown> {
  const started = performance.now();
  const reference = renderReferenceCamera(cloud, camera, { screenFilter });
  const referenceMs = performance.now() - started;
  const pixels = toRgba8(reference.rgb);
  const referenceOut = out.replace(/(\.png)?$/i, '.reference.png');
  writeFileSync(referenceOut, encodePng(camera.width, camera.height, pixels));
  const db = psnr(gpu, pixels);
  return { reference: referenceOut, psnrDb: Number.isFinite(db) ? round(db, 2) : 'identical', referenceMs: Math.round(referenceMs) };
}

function round(x: number, digits: number): number {
  return Math.round(x * 10 ** digits) / 10 ** digits;
}

function msFields(t: Record<string, number | null>): Record<string, number | null> {
  return Object.fromEntries(Object.entries(t).map(([k, v]) => [`${k}Ms`, v === null ? null : round(v, 4)]));
}

main().catch((error: unknown) => {
  console.error(`render: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
