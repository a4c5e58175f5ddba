/**
 * Headless render command: one frame of a scene from a camera file, with the
 * viewer's own passes, written as a PNG; prints the frame's per-pass GPU
 * timings as one JSON line.
 *
 *   npm run render -- --scene FILE.ply --camera CAMERA.json --out OUT.png [--key-bits 32]
 *
 * The camera file format is in src/app/camera-file.ts. Colours are written as
 * the renderer computes them (no extra gamma).
 */
import { parseArgs } from 'node:util';
import { readFileSync, writeFileSync } from 'node:fs';
import { createNodeGpuContext } from '../src/gpu/node-gpu';
import { parseSplatPly } from '../src/io/ply';
import { GpuSplats } from '../src/scene/gpu-splats';
import { SplatFrame } from '../src/app/splat-frame';
import { GpuSortOrder } from '../src/app/gpu-sort-order';
import { parseCameraFile } from '../src/app/camera-file';
import { OFFSCREEN_FORMAT, renderOffscreen } from '../src/app/offscreen-render';
import { encodePng } from './png';

async function main(): Promise<void> {
  const { values: args } = parseArgs({
    options: {
      scene: { type: 'string' },
      camera: { type: 'string' },
      out: { type: 'string' },
      'key-bits': { type: 'string', default: '32' },
    },
  });
  if (!args.scene || !args.camera || !args.out) {
    throw new Error('usage: npm run render -- --scene FILE.ply --camera CAMERA.json --out OUT.png [--key-bits 32]');
  }
  const camera = parseCameraFile(readFileSync(args.camera, 'utf8'));
  const cloud = parseSplatPly(readFileSync(args.scene));
  const { device, adapterName } = await createNodeGpuContext('render');
  const scene = new GpuSplats(device, cloud, 'render.scene');
  const frame = await SplatFrame.create(device, OFFSCREEN_FORMAT);
  const order = await GpuSortOrder.create(device);
  const picture = await renderOffscreen(device, frame, order, scene, camera, { keyBits: Number(args['key-bits']) });
  writeFileSync(args.out, encodePng(picture.width, picture.height, picture.rgba));
  console.log(JSON.stringify({ out: args.out, width: picture.width, height: picture.height, splats: cloud.count, ...msFields(picture.timings), adapter: adapterName }));
  scene.destroy();
  frame.destroy();
  order.destroy();
  device.destroy();
}

function msFields(t: Record<string, number | null>): Record<string, number | null> {
  return Object.fromEntries(Object.entries(t).map(([k, v]) => [`${k}Ms`, v === null ? null : Math.round(v * 1e4) / 1e4]));
}

main().catch((error: unknown) => {
  console.error(`render: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
