/**
 * How a frame is composed after the sort: the splats are blended into a
 * float target and resolved once (a deep stack of faint splats keeps its
 * value, where blending straight into 8 bits stalls several levels short),
 * and the sort difference view shows where the order on screen changes the
 * picture against the exact order of the same frame: nothing with the exact
 * order, the pixels a stale (frozen) order gets wrong after the camera turns.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { mat4, vec3 } from 'gl-matrix';
import type { GpuSplats } from '../../src/scene/gpu-splats';
import type { SplatCloud } from '../../src/scene/splat-cloud';
import { SplatFrame } from '../../src/app/frame/splat-frame';
import type { GpuSortOrder } from '../../src/app/frame/order/gpu-sort-order';
import type { Accumulation } from '../../src/render/accumulation-target';
import type { FrameParameters } from '../../src/render/frame-uniforms';
import { madeScene, realScene, useGpu } from '../support/gpu-fixture';
import { medianCentre, viewOf, VIEW_BACKGROUND, VIEW_BYTES_PER_ROW, VIEW_HEIGHT, VIEW_WIDTH } from '../support/test-view';

const gpu = useGpu('frame-views.test');
let order: GpuSortOrder;

beforeAll(async () => {
  order = await gpu.gpuOrder();
});

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
    stack = gpu.upload(madeScene(Array.from({ length: LAYERS }, (_, i) => ({
      position: [0, 0, -5 - 0.01 * i] as const,
      scale: [0.5, 0.5, 0.5] as const,
      opacity: OPACITY,
      colour: [COLOUR, COLOUR, COLOUR] as const,
    }))), 'frame-views.stack');
  });

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
    const frame = await gpu.frame({ accumulation });
    frame.setScene(stack);
    const pixels = await gpu.render(frame, stackView(), order);
    return pixels[4 * ((SIZE >> 1) * SIZE + (SIZE >> 1))]!; // red at the centre: the background's 0.1 under it
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
    if (gpu.device.features.has('float32-blendable')) {
      expect(Math.abs((await centreLevel('rgba32float')) - exactLevel)).toBeLessThanOrEqual(1);
    } else {
      await expect(SplatFrame.create(gpu.device, 'rgba8unorm', { accumulation: 'rgba32float' })).rejects.toThrow(/float32-blendable/);
    }
  });
});

describe('the sort difference view', () => {
  let cloud: SplatCloud;
  let scene: GpuSplats;
  let frame: SplatFrame;

  beforeAll(async () => {
    cloud = await realScene('inria_kacytran_iter7000_9k_sh3.ply');
    scene = gpu.upload(cloud, 'frame-views.scene');
    frame = await gpu.frame();
    frame.setScene(scene);
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
    const encoder = gpu.device.createCommandEncoder();
    const target = gpu.device.createTexture({ size: [VIEW_WIDTH, VIEW_HEIGHT], format: 'rgba8unorm', usage: GPUTextureUsage.RENDER_ATTACHMENT });
    expect(() => frame.encode(encoder, view(false), { view: target.createView(), background: VIEW_BACKGROUND }, order, { view: 'difference' })).toThrow(/prepareDifferenceView/);
    target.destroy();
  });

  test('all zero when the order is exact; the pixels a frozen order gets wrong after the camera turns', async () => {
    await frame.prepareDifferenceView();
    const exact = await gpu.render(frame, view(false), order, { view: 'difference' });
    const exactMeasure = await frame.readDifference();
    expect(exactMeasure).toMatchObject({ pixelCount: VIEW_WIDTH * VIEW_HEIGHT, pixels: 0, largest: 0 });
    expect(colouredPixels(exact)).toBe(0);
    // The heat map's grey is the scene, dimmed: not an empty picture.
    expect(exact.some((v, i) => i % 4 !== 3 && v > 10)).toBe(true);

    const turned = view(true);
    const fresh = await gpu.render(frame, turned, order, { view: 'difference' });
    const freshMeasure = await frame.readDifference();
    expect(freshMeasure?.pixels).toBe(0);
    expect(colouredPixels(fresh)).toBe(0);

    await gpu.render(frame, view(false), order); // the order drawn last is the first view's
    const frozenBefore = await gpu.render(frame, turned, frame.frozen);
    const stale = await gpu.render(frame, turned, frame.frozen, { view: 'difference' });
    const staleMeasure = (await frame.readDifference())!;
    console.log(`frozen order after the camera turned: ${staleMeasure.pixels} of ${staleMeasure.pixelCount} pixels differ, largest ${staleMeasure.largest} levels, mean ${staleMeasure.mean.toFixed(1)}`);
    expect(staleMeasure.pixels).toBeGreaterThan(0);
    expect(staleMeasure.largest).toBeGreaterThan(1);
    expect(colouredPixels(stale)).toBe(staleMeasure.pixels);
    // The exact order counted this frame's visible splats; the frozen order
    // is still drawn with its own count, before and after.
    expect(await gpu.render(frame, turned, frame.frozen)).toEqual(frozenBefore);
  });
});
