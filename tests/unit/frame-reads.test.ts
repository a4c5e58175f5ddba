/**
 * The frame's reads hand its GPU times to both auto measures
 * (src/app/frame/frame-reads.ts): the renderer's its render pass, the
 * order's the whole frame. A stand-in frame gives the times a device
 * would; the policies are the real ones.
 */
import { expect, test } from 'vitest';
import { FrameReads } from '../../src/app/frame/frame-reads';
import { PixelOrderPolicy } from '../../src/app/frame/pixel-order-policy';
import { RendererPolicy, type RendererScene } from '../../src/app/frame/renderer-policy';
import type { FrameTimings, SplatFrame } from '../../src/app/frame/splat-frame';

const SCENE: RendererScene = { sceneId: 1, width: 1920, height: 1080, timed: true };

test("the renderer is chosen by its render pass, the order by the whole frame: a per-pixel render 1.15× the centre-depth one in a frame 1.075× is kept", async () => {
  const renderers = new RendererPolicy();
  const orders = new PixelOrderPolicy();
  let next: FrameTimings = { project: null, sort: null, render: null };
  const frame = {
    timer: { enabled: true },
    readTimings: () => Promise.resolve({ ...next }),
    readDifference: () => null,
    readPainted: () => null,
  } as unknown as SplatFrame;
  const reads = new FrameReads(frame, renderers, orders);
  for (let k = 0; k < 60; k++) {
    const renderer = renderers.resolve('auto', SCENE);
    const order = orders.resolve('auto', renderer, SCENE, true);
    // Quads render in 5 ms; tiles in 1 ms, per pixel 1.15; the projector and the sort take 1 ms between them.
    const render = renderer.renderer === 'quads' ? 5 : order.order === 'per-pixel' ? 1.15 : 1;
    next = { project: 0.6, sort: 0.4, render };
    reads.afterSubmit('picture');
    await reads.last();
  }
  expect(renderers.choice).toMatchObject({ renderer: 'tiles', state: 'chosen', medianMs: { quads: 5, tiles: 1 } });
  expect(orders.choice).toMatchObject({ order: 'per-pixel', state: 'chosen', medianMs: { 'centre-depth': 2, 'per-pixel': 2.15 } });
});
