/**
 * A real scene through the viewer's frame on a real WebGPU device (Dawn over
 * SwiftShader in CI): projector → GPU radix sort → render. The GPU order
 * holds the kept splats back to front, exactly at 32 bits and within one
 * key step of the visible depth range at 16; it agrees with the CPU sort
 * path; the picture is not blank and does not depend on which path sorted
 * it; the ordering-error measure sees what the order is.
 */
import { beforeAll, expect, test } from 'vitest';
import { readBufferU32 } from '../../src/gpu/readback';
import { OrbitCamera } from '../../src/app/camera/orbit-camera';
import { mat4, vec3 } from 'gl-matrix';
import { robustBounds } from '../../src/scene/splat-cloud';
import type { GpuSplats } from '../../src/scene/gpu-splats';
import type { SplatFrame } from '../../src/app/frame/splat-frame';
import type { DrawOrder } from '../../src/app/frame/order/draw-order';
import type { GpuSortOrder } from '../../src/app/frame/order/gpu-sort-order';
import type { UploadedOrder } from '../../src/app/frame/order/uploaded-order';
import { VISIBLE_STATE } from '../../src/render/frame-layouts';
import { CpuRadixSort } from '../../src/sort/cpu-sort';
import { computeDepthKeys } from '../../src/sort/cpu-depth-keys';
import type { FrameParameters } from '../../src/render/frame-uniforms';
import type { OrderErrorMeasure } from '../../src/render/order-error-pass';
import type { SplatCloud } from '../../src/scene/splat-cloud';
import { cpuKeptDepths } from '../support/cpu-cull';
import { realScene, useGpu } from '../support/gpu-fixture';
import { coveredFraction, medianCentre, viewOf, VIEW_HEIGHT, VIEW_WIDTH } from '../support/test-view';

const gpu = useGpu('splat-frame.test');
let cloud: SplatCloud;
let frame: SplatFrame;
let gpuOrder: GpuSortOrder;
let uploaded: UploadedOrder;
let scene: GpuSplats;

beforeAll(async () => {
  cloud = await realScene('inria_kacytran_iter7000_9k_sh3.ply');
  [frame, gpuOrder] = await Promise.all([gpu.frame(), gpu.gpuOrder()]);
  uploaded = gpu.uploadedOrder();
  scene = gpu.upload(cloud, 'splatFrameTest.scene');
  frame.setScene(scene);
});

/** The test view of the scene's median point. */
function parameters(keyBits: number): FrameParameters {
  return viewOf(medianCentre(cloud), { splatCount: cloud.count, shDegree: 3 }, keyBits);
}

async function renderFrame(params: FrameParameters, order: DrawOrder, measure = false): Promise<{ pixels: Uint8Array; error: OrderErrorMeasure | null }> {
  const pixels = await gpu.render(frame, params, order, { measure });
  return { pixels, error: measure ? await frame.readOrderError() : null };
}

/** The GPU sort's result for `keyBits`: the kept splats' indices and keys, in draw order. */
async function gpuResult(keyBits: number): Promise<{ order: Uint32Array; keys: Uint32Array }> {
  const visible = (await readBufferU32(gpu.device, frame.projector.state!, VISIBLE_STATE.size / 4))[VISIBLE_STATE.word('visible')]!;
  const result = gpuOrder.sorter.resultBuffers(keyBits);
  return { order: await readBufferU32(gpu.device, result.values, visible), keys: await readBufferU32(gpu.device, result.keys, visible) };
}

/** The CPU sort path's order of every splat (float-bit keys, stable). */
function cpuOrder(params: FrameParameters): Uint32Array {
  const keys = new Uint32Array(cloud.count);
  const values = new Uint32Array(cloud.count);
  computeDepthKeys(cloud.positions, cloud.count, params.view, params.keyBits, keys, values);
  new CpuRadixSort(cloud.count).sort(keys, values, cloud.count, params.keyBits);
  return values;
}

test('32-bit keys: the GPU order holds exactly the kept splats, back to front, as the CPU path orders them', async () => {
  const params = parameters(32);
  await renderFrame(params, gpuOrder);
  const { order } = await gpuResult(32);
  const kept = cpuKeptDepths(cloud, params);
  expect(order.length).toBe(kept.filter((d) => d !== null).length);
  expect(order.length).toBeGreaterThan(1000);
  const depth = (i: number) => kept[i]!;
  for (let k = 1; k < order.length; k++) {
    if (kept[order[k]!] === null) expect.fail(`draw ${k} is splat ${order[k]}, which the rule culls`);
    const a = depth(order[k - 1]!), b = depth(order[k]!);
    if (!(a >= b - 1e-5 * b)) expect.fail(`draw ${k - 1} (depth ${a}) is in front of draw ${k} (depth ${b})`);
  }
  // Ties aside (equal depths up to a fused multiply-add), the CPU path's
  // order of all splats, with the culled ones left out, is the same.
  const cpu = cpuOrder(params).filter((i) => kept[i] !== null);
  let same = 0;
  for (let k = 0; k < order.length; k++) if (cpu[k] === order[k]) same++;
  expect(same / order.length).toBeGreaterThan(0.99);
});

