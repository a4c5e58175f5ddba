/**
 * The frame engine (src/app/frame/frame-engine.ts) on a real WebGPU device (Dawn over
 * SwiftShader in CI), with a synchronous CPU sort standing in for the
 * worker: the order each frame draws follows the policy through GPU → CPU →
 * frozen → a new scene; the CPU order draws the same picture as the GPU
 * sort; a frozen order asks for no new one; auto key bits measure and
 * settle; the renderer setting reaches the frame, and auto times both
 * renderers with the GPU timer and keeps one, again at a new frame size;
 * the per-pixel order and its view draw with tiles whatever the renderer
 * setting, and the report and the view's counts say what was drawn. (The scene session above it, previews included, is
 * tests/gpu/viewer.test.ts.)
 */
import { beforeAll, expect, test, vi } from 'vitest';
import { FrameEngine, type FrameSettings } from '../../src/app/frame/frame-engine';
import { SyncCpuOrder } from '../../src/sort/cpu-order-source';
import type { SplatCloud } from '../../src/scene/splat-cloud';
import type { SceneSource } from '../../src/app/frame/frame-source';
import type { DifferenceMeasure } from '../../src/render/splat-resolve';
import { readTextureRgba } from '../../src/gpu/readback';
import { realScene, TEST_TARGET_FORMAT, useGpu } from '../support/gpu-fixture';
import { AUTO_DECISIVE_RATIO, AUTO_TIMED_FRAMES, AUTO_WARMUP_FRAMES } from '../../src/app/frame/renderer-policy';
import { PER_PIXEL_MAX_COST } from '../../src/app/frame/pixel-order-policy';
import { coveredFraction, medianCentre, viewOf, VIEW_BACKGROUND, VIEW_HEIGHT, VIEW_WIDTH } from '../support/test-view';

const gpu = useGpu('frame-engine.test');
let cloud: SplatCloud;
let core: FrameEngine;
let cpu: SyncCpuOrder;
/** The scene on screen: the core shows scenes, their owner destroys them. */
let shown: SceneSource | null = null;
let target: GPUTexture;

beforeAll(async () => {
  cloud = await realScene('inria_kacytran_iter7000_9k_sh3.ply');
  cpu = new SyncCpuOrder();
  core = gpu.own(await FrameEngine.create(gpu.device, TEST_TARGET_FORMAT, () => cpu));
  target = gpu.own(gpu.device.createTexture({ size: [VIEW_WIDTH, VIEW_HEIGHT], format: TEST_TARGET_FORMAT, usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC }));
});

/** Shows `scene` in place of the one before, which is destroyed. */
function setScene(scene: SplatCloud, label: string): void {
  const before = shown;
  shown = gpu.own(core.showCloud(scene, label));
  gpu.release(before);
}

const settings = (change: Partial<FrameSettings> = {}): FrameSettings => ({ sortMode: 'gpu', keyBits: 32, freezeOrder: false, measureOrder: false, renderer: 'quads', ...change });

async function draw(s: FrameSettings): Promise<{ source: string; keyBits: number; pixels: Uint8Array }> {
  const params = viewOf(medianCentre(cloud), { splatCount: 0, shDegree: 3 }, 32);
  const report = core.drawFrame({ view: target.createView(), background: VIEW_BACKGROUND }, params, s);
  const { source } = report.choice;
  const keyBits = report.keyBits;
  const pixels = await readTextureRgba(gpu.device, target);
  return { source, keyBits, pixels };
}

const maxDiff = (a: Uint8Array, b: Uint8Array) => a.reduce((m, v, i) => Math.max(m, Math.abs(v - b[i]!)), 0);

test('no scene: the frame clears and says so', async () => {
  const { source, pixels } = await draw(settings());
  expect(source).toBe('none');
  expect(coveredFraction(pixels)).toBe(0);
});

