/**
 * The GPU picture against the CPU reference rasterizer
 * (src/render/reference-rasterizer.ts) on a real scene, at two cameras:
 * at least 45 dB PSNR. The picture blended straight into 8 bits is
 * measured beside it, for the record.
 */
import { beforeAll, expect, test } from 'vitest';
import { vec3 } from 'gl-matrix';
import type { GpuSplats } from '../../src/scene/gpu-splats';
import type { SplatFrame } from '../../src/app/frame/splat-frame';
import type { GpuSortOrder } from '../../src/app/frame/order/gpu-sort-order';
import { renderOffscreen } from '../../bench/render-offscreen';
import { renderReferenceCamera } from '../../cli/reference-camera';
import { psnr, toRgba8 } from '../../cli/picture-compare';
import type { CameraFile } from '../../src/app/camera/camera-file';
import type { SplatCloud } from '../../src/scene/splat-cloud';
import { realScene, useGpu } from '../support/gpu-fixture';
import { medianCentre } from '../support/test-view';

/** The target. */
const MIN_PSNR_DB = 45;

const gpu = useGpu('reference-psnr.test');
let cloud: SplatCloud;
let scene: GpuSplats;
let order: GpuSortOrder;
let frame: SplatFrame;
let direct: SplatFrame;

beforeAll(async () => {
  cloud = await realScene('inria_kacytran_iter7000_9k_sh3.ply');
  scene = gpu.upload(cloud, 'reference-psnr.scene');
  [order, frame, direct] = await Promise.all([gpu.gpuOrder(), gpu.frame(), gpu.frame({ accumulation: 'direct' })]);
});

/** A 160×120 camera a few units from the scene's median point (captured scene: y down). */
function cameraAt(offset: [number, number, number]): CameraFile {
  const centre = medianCentre(cloud);
  const eye = vec3.add(vec3.create(), centre, offset);
  return { width: 160, height: 120, fovy_deg: 60, eye: [eye[0]!, eye[1]!, eye[2]!], target: [centre[0]!, centre[1]!, centre[2]!], up: [0, -1, 0], background: [0.1, 0.2, 0.3], sh_degree: 3 };
}

test.each([
  ['in front', [3, -1, -6]],
  ['from the side, closer', [-4, -1.5, -2.5]],
  // The viewer's lens shift beside overlays (a panel at the right, a sheet at the bottom): the EWA footprints stay the reference's.
  ['in front, its lens shifted', [3, -1, -6], [0.3, -0.4]],
] as [string, [number, number, number], [number, number]?][])(`the GPU picture is at least ${MIN_PSNR_DB} dB PSNR against the reference, camera "%s"`, async (_name, offset, shiftNdc) => {
  const camera = cameraAt(offset);
  const reference = toRgba8(renderReferenceCamera(cloud, camera, { shiftNdc }).rgb);
  const picture = await renderOffscreen(gpu.device, frame, order, scene, camera, { shiftNdc });
  const eightBit = await renderOffscreen(gpu.device, direct, order, scene, camera, { shiftNdc });
  const db = psnr(picture.rgba, reference);
  const covered = reference.filter((v, i) => (i & 3) === 0 && Math.abs(v - 26) > 6).length / (camera.width * camera.height);
  console.log(`9k scene, camera ${JSON.stringify(offset)}: GPU (rgba16float) ${db.toFixed(2)} dB, blended into 8 bits ${psnr(eightBit.rgba, reference).toFixed(2)} dB; ${(100 * covered).toFixed(0)} % of pixels covered`);
  // A camera that shows little of the scene would make the comparison easy.
  expect(covered).toBeGreaterThan(0.5);
  expect(db).toBeGreaterThanOrEqual(MIN_PSNR_DB);
});
