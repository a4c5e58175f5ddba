/**
 * A real scene through the viewer's frame on a real WebGPU device (Dawn over
 * SwiftShader in CI): depth keys → GPU radix sort → render. The draw order
 * must be back to front and match the CPU sort path's order; the picture
 * must not be blank and must not depend on which path sorted it.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { readFileSync } from 'node:fs';
import { createNodeGpuContext } from '../../src/gpu/node-gpu';
import { readBufferU32 } from '../../src/gpu/readback';
import { parseSplatPly } from '../../src/io/ply';
import { GpuSplats } from '../../src/scene/gpu-splats';
import { SplatFrame } from '../../src/app/splat-frame';
import { CpuRadixSort } from '../../src/sort/cpu-sort';
import { computeDepthKeys, fromOrderedBits } from '../../src/sort/cpu-depth-keys';
import type { FrameParameters } from '../../src/render/frame-uniforms';
import type { SplatCloud } from '../../src/scene/splat-cloud';
import { scenePath } from '../shared-scenes';
import { coveredFraction, medianCentre, viewOf, VIEW_BACKGROUND, VIEW_HEIGHT, VIEW_WIDTH } from '../support/test-view';

const SCENE = scenePath('inria_kacytran_iter7000_9k_sh3.ply');
const WIDTH = VIEW_WIDTH;
const HEIGHT = VIEW_HEIGHT;
const BACKGROUND = VIEW_BACKGROUND;

let device: GPUDevice;
let cloud: SplatCloud;
let frame: SplatFrame;
let scene: GpuSplats;
let target: GPUTexture;

beforeAll(async () => {
  ({ device } = await createNodeGpuContext('splat-frame.test'));
  cloud = parseSplatPly(readFileSync(SCENE));
  frame = await SplatFrame.create(device, 'rgba8unorm');
  scene = new GpuSplats(device, cloud);
  frame.setScene(scene);
  target = device.createTexture({ size: [WIDTH, HEIGHT], format: 'rgba8unorm', usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC });
});

afterAll(() => {
  scene?.destroy();
  frame?.destroy();
  device?.destroy();
});

/** The test view of the scene's median point. */
function parameters(keyBits: number): FrameParameters {
  return viewOf(medianCentre(cloud), { splatCount: cloud.count, shDegree: 3 }, keyBits);
}

async function renderFrame(params: FrameParameters, order: 'gpu-sort' | 'uploaded'): Promise<Uint8Array> {
  const encoder = device.createCommandEncoder();
  frame.encode(encoder, params, { view: target.createView(), background: BACKGROUND }, order);
  const bytesPerRow = 256;
  const readback = device.createBuffer({ size: bytesPerRow * HEIGHT, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
  encoder.copyTextureToBuffer({ texture: target }, { buffer: readback, bytesPerRow }, [WIDTH, HEIGHT]);
  device.queue.submit([encoder.finish()]);
  await readback.mapAsync(GPUMapMode.READ);
  const pixels = new Uint8Array(readback.getMappedRange().slice(0));
  readback.destroy();
  return pixels;
}

function cpuOrder(params: FrameParameters) {
  const keys = new Uint32Array(cloud.count);
  const values = new Uint32Array(cloud.count);
  computeDepthKeys(cloud.positions, cloud.count, params.view, params.keyBits, keys, values);
  new CpuRadixSort(cloud.count).sort(keys, values, cloud.count, params.keyBits);
  return { keys, values };
}

test('the GPU draw order is back to front and equals the CPU path order', async () => {
  const params = parameters(32);
  await renderFrame(params, 'gpu-sort');
  const order = await readBufferU32(device, frame.orderBuffer(32), cloud.count);
  const gpuKeys = await readBufferU32(device, frame.sorter.resultBuffers(32).keys, cloud.count);

  // Back to front: the view-space z (negative in front) never decreases.
  const v = params.view;
  const z = (i: number) => v[2] * cloud.positions[3 * i]! + v[6] * cloud.positions[3 * i + 1]! + v[10] * cloud.positions[3 * i + 2]! + v[14];
  for (let k = 1; k < cloud.count; k++) {
    const a = z(order[k - 1]!);
    const b = z(order[k]!);
    if (!(a <= b + 1e-5 * Math.max(1, Math.abs(b)))) expect.fail(`draw ${k - 1} (z ${a}) is in front of draw ${k} (z ${b})`);
  }
  // The sorted keys are the depths themselves, at full precision.
  for (let k = 0; k < cloud.count; k += 97) {
    expect(fromOrderedBits(gpuKeys[k]!)).toBeCloseTo(z(order[k]!), 3);
  }

  // The CPU path computes the same keys (up to a fused multiply-add's last
  // bit) and sorts them stably: the orders agree wherever keys are not tied
  // within a couple of ulps.
  const cpu = cpuOrder(params);
  let same = 0;
  for (let k = 0; k < cloud.count; k++) {
    if (cpu.values[k] === order[k]) same++;
    else expect(Math.abs(cpu.keys[k]! - gpuKeys[k]!)).toBeLessThanOrEqual(4);
  }
  expect(same / cloud.count).toBeGreaterThan(0.99);
});

test('16-bit keys keep the coarse order: back to front up to the key step', async () => {
  const params = parameters(16);
  await renderFrame(params, 'gpu-sort');
  const gpuKeys = await readBufferU32(device, frame.sorter.resultBuffers(16).keys, cloud.count);
  for (let k = 1; k < cloud.count; k++) expect(gpuKeys[k]! >= gpuKeys[k - 1]!).toBe(true);
  expect(gpuKeys[cloud.count - 1]!).toBeLessThan(1 << 16);
  const cpu = cpuOrder(params);
  let same = 0;
  const order = await readBufferU32(device, frame.orderBuffer(16), cloud.count);
  for (let k = 0; k < cloud.count; k++) if (cpu.values[k] === order[k]) same++;
  expect(same / cloud.count).toBeGreaterThan(0.99);
});

test('the picture is not blank, and the CPU order gives the same picture', async () => {
  const params = parameters(32);
  const gpuPicture = await renderFrame(params, 'gpu-sort');
  expect(coveredFraction(gpuPicture)).toBeGreaterThan(0.05);

  const cpu = cpuOrder(params);
  device.queue.writeBuffer(frame.orderBuffer(32), 0, cpu.values);
  const cpuPicture = await renderFrame(params, 'uploaded');
  let maxDiff = 0;
  for (let i = 0; i < cpuPicture.length; i++) maxDiff = Math.max(maxDiff, Math.abs(cpuPicture[i]! - gpuPicture[i]!));
  expect(maxDiff).toBeLessThanOrEqual(2);
});