test('an empty scene draws nothing and measures nothing, however often a measure is asked for', async () => {
  const empty: SplatCloud = { ...cloud, count: 0, positions: new Float32Array(0), scales: new Float32Array(0), rotations: new Float32Array(0), opacities: new Float32Array(0), dc: new Float32Array(0), sh: new Float32Array(0) };
  setScene(empty, 'core-empty');
  for (let k = 0; k < 3; k++) {
    const { source, pixels } = await draw(settings({ measureOrder: true }));
    expect(source).toBe('gpu-sort');
    expect(coveredFraction(pixels)).toBe(0);
  }
  await gpu.device.queue.onSubmittedWorkDone();
  await new Promise((resolve) => setImmediate(resolve));
  // No order was drawn, so no measure was recorded and none read.
  expect(core.orderError).toBeNull();
  expect(core.frame.measuring).toBe(false);
});

test('GPU → CPU → frozen → GPU → a new scene: each frame draws what the policy chose', async () => {
  setScene(cloud, 'core-test');
  const gpu = await draw(settings());
  expect(gpu.source).toBe('gpu-sort');
  expect(coveredFraction(gpu.pixels)).toBeGreaterThan(0.05);

  // The first CPU frame asks for an order and draws the GPU sort meanwhile; the next draws the CPU's.
  const waiting = await draw(settings({ sortMode: 'cpu-radix' }));
  expect(waiting.source).toBe('gpu-sort');
  expect(cpu.requests).toBe(1);
  const uploaded = await draw(settings({ sortMode: 'cpu-radix' }));
  expect(uploaded.source).toBe('uploaded');
  expect(maxDiff(uploaded.pixels, gpu.pixels)).toBeLessThanOrEqual(2);

  const frozen = await draw(settings({ sortMode: 'cpu-radix', freezeOrder: true }));
  expect(frozen.source).toBe('frozen');
  const requests = cpu.requests;
  await draw(settings({ sortMode: 'cpu-radix', freezeOrder: true }));
  expect(cpu.requests).toBe(requests); // frozen: no new CPU order asked for
  expect(Buffer.from(frozen.pixels).equals(Buffer.from(uploaded.pixels))).toBe(true);

  expect((await draw(settings())).source).toBe('gpu-sort');

  // A new scene: nothing to freeze yet, and the CPU order of the old one is not drawn.
  setScene(cloud, 'core-test-2');
  expect((await draw(settings({ freezeOrder: true }))).source).toBe('gpu-sort');
  setScene(cloud, 'core-test-3');
  expect((await draw(settings({ sortMode: 'cpu-radix' }))).source).toBe('gpu-sort');
});

test('auto key bits: starts exact and, measured, settles below 32 on this small view', async () => {
  setScene(cloud, 'core-auto');
  const widths = new Set<number>();
  // Measuring every frame feeds auto every frame (on its own it measures every AUTO_MEASURE_INTERVAL frames).
  for (let k = 0; k < 40 && !(widths.has(16) || widths.has(24)); k++) {
    const { keyBits } = await draw(settings({ keyBits: 'auto', measureOrder: true }));
    widths.add(keyBits);
    await gpu.device.queue.onSubmittedWorkDone();
    await new Promise((resolve) => setImmediate(resolve)); // lets the measure's read settle
  }
  expect(widths.has(32)).toBe(true);
  expect(widths.has(24) || widths.has(16)).toBe(true);
  expect(core.orderError).not.toBeNull();
  expect(core.orderError!.pairs).toBeGreaterThan(1000);
});

