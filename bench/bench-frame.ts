/**
 * Frame benchmark under Node: a scene through the viewer's own passes
 * (depth keys → GPU radix sort → splat render) into an offscreen target,
 * timed per pass with timestamp queries, beside a minimal blended-quad pass
 * over exactly the same quads (same vertex shader and blending, constant
 * fragment), whose time is the GPU's raster/blend floor for this coverage.
 * Prints one JSON line per run configuration:
 *   {scene, splats, width, height, keyBits, keysMs, sortMs, renderMs, flatQuadMs, renderOverFlat, adapter}
 *
 *   npm run bench:frame -- --scene FILE.ply [--width 1920 --height 1080] [--runs 30] [--bits 16,32]
 */
import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { mat4, vec3 } from 'gl-matrix';
import { createNodeGpuContext } from '../src/gpu/node-gpu';
import { GpuPassTimer } from '../src/gpu/pass-timer';
import { parseSplatPly } from '../src/io/ply';
import { GpuSplats } from '../src/scene/gpu-splats';
import { SplatFrame } from '../src/app/splat-frame';
import { SplatRenderer } from '../src/render/splat-renderer';
import { OrbitCamera } from '../src/app/orbit-camera';
import { median } from '../src/sort/self-test';
import type { FrameParameters } from '../src/render/frame-uniforms';

const { values: args } = parseArgs({
  options: {
    scene: { type: 'string' },
    width: { type: 'string', default: '1920' },
    height: { type: 'string', default: '1080' },
    runs: { type: 'string', default: '30' },
    bits: { type: 'string', default: '32,16' },
  },
});
if (!args.scene) throw new Error('--scene FILE.ply is required');
const width = Number(args.width);
const height = Number(args.height);
const runs = Number(args.runs);
const FORMAT: GPUTextureFormat = 'rgba8unorm';

const { device, adapterName, hasTimestamps } = await createNodeGpuContext('bench-frame');
if (!hasTimestamps) throw new Error(`${adapterName} has no timestamp-query: GPU times cannot be measured`);
const cloud = parseSplatPly(readFileSync(args.scene));
const scene = new GpuSplats(device, cloud);
const frame = await SplatFrame.create(device, FORMAT);
frame.setScene(scene);
const flat = await SplatRenderer.create(device, frame.uniforms.buffer, FORMAT, { fragment: 'flat' });
const flatTimer = new GpuPassTimer(device, ['flat'] as const, 'bench.flatTimer');
const target = device.createTexture({ size: [width, height], format: FORMAT, usage: GPUTextureUsage.RENDER_ATTACHMENT });
const view = target.createView();

const camera = new OrbitCamera();
camera.frame(cloud.bounds, width / height);
const parameters: FrameParameters = {
  view: mat4.create(),
  projection: mat4.create(),
  eye: vec3.create(),
  fovY: camera.fovY,
  width,
  height,
  splatCount: cloud.count,
  shDegree: cloud.shDegree,
  splatScale: 1,
  keyBits: 32,
};
camera.viewMatrix(parameters.view);
camera.projectionMatrix(parameters.projection, width / height);
camera.eye(parameters.eye);

for (const keyBits of args.bits.split(',').map(Number)) {
  parameters.keyBits = keyBits;
  const samples = { keys: [] as number[], sort: [] as number[], render: [] as number[], flat: [] as number[] };
  const warmUntil = performance.now() + 500;
  for (let r = 0; samples.render.length < runs; r++) {
    const encoder = device.createCommandEncoder();
    frame.encode(encoder, parameters, { view, background: [0, 0, 0] }, 'gpu-sort');
    const w = flatTimer.timestampWrites('flat')!;
    flat.encode(
      encoder,
      { view, background: [0, 0, 0] },
      { scene, order: frame.orderBuffer(keyBits), count: scene.count },
      { querySet: w.querySet, beginningOfPassWriteIndex: w.beginningOfPassWriteIndex!, endOfPassWriteIndex: w.endOfPassWriteIndex! },
    );
    flatTimer.resolve(encoder);
    device.queue.submit([encoder.finish()]);
    const t = await frame.readTimings();
    const f = (await flatTimer.read()).flat;
    if (r < 3 || performance.now() < warmUntil) continue;
    samples.keys.push(t.keys!);
    samples.sort.push(t.sort!);
    samples.render.push(t.render!);
    samples.flat.push(f!);
  }
  const round = (x: number) => Math.round(x * 1e4) / 1e4;
  const renderMs = median(samples.render);
  const flatMs = median(samples.flat);
  console.log(
    JSON.stringify({
      scene: basename(args.scene),
      splats: cloud.count,
      shDegree: cloud.shDegree,
      width,
      height,
      keyBits,
      runs,
      keysMs: round(median(samples.keys)),
      sortMs: round(median(samples.sort)),
      renderMs: round(renderMs),
      flatQuadMs: round(flatMs),
      renderOverFlat: round(renderMs / flatMs),
      adapter: adapterName,
    }),
  );
}
scene.destroy();
frame.destroy();
device.destroy();
