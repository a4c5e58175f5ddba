/**
 * What the tile renderer's GPU tests share (tests/gpu/tile-renderer.test.ts,
 * tests/gpu/tile-frame-output.test.ts): the 9k INRIA scene uploaded with its
 * GPU order and a frame whose tile passes are made, the draw they check, and
 * a camera file's frame parameters.
 */
import { beforeAll, expect } from 'vitest';
import type { GpuSplats } from '../../src/scene/gpu-splats';
import type { FrameView, SplatFrame } from '../../src/app/frame/splat-frame';
import type { GpuSortOrder } from '../../src/app/frame/order/gpu-sort-order';
import type { DrawOrder } from '../../src/app/frame/order/draw-order';
import type { OffscreenPicture } from '../../src/app/frame/offscreen-render';
import type { CameraFile } from '../../src/app/camera/camera-file';
import type { FrameRenderer } from '../../src/render/frame-renderer';
import type { FrameParameters } from '../../src/render/frame-uniforms';
import type { ScreenFilter } from '../../src/scene/anti-aliasing';
import type { SplatCloud } from '../../src/scene/splat-cloud';
import { cameraParameters } from '../../bench/render-offscreen';
import { renderChecked } from './checked-render';
import { realScene, type GpuFixture } from './gpu-fixture';

/** The background the tests' cameras clear to. */
export const TILE_TEST_BACKGROUND = [0.1, 0.2, 0.3] as const;

export interface TileTestScene {
  cloud: SplatCloud;
  scene: GpuSplats;
  order: GpuSortOrder;
  frame: SplatFrame;
}

/** The 9k scene, its GPU order and a frame with its tile passes made, handed to `take` before the file's tests. */
export function useTileTestScene(gpu: GpuFixture, label: string, take: (made: TileTestScene) => void): void {
  beforeAll(async () => {
    const cloud = await realScene('inria_kacytran_iter7000_9k_sh3.ply');
    const scene = gpu.upload(cloud, `${label}.scene`);
    const [order, frame] = await Promise.all([gpu.gpuOrder(), gpu.frame()]);
    await frame.painters.tiles.prepare();
    take({ cloud, scene, order, frame });
  });
}

export interface TileDrawOptions {
  renderer?: FrameRenderer;
  view?: FrameView;
  screenFilter?: ScreenFilter;
  splatScale?: number;
  drawOrder?: DrawOrder;
  /** Another frame than the scene's. */
  frame?: SplatFrame;
}

/** renderOffscreen (which draws an overflowed tile frame again), failing on any WebGPU validation error. */
export async function drawTiles(gpu: GpuFixture, t: Pick<TileTestScene, 'frame' | 'order'>, source: GpuSplats, camera: CameraFile, options: TileDrawOptions = {}): Promise<OffscreenPicture> {
  const frame = options.frame ?? t.frame;
  const picture = await renderChecked(gpu.device, frame, options.drawOrder ?? t.order, source, camera, options);
  if (options.renderer === 'tiles') expect(frame.drawnWith).toBe('tiles');
  return picture;
}

/** Frame parameters of a camera file, as renderOffscreen makes them (for frames recorded by a test itself). */
export function tileTestParameters(cloud: SplatCloud, camera: CameraFile, splatScale = 1, keyBits = 32): FrameParameters {
  return cameraParameters(camera, cloud.count, { shDegree: 3, splatScale, keyBits });
}