test('the sort difference view: the picture until its sort is made, then zero for the exact order and the CPU order of the same camera', async () => {
  setScene(cloud, 'core-difference');
  const first = await draw(settings({ view: 'difference' }));
  // The view's second sort is being made: this frame shows the picture.
  expect(first.source).toBe('gpu-sort');
  expect(coveredFraction(first.pixels)).toBeGreaterThan(0.05);
  const measured = async (s: FrameSettings) => {
    core.reads.difference = null;
    for (let frames = 0; core.reads.difference === null; frames++) {
      if (frames > 100) throw new Error(`no difference measure after 100 frames (${core.frame.viewError ?? 'no error'})`);
      await draw(s);
      await gpu.device.queue.onSubmittedWorkDone();
      await new Promise((resolve) => setImmediate(resolve));
    }
    return core.reads.difference;
  };
  expect(await measured(settings({ view: 'difference' }))).toMatchObject({ pixels: 0, largest: 0 });
  // The camera does not move, so the CPU's order (uploaded) is as exact as the GPU's.
  expect(await measured(settings({ view: 'difference', sortMode: 'cpu-radix' }))).toMatchObject({ pixels: 0 });
  expect(core.frame.viewError).toBeNull();
});

test('the renderer: a set one draws every frame; auto draws both in turn, timed on the GPU, keeps the faster, and measures again at a new size', async () => {
  setScene(cloud, 'core-renderer');
  const params = viewOf(medianCentre(cloud), { splatCount: 0, shDegree: 3 }, 32);
  const drawTo = (texture: GPUTexture, s: FrameSettings) => core.drawFrame({ view: texture.createView(), background: VIEW_BACKGROUND }, params, s);
  // Quads until the tile renderer is made (the first frame asking for it starts that).
  expect(drawTo(target, settings({ renderer: 'tiles' })).renderer).toMatchObject({ renderer: 'quads', state: 'set' });
  expect(core.frame.drawnWith).toBe('quads');
  await core.lastFrameResults();
  await core.prepareRenderer('tiles');
  expect(drawTo(target, settings({ renderer: 'tiles' })).renderer).toMatchObject({ renderer: 'tiles', state: 'set' });
  expect(core.shownRenderer).toBe('tiles');
  expect(core.frame.drawnWith).toBe('tiles');
  await core.lastFrameResults();
  // Once made, a frame asks nothing more of the painter: no preparation (a promise) on every frame.
  const preparing = vi.spyOn(core, 'prepareRenderer');
  drawTo(target, settings({ renderer: 'tiles' }));
  expect(preparing).not.toHaveBeenCalled();
  preparing.mockRestore();
  await core.lastFrameResults();

  /** Draws on auto until it stops measuring, each frame waited for (so each is timed); the renderers that drew while it measured. */
  const measure = async (texture: GPUTexture): Promise<string[]> => {
    const drawn: string[] = [];
    for (let k = 0; k < 40; k++) {
      const { renderer } = drawTo(texture, settings({ renderer: 'auto' }));
      const state = renderer.state;
      drawn.push(renderer.renderer);
      const { timings } = await core.lastFrameResults();
      expect(timings?.render).toBeGreaterThan(0);
      if (state !== 'measuring') return drawn.slice(0, -1);
    }
    throw new Error(`auto still measuring after 40 frames: ${drawn.join(' ')}`);
  };
  /**
   * Frames a measure takes: every frame timed, the warm-up and the timed
   * frames of each in turn; fewer only when the first times were decisive
   * (then the medians are those first times, that far apart).
   */
  const expectMeasure = (drawn: string[], medianMs: Readonly<Record<string, number | null>>) => {
    const [quads, tiles] = [medianMs.quads!, medianMs.tiles!];
    if (drawn.length !== 2 * (AUTO_WARMUP_FRAMES + AUTO_TIMED_FRAMES)) {
      expect(drawn.length).toBeLessThanOrEqual(4);
      expect(Math.max(quads, tiles)).toBeGreaterThanOrEqual(AUTO_DECISIVE_RATIO * Math.min(quads, tiles));
    }
    expect(drawn.slice(0, 2)).toEqual(['quads', 'tiles']);
  };
  const drawn = await measure(target);
  const choice = drawTo(target, settings({ renderer: 'auto' })).renderer;
  expectMeasure(drawn, choice.medianMs);
  const { quads, tiles } = choice.medianMs;
  expect(quads).toBeGreaterThan(0);
  expect(tiles).toBeGreaterThan(0);
  expect(choice).toMatchObject({ state: 'chosen', renderer: tiles! < quads! ? 'tiles' : 'quads' });
  expect(core.shownRenderer).toBe(choice.renderer);
  await core.lastFrameResults();

  // Half the size: measured again.
  const half = gpu.own(gpu.device.createTexture({ size: [VIEW_WIDTH / 2, VIEW_HEIGHT / 2], format: TEST_TARGET_FORMAT, usage: GPUTextureUsage.RENDER_ATTACHMENT }));
  [params.width, params.height] = [VIEW_WIDTH / 2, VIEW_HEIGHT / 2];
  const again = await measure(half);
  const halfChoice = drawTo(half, settings({ renderer: 'auto' })).renderer;
  expect(halfChoice.state).toBe('chosen');
  expectMeasure(again, halfChoice.medianMs);
  await core.lastFrameResults();
});

