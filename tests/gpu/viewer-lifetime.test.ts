/**
 * A Viewer frees what it made (src/app/viewer.ts destroy), on a real WebGPU
 * device (Dawn over SwiftShader): every buffer, texture and query set made
 * while a Viewer opens a scene and draws it every way it can (quads,
 * tiles, the per-pixel order and its view, the sort difference view, the
 * CPU sort) is destroyed with it, cycle after cycle; and so is what a
 * viewer destroyed while its tile renderer was still being made would
 * have got when that arrives. Compiled pipelines
 * are not counted: one per description lives as long as the device, shared
 * by every viewer on it (src/gpu/pipeline-cache.ts).
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createNodeGpuContext } from '../../src/gpu/node-gpu';
import type { GpuContext } from '../../src/gpu/device';
import { Viewer } from '../../src/app/viewer';
import { loadScenePath } from '../../src/app/node-viewer';
import { createOffscreenTarget, OFFSCREEN_FORMAT } from '../../src/app/frame/offscreen-render';
import type { FrameSettings } from '../../src/app/frame/frame-settings';
import { scenePath } from '../shared-scenes';

let gpu: GpuContext;
/** Every GPU object with a destroy() made on the device, and whether it was destroyed. */
const live = new Set<{ destroy(): void }>();

beforeAll(async () => {
  gpu = await createNodeGpuContext('viewer-lifetime.test');
  const device = gpu.device as unknown as Record<string, (...args: unknown[]) => { destroy(): void }>;
  for (const method of ['createBuffer', 'createTexture', 'createQuerySet']) {
    const make = device[method]!.bind(device);
    device[method] = (...args: unknown[]) => {
      const made = make(...args);
      const destroy = made.destroy.bind(made);
      live.add(made);
      made.destroy = () => {
        live.delete(made);
        destroy();
      };
      return made;
    };
  }
});

afterAll(() => gpu?.device.destroy());

/** One viewer's life: a scene opened and drawn every way, then destroyed. */
async function viewerCycle(): Promise<void> {
  const viewer = await Viewer.create<string>(gpu.device, OFFSCREEN_FORMAT, { load: loadScenePath });
  expect(await viewer.open(scenePath('inria_kacytran_iter7000_9k_sh3.ply'), { name: '9k' })).toBe('opened');
  const target = createOffscreenTarget(gpu.device, 'viewer-lifetime.window', 96, 64, OFFSCREEN_FORMAT);
  const ways: Partial<FrameSettings>[] = [
    { renderer: 'quads' },
    { renderer: 'tiles' },
    { renderer: 'tiles', order: 'per-pixel' },
    { renderer: 'tiles', view: 'pixel-order' },
    { renderer: 'quads', view: 'difference' },
    { renderer: 'quads', sortMode: 'cpu-radix', view: 'picture', order: 'centre-depth' },
  ];
  for (const way of ways) {
    Object.assign(viewer.settings, way);
    await viewer.core.prepareRenderer(viewer.settings.renderer, viewer.settings.order === 'per-pixel' || viewer.settings.view === 'pixel-order');
    if (viewer.settings.view === 'difference') await viewer.prepareDifferenceView();
    for (let i = 0; i < 3; i++) {
      viewer.drawFrame(target.createView(), 96, 64, 1 / 60);
      await viewer.core.lastFrameResults();
    }
  }
  await viewer.capture(48, 32);
  target.destroy();
  viewer.destroy();
  await gpu.device.queue.onSubmittedWorkDone();
}

test('a viewer that opened a scene and drew it every way leaves no buffer, texture or query set behind, cycle after cycle', async () => {
  await viewerCycle();
  expect([...live].map((o) => (o as { label?: string }).label), 'GPU objects left by the first viewer').toEqual([]);
  await viewerCycle();
  expect(live.size, 'GPU objects left after a second viewer').toBe(0);
});

test('a viewer destroyed while its tile renderer is being made keeps nothing of it when it arrives', async () => {
  const viewer = await Viewer.create<string>(gpu.device, OFFSCREEN_FORMAT, { load: loadScenePath });
  const made = viewer.core.prepareRenderer('tiles', true);
  viewer.destroy();
  await made;
  await gpu.device.queue.onSubmittedWorkDone();
  expect([...live].map((o) => (o as { label?: string }).label), 'GPU objects left').toEqual([]);
});
