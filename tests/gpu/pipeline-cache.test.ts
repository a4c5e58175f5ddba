/**
 * One compiled pipeline per device for each description
 * (src/gpu/pipeline-cache.ts, src/gpu/shader.ts), on a real WebGPU device
 * (Dawn over SwiftShader): a second frame on the device, as a second viewer
 * on a page makes, compiles nothing and draws the same picture; a pipeline
 * that differs in its constants or targets is a pipeline of its own.
 */
import { beforeAll, expect, test, vi } from 'vitest';
import { SplatFrame } from '../../src/app/frame/splat-frame';
import { GpuSortOrder } from '../../src/app/frame/order/gpu-sort-order';
import { computePipeline, renderPipeline } from '../../src/gpu/pipeline-cache';
import { createCheckedShaderModule } from '../../src/gpu/shader';
import type { SplatCloud } from '../../src/scene/splat-cloud';
import { realScene, TEST_TARGET_FORMAT, useGpu } from '../support/gpu-fixture';
import { medianCentre, viewOf } from '../support/test-view';

const gpu = useGpu('pipeline-cache.test');
let cloud: SplatCloud;

beforeAll(async () => {
  cloud = await realScene('inria_kacytran_iter7000_9k_sh3.ply');
});

/** Counts the device's pipeline and shader module creations from now on. */
function countCreations(device: GPUDevice): () => number {
  const spies = [
    vi.spyOn(device, 'createComputePipelineAsync'),
    vi.spyOn(device, 'createRenderPipelineAsync'),
    vi.spyOn(device, 'createComputePipeline'),
    vi.spyOn(device, 'createShaderModule'),
  ];
  return () => spies.reduce((total, spy) => total + spy.mock.calls.length, 0);
}

test("a second frame on the device compiles nothing and draws the first frame's picture", async () => {
  const { device } = gpu;
  const created = countCreations(device);
  const first = gpu.own(await SplatFrame.create(device, TEST_TARGET_FORMAT));
  const order = gpu.own(await GpuSortOrder.create(device));
  const afterFirst = created();
  expect(afterFirst).toBeGreaterThan(5);
  const second = gpu.own(await SplatFrame.create(device, TEST_TARGET_FORMAT));
  const secondOrder = gpu.own(await GpuSortOrder.create(device));
  expect(created()).toBe(afterFirst);

  const scene = gpu.upload(cloud, 'pipeline-cache.scene');
  const params = viewOf(medianCentre(cloud), { splatCount: cloud.count, shDegree: 3 }, 32);
  first.setScene(scene);
  second.setScene(scene);
  const a = await gpu.render(first, params, order);
  const b = await gpu.render(second, params, secondOrder);
  expect(a.some((v, i) => i % 4 !== 3 && v !== a[0])).toBe(true);
  expect(Buffer.from(b).equals(Buffer.from(a))).toBe(true);
  vi.restoreAllMocks();
});

test('a description that differs in its constants or its targets is compiled apart; a label alone does not', async () => {
  const { device } = gpu;
  const code = 'override size: u32 = 1u;\n@compute @workgroup_size(1) fn main() { _ = size; }';
  const module = await createCheckedShaderModule(device, 'pipeline-cache.compute', code);
  expect(await createCheckedShaderModule(device, 'another label', code)).toBe(module);
  const one = await computePipeline(device, { label: 'one', layout: 'auto', compute: { module, entryPoint: 'main', constants: { size: 1 } } });
  expect(await computePipeline(device, { label: 'one again', layout: 'auto', compute: { module, entryPoint: 'main', constants: { size: 1 } } })).toBe(one);
  expect(await computePipeline(device, { layout: 'auto', compute: { module, entryPoint: 'main', constants: { size: 2 } } })).not.toBe(one);

  const drawCode = '@vertex fn vs() -> @builtin(position) vec4<f32> { return vec4<f32>(0.0); }\n@fragment fn fs() -> @location(0) vec4<f32> { return vec4<f32>(1.0); }';
  const draw = await createCheckedShaderModule(device, 'pipeline-cache.render', drawCode);
  const describe = (format: GPUTextureFormat): GPURenderPipelineDescriptor => ({ layout: 'auto', vertex: { module: draw, entryPoint: 'vs' }, fragment: { module: draw, entryPoint: 'fs', targets: [{ format }] } });
  const rgba = await renderPipeline(device, describe('rgba8unorm'));
  expect(await renderPipeline(device, describe('rgba8unorm'))).toBe(rgba);
  expect(await renderPipeline(device, describe('bgra8unorm'))).not.toBe(rgba);
});
