/**
 * Anti-aliased scenes on the GPU: a file that records nothing is drawn
 * exactly as with the classic filter; a file that records its training
 * filter (here a Mip-Splatting PLY, with its per-splat filter_3D) is drawn
 * with it, as the CPU reference draws it with the same filter, and "off"
 * draws it with the classic filter; and one splat far under a pixel gets
 * the opacity compensation worked out by hand, and an opaque one lets
 * 1% of the background through, as the reference's alpha clamp does.
 */
import { beforeAll, expect, test } from 'vitest';
import { vec3 } from 'gl-matrix';
import { writeSplatPly } from '../support/ply-writer';
import { parseSplatPly } from '../../src/io/ply/parse';
import type { GpuSplats } from '../../src/scene/gpu-splats';
import type { SplatFrame } from '../../src/app/frame/splat-frame';
import type { GpuSortOrder } from '../../src/app/frame/order/gpu-sort-order';
import { renderOffscreen } from '../../bench/render-offscreen';
import { renderReferenceCamera } from '../../cli/reference-camera';
import { psnr, toRgba8 } from '../../cli/picture-compare';
import { ANTIALIASED_FILTER, CLASSIC_FILTER, MIP_FILTER, screenFilterFor } from '../../src/scene/anti-aliasing';
import type { SplatCloud } from '../../src/scene/splat-cloud';
import type { CameraFile } from '../../src/app/camera/camera-file';
import { madeScene, realScene, useGpu } from '../support/gpu-fixture';
import { medianCentre } from '../support/test-view';

const gpu = useGpu('anti-aliasing.test');
let order: GpuSortOrder;
let frame: SplatFrame;
let plain: SplatCloud;
let plainScene: GpuSplats;

beforeAll(async () => {
  plain = await realScene('inria_kacytran_iter7000_9k_sh3.ply');
  plainScene = gpu.upload(plain, 'anti-aliasing.plain');
  [order, frame] = await Promise.all([gpu.gpuOrder(), gpu.frame()]);
});

/** A 96×72 camera a few units from the scene's median point, far enough that many splats are under a pixel. */
function camera(cloud: SplatCloud): CameraFile {
  const centre = medianCentre(cloud);
  const eye = vec3.add(vec3.create(), centre, [6, -2, -12]);
  return { width: 96, height: 72, fovy_deg: 60, eye: [eye[0]!, eye[1]!, eye[2]!], target: [centre[0]!, centre[1]!, centre[2]!], up: [0, -1, 0], background: [0.1, 0.2, 0.3], sh_degree: 3 };
}

/** Pixels (of RGBA8) whose RGB differ by more than `levels` in some channel. */
function differing(a: Uint8Array, b: Uint8Array, levels = 2): number {
  let n = 0;
  for (let i = 0; i < a.length; i += 4) {
    if (Math.max(Math.abs(a[i]! - b[i]!), Math.abs(a[i + 1]! - b[i + 1]!), Math.abs(a[i + 2]! - b[i + 2]!)) > levels) n++;
  }
  return n;
}

test('a file that records no anti-aliasing is drawn with the classic filter, as before', async () => {
  expect(plain.antiAliasing).toBeUndefined();
  expect(screenFilterFor('auto', plain.antiAliasing)).toEqual(CLASSIC_FILTER);
  const cam = camera(plain);
  const before = await renderOffscreen(gpu.device, frame, order, plainScene, cam);
  const classic = await renderOffscreen(gpu.device, frame, order, plainScene, cam, { screenFilter: screenFilterFor('auto', plain.antiAliasing) });
  expect(Buffer.from(classic.rgba).equals(Buffer.from(before.rgba))).toBe(true);
  // The override does change it: the filter reaches the GPU.
  const forced = await renderOffscreen(gpu.device, frame, order, plainScene, cam, { screenFilter: screenFilterFor('on', plain.antiAliasing) });
  expect(differing(forced.rgba, before.rgba)).toBeGreaterThan(100);
});