test('the order: per pixel is drawn with tiles whatever the renderer setting (auto measures nothing), the per-pixel order view with tiles too; the report says the order the frame drew', async () => {
  setScene(cloud, 'core-order');
  const params = viewOf(medianCentre(cloud), { splatCount: 0, shDegree: 3 }, 32);
  await core.prepareRenderer('tiles', true);
  const encode = vi.spyOn(core.frame, 'encode');
  /** One frame: its report, and the options the frame was handed (read at once: the core reuses them). */
  const drawWith = async (s: FrameSettings) => {
    const report = core.drawFrame({ view: target.createView(), background: VIEW_BACKGROUND }, params, s);
    const options = { ...encode.mock.lastCall![4] };
    const renderer = { ...report.renderer };
    const order = report.order;
    await core.lastFrameResults();
    return { renderer, order, options };
  };
  try {
    for (const renderer of ['auto', 'quads', 'tiles'] as const) {
      const perPixel = await drawWith(settings({ renderer, order: 'per-pixel' }));
      expect(perPixel.renderer).toMatchObject({ renderer: 'tiles', state: 'set' });
      expect(perPixel.options).toMatchObject({ renderer: 'tiles', order: 'per-pixel', view: 'picture' });
      expect(perPixel.order).toBe(core.frame.drawnOrder);
    }
    const centre = await drawWith(settings({ renderer: 'quads', order: 'centre-depth' }));
    expect(centre.options).toMatchObject({ renderer: 'quads', order: 'centre-depth' });
    expect(centre.order).toBe('centre-depth');
    // The view of both orders is the tile renderer's, whatever the renderer setting.
    const view = await drawWith(settings({ renderer: 'quads', view: 'pixel-order' }));
    expect(view.options).toMatchObject({ renderer: 'tiles', view: 'pixel-order', order: 'centre-depth' });
    expect(view.renderer).toMatchObject({ renderer: 'tiles', state: 'set' });
    expect(core.shownView).toBe('pixel-order');
    expect(core.frame.viewError).toBeNull();
  } finally {
    encode.mockRestore();
  }
});