test('16-bit keys span the visible depth range: ascending, every value used up to the farthest, within one step', async () => {
  const params = parameters(16);
  await renderFrame(params, gpuOrder);
  const { order, keys } = await gpuResult(16);
  const kept = cpuKeptDepths(cloud, params);
  const depths = Array.from(order, (i) => kept[i]!);
  const range = Math.max(...depths) - Math.min(...depths);
  expect(keys[0]).toBe(0);
  expect(keys[keys.length - 1]).toBe(0xffff);
  for (let k = 1; k < order.length; k++) {
    expect(keys[k]! >= keys[k - 1]!).toBe(true);
    // An inversion only inside one key step (range / 65536), plus f32 rounding.
    if (depths[k]! > depths[k - 1]! + range / 65536 + 1e-6 * depths[k]!) expect.fail(`draws ${k - 1}, ${k} inverted by ${depths[k]! - depths[k - 1]!}`);
  }
});

test('the picture is not blank; the CPU order, uploaded, and the frozen order give the same picture', async () => {
  const params = parameters(32);
  const gpu = await renderFrame(params, gpuOrder);
  expect(coveredFraction(gpu.pixels)).toBeGreaterThan(0.05);
  uploaded.upload(cpuOrder(params), cloud.count);
  const cpu = await renderFrame(params, uploaded);
  const frozen = await renderFrame(params, frame.frozen);
  let maxDiff = 0;
  for (let i = 0; i < cpu.pixels.length; i++) maxDiff = Math.max(maxDiff, Math.abs(cpu.pixels[i]! - gpu.pixels[i]!));
  expect(maxDiff).toBeLessThanOrEqual(2);
  // Frozen re-draws the last order drawn: the CPU's.
  expect(Buffer.from(frozen.pixels).equals(Buffer.from(cpu.pixels))).toBe(true);
});

test('the ordering error: none at 32 bits, inversions within one step at 16, and the float-bit 16-bit order far worse', async () => {
  const exact = (await renderFrame(parameters(32), gpuOrder, true)).error!;
  const adaptive = (await renderFrame(parameters(16), gpuOrder, true)).error!;
  uploaded.upload(cpuOrder(parameters(16)), cloud.count);
  const floatBits = (await renderFrame(parameters(16), uploaded, true)).error!;
  const show = (m: OrderErrorMeasure) => `${m.inverted} of ${m.pairs} pairs inverted (${(100 * m.invertedFraction).toFixed(2)} %), ${m.beyond} beyond 2^-16 of the range, largest ${m.largest.toExponential(2)}`;
  console.log(`9k scene, median view: 32-bit: ${show(exact)}; adaptive 16-bit: ${show(adaptive)}; float-bit 16-bit: ${show(floatBits)}`);
  expect(exact.pairs).toBeGreaterThan(1000);
  expect(exact.inverted).toBe(0);
  expect(adaptive.pairs).toBe(exact.pairs);
  expect(adaptive.beyond).toBe(0);
  expect(adaptive.largest).toBeLessThanOrEqual(1 / 65536);
  expect(floatBits.inverted).toBeGreaterThan(4 * adaptive.inverted);
  expect(floatBits.largest).toBeGreaterThan(100 * adaptive.largest);
});

test('a second real scene (the 152k-splat biker, the viewer\'s first view): no inversion beyond a 16-bit step, where float-bit keys leave most pairs beyond', async () => {
  const biker = await realScene('playcanvas_biker_v4.spz');
  const bikerScene = gpu.upload(biker, 'splatFrameTest.biker');
  try {
    frame.setScene(bikerScene);
    const camera = new OrbitCamera({ yaw: 0.6, pitch: 0.3 });
    camera.setUp([0, -1, 0]);
    camera.frame(robustBounds(biker.positions, biker.count), VIEW_WIDTH / VIEW_HEIGHT);
    const params: FrameParameters = {
      view: camera.viewMatrix(mat4.create()), projection: camera.projectionMatrix(mat4.create(), VIEW_WIDTH / VIEW_HEIGHT), eye: camera.eye(vec3.create()),
      fovY: camera.fovY, width: VIEW_WIDTH, height: VIEW_HEIGHT, splatScale: 1, keyBits: 16, splatCount: biker.count, shDegree: 0,
    };
    const adaptive = (await renderFrame(params, gpuOrder, true)).error!;
    const keys = new Uint32Array(biker.count);
    const values = new Uint32Array(biker.count);
    computeDepthKeys(biker.positions, biker.count, params.view, 16, keys, values);
    new CpuRadixSort(biker.count).sort(keys, values, biker.count, 16);
    uploaded.upload(values, biker.count);
    const floatBits = (await renderFrame(params, uploaded, true)).error!;
    const show = (m: OrderErrorMeasure) => `${m.inverted} of ${m.pairs} pairs inverted (${(100 * m.invertedFraction).toFixed(2)} %), ${m.beyond} beyond a 16-bit step, largest ${m.largest.toExponential(2)}`;
    console.log(`biker, first view: adaptive 16-bit: ${show(adaptive)}; float-bit 16-bit: ${show(floatBits)}`);
    // 152k splats on 65,536 steps: many share a step, and half of those
    // pairs are inverted (measured: 32 % of pairs, against 54 % for
    // float-bit keys); but none by more than a step, where float-bit keys,
    // whose steps grow with the depth, leave most pairs (81,347 of 152,091,
    // the largest 1.1e-2 of the range).
    expect(adaptive.pairs).toBeGreaterThan(100_000);
    expect(adaptive.beyond).toBe(0);
    expect(adaptive.invertedFraction).toBeLessThan(floatBits.invertedFraction);
    expect(floatBits.beyond).toBeGreaterThan(floatBits.pairs / 2);
    expect(floatBits.largest).toBeGreaterThan(100 * adaptive.largest);
  } finally {
    frame.setScene(scene);
    gpu.release(bikerScene);
  }
});