test("a Mip-Splatting file is drawn with its filters, as the reference draws it; 'off' draws it with the classic filter", async () => {
  // The real scene, written as Mip-Splatting writes its PLY: with a 3D filter per splat (its
  // size rule: distance over focal length times sqrt(0.2), from a 1000 px camera 8 units away).
  const filter3D = new Float32Array(plain.count).fill((8 / 1000) * Math.sqrt(0.2));
  const mip = parseSplatPly(writeSplatPly(plain, { filter3D }));
  expect(mip.antiAliasing?.filter).toEqual(MIP_FILTER);
  expect(mip.antiAliasing?.source).toMatch(/filter_3D/);
  // The 3D filter is folded into the splats on load: scales grow, opacities shrink.
  expect(mip.scales[0]).toBeCloseTo(Math.hypot(plain.scales[0]!, filter3D[0]!), 6);
  expect(mip.opacities[0]).toBeLessThan(plain.opacities[0]!);

  const scene = gpu.upload(mip, 'anti-aliasing.mip');
  try {
    const cam = camera(mip);
    const auto = await renderOffscreen(gpu.device, frame, order, scene, cam, { screenFilter: screenFilterFor('auto', mip.antiAliasing) });
    const off = await renderOffscreen(gpu.device, frame, order, scene, cam, { screenFilter: screenFilterFor('off', mip.antiAliasing) });
    expect(differing(auto.rgba, off.rgba)).toBeGreaterThan(100);
    for (const [picture, filter] of [[auto, MIP_FILTER], [off, CLASSIC_FILTER]] as const) {
      const reference = toRgba8(renderReferenceCamera(mip, cam, { screenFilter: filter }).rgb);
      const db = psnr(picture.rgba, reference);
      console.log(`Mip-Splatting 9k scene, ${filter === MIP_FILTER ? 'its filter' : 'classic filter'}: ${db.toFixed(2)} dB against the reference`);
      expect(db).toBeGreaterThanOrEqual(45);
    }
  } finally {
    gpu.release(scene);
  }
});

test('one splat far under a pixel: its centre pixel gets the compensated opacity, worked out by hand', async () => {
  // Straight ahead at depth 10 on a 33×33 view, 0.5 px² on screen: the
  // anti-aliased filter makes it 0.8 px² with opacity 0.9 · 0.5 / 0.8.
  const size = 33;
  const fovY = Math.PI / 3;
  const focal = size / (2 * Math.tan(fovY / 2));
  const sigma = (Math.sqrt(0.5) * 10) / focal;
  const colour = [0.2, 0.9, 0.4] as const;
  const scene = gpu.upload(madeScene([{ position: [0, 0, -10], scale: [sigma, sigma, sigma], opacity: 0.9, colour }]), 'anti-aliasing.one');
  try {
    const cam: CameraFile = { width: size, height: size, fovy_deg: 60, eye: [0, 0, 0], target: [0, 0, -1], up: [0, 1, 0], background: [0, 0, 0], sh_degree: 0 };
    const centre = 4 * (16 * size + 16);
    const centrePixel = async (filter: typeof CLASSIC_FILTER) =>
      Array.from((await renderOffscreen(gpu.device, frame, order, scene, cam, { screenFilter: filter })).rgba.subarray(centre, centre + 3));
    const expectAlpha = (got: number[], alpha: number) => got.forEach((v, c) => expect(Math.abs(v - 255 * colour[c]! * alpha)).toBeLessThanOrEqual(1));
    expectAlpha(await centrePixel(CLASSIC_FILTER), 0.9);
    expectAlpha(await centrePixel(ANTIALIASED_FILTER), 0.9 * (0.5 / 0.8));
    expectAlpha(await centrePixel(MIP_FILTER), 0.9 * (0.5 / 0.6));
  } finally {
    gpu.release(scene);
  }
});

test('an opaque splat lets 1% of what is behind it through at its centre (alpha is clamped to 0.99, as the reference clamps it)', async () => {
  // Black, opacity 1, a broad Gaussian straight ahead over a white background:
  // the centre pixel's Gaussian weight is 1, so its alpha is the clamp.
  const size = 33;
  const scene = gpu.upload(madeScene([{ position: [0, 0, -10], scale: [1, 1, 1], opacity: 1, colour: [0, 0, 0] }]), 'anti-aliasing.opaque');
  try {
    const cam: CameraFile = { width: size, height: size, fovy_deg: 60, eye: [0, 0, 0], target: [0, 0, -1], up: [0, 1, 0], background: [1, 1, 1], sh_degree: 0 };
    const centre = 4 * (16 * size + 16);
    const { rgba } = await renderOffscreen(gpu.device, frame, order, scene, cam, { screenFilter: CLASSIC_FILTER });
    // 255 · (1 − 0.99) = 2.55 in every channel; with no clamp it would be 0.
    for (const v of rgba.subarray(centre, centre + 3)) expect(Math.abs(v - 255 * 0.01)).toBeLessThanOrEqual(1);
  } finally {
    gpu.release(scene);
  }
});
