/**
 * One frame of a scene from a camera file, drawn straight through a
 * SplatFrame with an order of the caller's (not through the frame engine)
 * and read back as RGBA rows: what the GPU tests and the benchmarks
 * compare and time. DOM-free.
 */
import { mat4, vec3 } from 'gl-matrix';
import type { SplatFrame, FrameEncodeOptions } from '../src/app/frame/splat-frame';
import type { SplatOrder } from '../src/render/frame-renderer';
import type { DrawOrder } from '../src/app/frame/order/draw-order';
import { isHeatMap } from '../src/app/frame/frame-settings';
import { cameraMatrices, type CameraFile } from '../src/app/camera/camera-file';
import { createOffscreenTarget, OFFSCREEN_FORMAT, type OffscreenPicture } from '../src/app/frame/offscreen-render';
import { storageWritable } from '../src/render/output-target';
import type { GpuSplats } from '../src/scene/gpu-splats';
import type { ScreenFilter } from '../src/scene/anti-aliasing';
import type { FrameParameters } from '../src/render/frame-uniforms';
import { readTextureRgba } from '../src/gpu/readback';

/** The frame parameters of a camera file for `splatCount` splats (SH bands the file's unless given), as a frame recorded by hand needs them. */
export function cameraParameters(
  camera: CameraFile,
  splatCount: number,
  options: { shDegree?: number; splatScale?: number; keyBits?: number; screenFilter?: ScreenFilter } = {},
): FrameParameters {
  const parameters: FrameParameters = {
    view: mat4.create(),
    projection: mat4.create(),
    eye: vec3.fromValues(...camera.eye),
    fovY: (camera.fovy_deg * Math.PI) / 180,
    width: camera.width,
    height: camera.height,
    splatCount,
    shDegree: options.shDegree ?? camera.sh_degree,
    splatScale: options.splatScale ?? 1,
    keyBits: options.keyBits ?? 32,
    screenFilter: options.screenFilter,
  };
  cameraMatrices(camera, parameters.view, parameters.projection);
  return parameters;
}

/**
 * One frame of `scene` from a camera file, drawn by `frame` in `order`, into
 * rgba8unorm and read back; `splatOrder` is how each pixel's splats are
 * ordered (the per-pixel order needs `renderer: 'tiles'` and the tile painter's prepare(true));
 * `maxDrawn` the most splats the frame keeps (a world's; default all of the scene's).
 */
export async function renderOffscreen(
  device: GPUDevice,
  frame: SplatFrame,
  order: DrawOrder,
  scene: GpuSplats,
  camera: CameraFile,
  options: { keyBits?: number; splatScale?: number; screenFilter?: ScreenFilter; shiftNdc?: readonly [number, number]; splatOrder?: SplatOrder; maxDrawn?: number } & Pick<FrameEncodeOptions, 'view' | 'renderer'> = {},
): Promise<OffscreenPicture> {
  const { width, height } = camera;
  const parameters = cameraParameters(camera, scene.count, { ...options, shDegree: Math.min(camera.sh_degree, scene.shDegree) });
  // A lens shift (the viewer's beside overlays; OrbitCamera.projectionMatrix).
  if (options.shiftNdc) [parameters.projection[8], parameters.projection[9]] = options.shiftNdc;
  frame.setScene(scene, options.maxDrawn);
  const texture = createOffscreenTarget(device, 'renderOffscreen.target', width, height, OFFSCREEN_FORMAT);
  try {
    const draw = () => {
      const encoder = device.createCommandEncoder({ label: 'renderOffscreen' });
      frame.encode(encoder, parameters, { view: texture.createView(), background: camera.background, writable: storageWritable(device, OFFSCREEN_FORMAT) }, order, { view: options.view, renderer: options.renderer, order: options.splatOrder });
      device.queue.submit([encoder.finish()]);
    };
    draw();
    // A tile frame that outgrew its pair buffers drew nothing new: they are grown by now, so it is drawn again.
    if ((await frame.readPainted())?.overflowed) draw();
    const timings = await frame.readTimings();
    const difference = isHeatMap(options.view ?? 'picture') ? await frame.readDifference() : null;
    const rgba = await readTextureRgba(device, texture);
    return { width, height, rgba, timings, difference };
  } finally {
    texture.destroy();
  }
}
