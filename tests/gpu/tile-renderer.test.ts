/**
 * The compute tile renderer (src/render/tiles/) against the CPU reference
 * rasterizer and the quad renderer.
 */
import { beforeAll, expect, test } from 'vitest';
import { vec3 } from 'gl-matrix';
import type { GpuSplats } from '../../src/scene/gpu-splats';
import type { SplatFrame } from '../../src/app/splat-frame';
import type { GpuSortOrder } from '../../src/app/gpu-sort-order';
import { renderOffscreen } from '../../src/app/offscreen-render';
import { renderReferenceCamera } from '../../src/app/reference-camera';
import { psnr, toRgba8 } from '../../src/render/picture-compare';
import type { CameraFile } from '../../src/app/camera-file';
import type { SplatCloud } from '../../src/scene/splat-cloud';
import { realScene, useGpu } from '../support/gpu-fixture';
import { medianCentre } from '../support/test-view';

const gpu = useGpu('tile-renderer.test');
let cloud: SplatCloud;
let scene: GpuSplats;
let order: GpuSortOrder;
let frame: SplatFrame;

beforeAll(async () => {
  cloud = await realScene('inria_kacytran_iter7000_9k_sh3.ply');
  scene = gpu.upload(cloud, 'tile-renderer.scene');
  [order, frame] = await Promise.all([gpu.gpuOrder(), gpu.frame()]);
  await frame.prepareTiles();
});

function cameraAt(offset: [number, number, number], width = 160, height = 120): CameraFile {
  const centre = medianCentre(cloud);
  const eye = vec3.add(vec3.create(), centre, offset);
  return { width, height, fovy_deg: 60, eye: [eye[0]!, eye[1]!, eye[2]!], target: [centre[0]!, centre[1]!, centre[2]!], up: [0, -1, 0], background: [0.1, 0.2, 0.3], sh_degree: 3 };
}

test('tiles against the reference and the quads', async () => {
  const camera = cameraAt([3, -1, -6], 157, 101);
  const reference = toRgba8(renderReferenceCamera(cloud, camera).rgb);
  const quads = await renderOffscreen(gpu.device, frame, order, scene, camera);
  const tiles = await renderOffscreen(gpu.device, frame, order, scene, camera, { renderer: 'tiles' });
  console.log(`quads ${psnr(quads.rgba, reference).toFixed(2)} dB, tiles ${psnr(tiles.rgba, reference).toFixed(2)} dB, tiles vs quads ${psnr(tiles.rgba, quads.rgba).toFixed(2)} dB`, frame.drawnWith, frame.tileRenderer?.lastPairs);
  expect(frame.drawnWith).toBe('tiles');
  expect(psnr(tiles.rgba, reference)).toBeGreaterThanOrEqual(50);
});
