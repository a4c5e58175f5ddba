/**
 * One frame rendered offscreen and read back as tightly packed RGBA rows,
 * through the frame engine: the Viewer's render command path, screenshots.
 * (The tests and benchmarks draw straight through a SplatFrame with an
 * order of their own: bench/render-offscreen.ts.) DOM-free.
 */
import type { FrameTimings } from './splat-frame';
import type { FrameEngine } from './frame-engine';
import type { FrameResults } from './frame-reads';
import { rendererSettingOf, wantsPerPixel, type FrameReport, type FrameSettings } from './frame-settings';
import type { FrameCamera } from '../../render/frame-uniforms';
import type { DifferenceMeasure } from '../../render/splat-resolve';
import { readTextureRgba } from '../../gpu/readback';
import { outputUsage, storageWritable } from '../../render/output-target';

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

/** Draws of one offscreen frame at most (drawAgain): an overflow grows the pair room for the next. */
const OFFSCREEN_DRAWS = 4;

/**
 * Whether an offscreen frame must be drawn again to be the tile renderer's
 * picture: its pairs outgrew their buffers (the frame shows the fallback
 * quads, blended straight into 8 bits; the buffers are grown by now), or
 * its pair counts could not be read (every staging buffer was being read
 * for the frames on screen), so it may have outgrown them unseen. Quad
 * frames are what they are. A frame drawn again must be the same view:
 * the caller's parameters are its own while frames on screen go on (a
 * screenshot once came out as the screen's lens-shifted view, 30,461
 * pixels off, when they were shared).
 */
export function drawAgain(report: Pick<FrameReport, 'renderer'>, results: Pick<FrameResults, 'painted'>): boolean {
  return report.renderer.renderer === 'tiles' && (results.painted === null || results.painted.overflowed);
}

/** A texture a frame of width × height can be drawn into and read back from. */
export function createOffscreenTarget(device: GPUDevice, label: string, width: number, height: number, format: GPUTextureFormat): GPUTexture {
  return device.createTexture({ label, size: [width, height], format, usage: outputUsage(device, format) | GPUTextureUsage.COPY_SRC });
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
  const texture = createOffscreenTarget(core.device, 'drawOffscreen.target', width, height, format);
  try {
    await core.prepareRenderer(rendererSettingOf(settings), wantsPerPixel(settings));
    const target = { view: texture.createView(), background, writable: storageWritable(core.device, format) };
    let report = core.drawFrame(target, parameters, settings);
    let results = await core.lastFrameResults();
    for (let draw = 1; draw < OFFSCREEN_DRAWS && drawAgain(report, results); draw++) {
      report = core.drawFrame(target, parameters, settings);
      results = await core.lastFrameResults();
    }
    const rgba = await readTextureRgba(core.device, texture);
    return { width, height, rgba, timings: results.timings ?? UNTIMED, difference: results.difference, report };
  } finally {
    texture.destroy();
  }
}
