/**
 * How a frame is composed after the sort: the splats are blended into a
 * float target and resolved once (a deep stack of faint splats keeps its
 * value, where blending straight into 8 bits stalls several levels short),
 * and the sort difference view shows where the order on screen changes the
 * picture against the exact order of the same frame: nothing with the exact
 * order, the pixels a stale (frozen) order gets wrong after the camera turns.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { readFileSync } from 'node:fs';
import { mat4, vec3 } from 'gl-matrix';
import { createNodeGpuContext } from '../../src/gpu/node-gpu';
import { parseSplatPly } from '../../src/io/ply';
import { GpuSplats } from '../../src/scene/gpu-splats';
import { allocateSplatCloud, computeBounds, SH_C0, type SplatCloud } from '../../src/scene/splat-cloud';
import { SplatFrame, type FrameEncodeOptions } from '../../src/app/splat-frame';
import type { DrawOrder } from '../../src/app/draw-order';
import { GpuSortOrder } from '../../src/app/gpu-sort-order';
import type { Accumulation } from '../../src/render/accumulation-target';
import type { FrameParameters } from '../../src/render/frame-uniforms';
import { scenePath } from '../shared-scenes';
import { medianCentre, viewOf, VIEW_BACKGROUND, VIEW_BYTES_PER_ROW, VIEW_HEIGHT, VIEW_WIDTH } from '../support/test-view';

let device: GPUDevice;
let order: GpuSortOrder;

beforeAll(async () => {
  ({ device } = await createNodeGpuContext('frame-views.test'));
  order = await GpuSortOrder.create(device);
});

afterAll(() => {
  order?.destroy();
  device?.destroy();
});

/** Renders one frame into an rgba8unorm target of the parameters' size and reads it back (rows of `bytesPerRow`). */
async function render(frame: SplatFrame, params: FrameParameters, drawOrder: DrawOrder, options: FrameEncodeOptions = {}): Promise<{ pixels: Uint8Array; bytesPerRow: number }> {
  const { width, height } = params;
  const target = device.createTexture({ size: [width, height], format: 'rgba8unorm', usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC });
  const bytesPerRow = Math.ceil((4 * width) / 256) * 256;
  const readback = device.createBuffer({ size: bytesPerRow * height, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
  const encoder = device.createCommandEncoder();
  frame.encode(encoder, params, { view: target.createView(), background: VIEW_BACKGROUND }, drawOrder, options);
  encoder.copyTextureToBuffer({ texture: target }, { buffer: readback, bytesPerRow }, [width, height]);
  device.queue.submit([encoder.finish()]);
  await readback.mapAsync(GPUMapMode.READ);
  const pixels = new Uint8Array(readback.getMappedRange().slice(0));
  readback.destroy();
  target.destroy();
  return { pixels, bytesPerRow };
}

describe('float accumulation', () => {
  // 64 splats straight ahead, one behind the other, all of colour 0.75 and
  // opacity 1/16 at their centre (both exact in the records' f16), over a
  // background of 0.1 in red: the centre pixel's red is c + (bg − c)(1 − o)^64 in exact
  // arithmetic, 2.7 levels below c. Blending into 8 bits stops moving once
  // a layer adds under half a level, (c − dst)·o < 0.5/255: 8 levels short.
  const LAYERS = 64;
  const COLOUR = 0.75;
  const OPACITY = 1 / 16;
  const SIZE = 33; // odd: the centre pixel's centre is the splats' centre
  let stack: GpuSplats;

  beforeAll(() => {
    const cloud = allocateSplatCloud(LAYERS, 0);
    for (let i = 0; i < LAYERS; i++) {
      cloud.positions.set([0, 0, -5 - 0.01 * i], 3 * i);
      cloud.scales.set([0.5, 0.5, 0.5], 3 * i);
      cloud.rotations.set([1, 0, 0, 0], 4 * i);
      cloud.opacities[i] = OPACITY;
      cloud.dc.fill((COLOUR - 0.5) / SH_C0, 3 * i, 3 * i + 3);
    }
    cloud.bounds = computeBounds(cloud.positions, LAYERS);
    stack = new GpuSplats(device, cloud, 'frame-views.stack');
  });

  afterAll(() => stack?.destroy());

  function stackView(): FrameParameters {
    const fovY = Math.PI / 3;
    return {
      view: mat4.lookAt(mat4.create(), [0, 0, 0], [0, 0, -1], [0, 1, 0]),
      projection: mat4.perspectiveZO(mat4.create(), fovY, 1, 0.01, Infinity),
      eye: vec3.fromValues(0, 0, 0),
      fovY,
      width: SIZE,
      height: SIZE,
      splatCount: LAYERS,
      shDegree: 0,
      splatScale: 1,
      keyBits: 32,
    };
  }

  async function centreLevel(accumulation: Accumulation): Promise<number> {
    const frame = await SplatFrame.create(device, 'rgba8unorm', { accumulation });
    try {
      frame.setScene(stack);
      const { pixels, bytesPerRow } = await render(frame, stackView(), order);
      const centre = (SIZE >> 1) * bytesPerRow + 4 * (SIZE >> 1);
      return pixels[centre]!; // red: the background's 0.1 under it
    } finally {
      frame.destroy();
    }
  }

  const exactLevel = 255 * (COLOUR + (VIEW_BACKGROUND[0] - COLOUR) * (1 - OPACITY) ** LAYERS);

  test('rgba16float keeps a deep stack within one level of exact arithmetic; blending straight into 8 bits does not', async () => {
    const float = await centreLevel('rgba16float');
    const direct = await centreLevel('direct');
    console.log(`64 layers of opacity 1/16: exact ${exactLevel.toFixed(2)} levels, rgba16float ${float}, direct rgba8unorm ${direct}`);
    expect(Math.abs(float - exactLevel)).toBeLessThanOrEqual(1);
    expect(Math.abs(direct - exactLevel)).toBeGreaterThanOrEqual(3);
  });

  test('rgb10a2unorm, four times finer than 8 bits, stalls within a level and a half', async () => {
    expect(Math.abs((await centreLevel('rgb10a2unorm')) - exactLevel)).toBeLessThanOrEqual(1.5);
  });

  test('rgba32float where the device can blend it; otherwise a clear refusal', async () => {
    if (device.features.has('float32-blendable')) {
      expect(Math.abs((await centreLevel('rgba32float')) - exactLevel)).toBeLessThanOrEqual(1);
    } else {
      await expect(SplatFrame.create(device, 'rgba8unorm', { accumulation: 'rgba32float' })).rejects.toThrow(/float32-blendable/);
    }
  });
});

describe('the sort difference view', () => {
  let cloud: SplatCloud;
  let scene: GpuSplats;
  let frame: SplatFrame;

  beforeAll(async () => {
    cloud = parseSplatPly(readFileSync(scenePath('inria_kacytran_iter7000_9k_sh3.ply')));
    scene = new GpuSplats(device, cloud, 'frame-views.scene');
    frame = await SplatFrame.create(device, 'rgba8unorm');
    frame.setScene(scene);
  });

  afterAll(() => {
    scene?.destroy();
    frame?.destroy();
  });

  /** The test view, or the same centre seen from an eye turned about it. */
  function view(turned: boolean): FrameParameters {
    const centre = medianCentre(cloud);
    const params = viewOf(centre, { splatCount: cloud.count, shDegree: 3 }, 32);
    if (turned) {
      const eye = vec3.add(vec3.create(), centre, vec3.fromValues(-4, -1, -5));
      params.eye = eye;
      params.view = mat4.lookAt(mat4.create(), eye, centre, vec3.fromValues(0, -1, 0));
    }
    return params;
  }

  /** Pixels of the heat map that are not grey (coloured as a difference). */
  function colouredPixels(pixels: Uint8Array): number {
    let n = 0;
    for (let y = 0; y < VIEW_HEIGHT; y++) {
      for (let x = 0; x < VIEW_WIDTH; x++) {
        const p = y * VIEW_BYTES_PER_ROW + 4 * x;
        if (pixels[p] !== pixels[p + 1] || pixels[p + 1] !== pixels[p + 2]) n++;
      }
    }
    return n;
  }

  test('is refused before it is prepared', () => {
    const encoder = device.createCommandEncoder();
    const target = device.createTexture({ size: [VIEW_WIDTH, VIEW_HEIGHT], format: 'rgba8unorm', usage: GPUTextureUsage.RENDER_ATTACHMENT });
    expect(() => frame.encode(encoder, view(false), { view: target.createView(), background: VIEW_BACKGROUND }, order, { view: 'difference' })).toThrow(/prepareDifferenceView/);
    target.destroy();
  });

  test('all zero when the order is exact; the pixels a frozen order gets wrong after the camera turns', async () => {
    await frame.prepareDifferenceView();
    const exact = await render(frame, view(false), order, { view: 'difference' });
    const exactMeasure = await frame.readDifference();
    expect(exactMeasure).toMatchObject({ pixelCount: VIEW_WIDTH * VIEW_HEIGHT, pixels: 0, largest: 0 });
    expect(colouredPixels(exact.pixels)).toBe(0);
    // The heat map's grey is the scene, dimmed: not an empty picture.
    expect(exact.pixels.some((v, i) => i % 4 !== 3 && v > 10)).toBe(true);

    const turned = view(true);
    const fresh = await render(frame, turned, order, { view: 'difference' });
    const freshMeasure = await frame.readDifference();
    expect(freshMeasure?.pixels).toBe(0);
    expect(colouredPixels(fresh.pixels)).toBe(0);

    await render(frame, view(false), order); // the order drawn last is the first view's
    const frozenBefore = await render(frame, turned, frame.frozen);
    const stale = await render(frame, turned, frame.frozen, { view: 'difference' });
    const staleMeasure = (await frame.readDifference())!;
    console.log(`frozen order after the camera turned: ${staleMeasure.pixels} of ${staleMeasure.pixelCount} pixels differ, largest ${staleMeasure.largest} levels, mean ${staleMeasure.mean.toFixed(1)}`);
    expect(staleMeasure.pixels).toBeGreaterThan(0);
    expect(staleMeasure.largest).toBeGreaterThan(1);
    expect(colouredPixels(stale.pixels)).toBe(staleMeasure.pixels);
    // The exact order counted this frame's visible splats; the frozen order
    // is still drawn with its own count, before and after.
    expect((await render(frame, turned, frame.frozen)).pixels).toEqual(frozenBefore.pixels);
  });
});