test("the order's auto: centre depths while the renderer is measured, set, or quads; where auto chose tiles, both orders drawn in turn and timed whole, the per-pixel order kept only within PER_PIXEL_MAX_COST", async () => {
  setScene(cloud, 'core-order-auto');
  const params = viewOf(medianCentre(cloud), { splatCount: 0, shDegree: 3 }, 32);
  const drawWith = async (s: FrameSettings) => {
    const report = core.drawFrame({ view: target.createView(), background: VIEW_BACKGROUND }, params, s);
    const drawn = { renderer: { ...report.renderer }, order: report.order, choice: { ...report.orderChoice, medianMs: { ...report.orderChoice.medianMs } } };
    const { timings } = await core.lastFrameResults();
    return { ...drawn, timings };
  };
  // A renderer set: nothing measured, centre depths.
  const set = await drawWith(settings({ renderer: 'tiles', order: 'auto' }));
  expect(set).toMatchObject({ order: 'centre-depth', choice: { order: 'centre-depth', state: 'renderer-set' } });

  const orders = new Set<string>();
  let last = set;
  for (let k = 0; k < 120; k++) {
    last = await drawWith(settings({ renderer: 'auto', order: 'auto' }));
    expect(last.order).toBe(last.choice.order);
    if (last.renderer.state === 'measuring') expect(last.choice).toMatchObject({ order: 'centre-depth', state: 'waiting' });
    if (last.choice.state === 'measuring') {
      orders.add(last.order);
      // Timed whole: the projector's and the sort's passes ran in both orders.
      expect(last.timings?.project).toBeGreaterThan(0);
    }
    // The per-pixel raster is made in the background once tiles are chosen: waited for here, as the render command waits.
    if (last.choice.state === 'waiting' && last.renderer.state === 'chosen') await core.prepareRenderer('tiles', true);
    if (last.renderer.state !== 'measuring' && last.choice.state !== 'waiting' && last.choice.state !== 'measuring') break;
  }
  if (last.renderer.renderer === 'quads') {
    expect(last.choice).toMatchObject({ order: 'centre-depth', state: 'quads' });
    expect(orders.size).toBe(0);
  } else {
    expect(orders).toEqual(new Set(['centre-depth', 'per-pixel']));
    const { 'centre-depth': centre, 'per-pixel': pixel } = last.choice.medianMs;
    expect(centre).toBeGreaterThan(0);
    expect(pixel).toBeGreaterThan(0);
    expect(last.choice).toMatchObject({ state: 'chosen', order: pixel! <= PER_PIXEL_MAX_COST * centre! ? 'per-pixel' : 'centre-depth' });
  }
  console.log(`the order's auto here: renderer ${last.renderer.renderer} (${last.renderer.state}), order ${last.choice.order} (${last.choice.state}; ${JSON.stringify(last.choice.medianMs)})`);
});

test('the per-pixel order drawn by the tile renderer: the report says so, and its view counts the pixels the two orders differ in, with the view counted', async () => {
  setScene(cloud, 'core-per-pixel');
  const params = viewOf(medianCentre(cloud), { splatCount: 0, shDegree: 3 }, 32);
  await core.prepareRenderer('tiles', true);
  const report = core.drawFrame({ view: target.createView(), background: VIEW_BACKGROUND }, params, settings({ renderer: 'quads', order: 'per-pixel' }));
  expect(report.order).toBe('per-pixel');
  await core.lastFrameResults();
  core.reads.difference = null;
  const counted: string[] = [];
  core.reads.onDifference = (_, view) => counted.push(view);
  // Read through a call: the count arrives in a callback, after `core.reads.difference = null` above.
  const counts = (): DifferenceMeasure | null => core.reads.difference;
  let m: DifferenceMeasure | null = null;
  for (let frames = 0; m === null; frames++) {
    if (frames > 20) throw new Error(`no count of the per-pixel order view after 20 frames (${core.frame.viewError ?? 'no error'})`);
    core.drawFrame({ view: target.createView(), background: VIEW_BACKGROUND }, params, settings({ view: 'pixel-order' }));
    await core.lastFrameResults();
    await new Promise((resolve) => setImmediate(resolve));
    m = counts();
  }
  expect(core.reads.differenceView).toBe('pixel-order');
  expect(counted[0]).toBe('pixel-order');
  // Inside a real scene some overlapping splats' depths along a ray disagree with their centres' order.
  expect(m.pixels).toBeGreaterThan(0);
  expect(m.pixels).toBeLessThanOrEqual(VIEW_WIDTH * VIEW_HEIGHT);
});
