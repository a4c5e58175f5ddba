/**
 * One frame of a scene, rendered offscreen with the viewer's own passes
 * (SplatFrame: projector → GPU radix sort → splats) from a camera file, and
 * read back as tightly packed RGBA rows. DOM-free: the render command and
 * the tests use it.
 */
import type { ScreenFilter } from '../scene/anti-aliasing';
import { mat4, vec3 } from 'gl-matrix';
import { SplatFrame, type FrameOrder, type FrameTimings, type FrameView } from './splat-frame';
import { cameraMatrices, type CameraFile } from './camera-file';
import type { GpuSplats } from '../scene/gpu-splats';
import type { FrameParameters } from '../render/frame-uniforms';
import type { DifferenceMeasure } from '../render/splat-resolve';

/** The target format: 8-bit RGBA, colours stored as the shader computes them (no sRGB encoding). */
export const OFFSCREEN_FORMAT: GPUTextureFormat = 'rgba8unorm';

export interface OffscreenPicture {
  width: number;
  height: number;
  rgba: Uint8Array;
  /** GPU time of each pass of this frame; null without timestamp-query. */
  timings: FrameTimings;
  /** What the sort difference view counted (view 'difference' only). */
  difference: DifferenceMeasure | null;
}

export async function renderOffscreen(
  device: GPUDevice,
  frame: SplatFrame,
  order: FrameOrder,
  scene: GpuSplats,
  camera: CameraFile,
  options: { keyBits?: number; splatScale?: number; view?: FrameView; screenFilter?: ScreenFilter } = {},
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
  frame.setScene(scene);

  const texture = device.createTexture({
    label: 'renderOffscreen.target',
    size: [width, height],
    format: OFFSCREEN_FORMAT,
    usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC,
  });
  const bytesPerRow = Math.ceil((width * 4) / 256) * 256;
  const readback = device.createBuffer({ label: 'renderOffscreen.readback', size: bytesPerRow * height, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
  try {
    const encoder = device.createCommandEncoder({ label: 'renderOffscreen' });
    frame.encode(encoder, parameters, { view: texture.createView(), background: camera.background }, order, { view: options.view });
    encoder.copyTextureToBuffer({ texture }, { buffer: readback, bytesPerRow }, [width, height]);
    device.queue.submit([encoder.finish()]);
    const timings = await frame.readTimings();
    const difference = options.view === 'difference' ? await frame.readDifference() : null;
    await readback.mapAsync(GPUMapMode.READ);
    const padded = new Uint8Array(readback.getMappedRange());
    const rgba = new Uint8Array(width * height * 4);
    for (let y = 0; y < height; y++) rgba.set(padded.subarray(y * bytesPerRow, y * bytesPerRow + width * 4), y * width * 4);
    readback.unmap();
    return { width, height, rgba, timings, difference };
  } finally {
    texture.destroy();
    readback.destroy();
  }
}
