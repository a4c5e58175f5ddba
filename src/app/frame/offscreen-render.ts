/**
 * One frame rendered offscreen and read back as tightly packed RGBA rows:
 * through the frame engine (the Viewer's render command path, screenshots)
 * or straight through a SplatFrame with an order of the caller's (the GPU
 * tests). DOM-free.
 */
import { mat4, vec3 } from 'gl-matrix';
import type { SplatFrame, FrameTimings, FrameEncodeOptions } from './splat-frame';
import type { SplatOrder } from '../../render/frame-renderer';
import type { DrawOrder } from './order/draw-order';
import type { FrameEngine } from './frame-engine';
import { isHeatMap, rendererSettingOf, wantsPerPixel, type FrameReport, type FrameSettings } from './frame-settings';
import { cameraMatrices, type CameraFile } from '../camera/camera-file';
import type { GpuSplats } from '../../scene/gpu-splats';
import type { ScreenFilter } from '../../scene/anti-aliasing';
import type { FrameCamera, FrameParameters } from '../../render/frame-uniforms';
import type { DifferenceMeasure } from '../../render/splat-resolve';
import { readTextureRgba } from '../../gpu/readback';

/** The target format of the Node tools: 8-bit RGBA, colours stored as the shader computes them (no sRGB encoding). */
export const OFFSCREEN_FORMAT: GPUTextureFormat = 'rgba8unorm';

export interface OffscreenPicture {
  width: number;
  height: number;
  rgba: Uint8Array;
  /** GPU time of each pass of this frame; null without timestamp-query (or when the frame could not be timed). */
  timings: FrameTimings;
  /** What the heat map view counted (views 'difference' and 'pixel-order' only). */
  difference: DifferenceMeasure | null;
}

const UNTIMED: FrameTimings = { project: null, sort: null, render: null };

function createTarget(device: GPUDevice, label: string, width: number, height: number, format: GPUTextureFormat): GPUTexture {
  return device.createTexture({ label, size: [width, height], format, usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC });
}

/** One frame of the frame engine into a new `format` texture of the parameters' size, read back. */
export async function drawOffscreen(
  core: FrameEngine,
  format: GPUTextureFormat,
  parameters: FrameCamera,
  background: readonly [number, number, number],
  settings: FrameSettings,
): Promise<OffscreenPicture & { report: FrameReport }> {
  const { width, height } = parameters;
  const texture = createTarget(core.device, 'drawOffscreen.target', width, height, format);
  try {
    await core.prepareRenderer(rendererSettingOf(settings), wantsPerPixel(settings));
    const target = { view: texture.createView(), background };
    let report = core.drawFrame(target, parameters, settings);
    let results = await core.lastFrameResults();
    // A tile frame that outgrew its pair buffers drew nothing new: they are grown by now, so it is drawn again.
    if (results.painted?.overflowed) {
      report = core.drawFrame(target, parameters, settings);
      results = await core.lastFrameResults();
    }
    const rgba = await readTextureRgba(core.device, texture);
    return { width, height, rgba, timings: results.timings ?? UNTIMED, difference: results.difference, report };
  } finally {
    texture.destroy();
  }
}

/**
 * One frame of `scene` from a camera file, drawn by `frame` in `order`, into
 * rgba8unorm and read back; `splatOrder` is how each pixel's splats are
 * ordered (the per-pixel order needs `renderer: 'tiles'` and the tile painter's prepare(true)).
 */
export async function renderOffscreen(
  device: GPUDevice,
  frame: SplatFrame,
  order: DrawOrder,
  scene: GpuSplats,
  camera: CameraFile,
  options: { keyBits?: number; splatScale?: number; screenFilter?: ScreenFilter; shiftNdc?: readonly [number, number]; splatOrder?: SplatOrder } & Pick<FrameEncodeOptions, 'view' | 'renderer'> = {},
): Promise<OffscreenPicture> {
  const { width, height } = camera;
  const parameters: FrameParameters = {
    view: mat4.create(),
    projection: mat4.create(),
    eye: vec3.fromValues(...camera.eye),
    fovY: (camera.fovy_deg * Math.PI) / 180,
    width,
    height,
    splatCount: scene.count,
    shDegree: Math.min(camera.sh_degree, scene.shDegree),
    splatScale: options.splatScale ?? 1,
    keyBits: options.keyBits ?? 32,
    screenFilter: options.screenFilter,
  };
  cameraMatrices(camera, parameters.view, parameters.projection);
  // A lens shift (the viewer's beside overlays; OrbitCamera.projectionMatrix).
  if (options.shiftNdc) [parameters.projection[8], parameters.projection[9]] = options.shiftNdc;
  frame.setScene(scene);
  const texture = createTarget(device, 'renderOffscreen.target', width, height, OFFSCREEN_FORMAT);
  try {
    const draw = () => {
      const encoder = device.createCommandEncoder({ label: 'renderOffscreen' });
      frame.encode(encoder, parameters, { view: texture.createView(), background: camera.background }, order, { view: options.view, renderer: options.renderer, order: options.splatOrder });
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
