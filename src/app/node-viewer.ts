/**
 * The Viewer in Node: the render command, the benchmarks and the GPU tests
 * drive the same Viewer as the page, on a device made by Dawn (the
 * `webgpu` package) with the adapter's real limits, so a scene is refused
 * or accepted by what this GPU holds, as in the browser. Scenes are read
 * from the file system. Never imported by the browser build.
 */
import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { createNodeGpuContext } from '../gpu/node-gpu';
import type { GpuContext } from '../gpu/device';
import { chunksOf, loadSplatStream } from '../io/splat-stream';
import type { LoadLimits } from '../io/load-limits';
import { storageBufferLimit } from '../scene/gpu-splats';
import { loadLimitsFor } from '../render/renderer-limits';
import { Viewer, type SceneLoader, type ViewerOptions } from './viewer';
import { OFFSCREEN_FORMAT } from './offscreen-render';

/** Reads a scene file by path, streaming it through the viewer's decoder (a preview of the part decoded so far included). */
export const loadScenePath: SceneLoader<string> = async (path, options) => {
  const info = await stat(path);
  if (info.isDirectory()) throw new Error(`${path} is a folder, not a splat file`);
  const bytes = new Uint8Array(await readFile(path));
  options.signal.throwIfAborted();
  const warnings: string[] = [];
  const cloud = await loadSplatStream(chunksOf(bytes, 1 << 20), {
    name: basename(path),
    totalBytes: bytes.length,
    limits: options.limits,
    signal: options.signal,
    onWarning: (message) => warnings.push(message),
    onProgress: (stage, fraction) => options.onProgress({ stage, fraction }),
  });
  return { cloud, warnings, bytes: bytes.length };
};

export interface NodeViewer<S> {
  viewer: Viewer<S>;
  gpu: GpuContext;
  /** Destroys the viewer and its device. */
  destroy(): void;
}

/** A Viewer on a new Dawn device, reading scene files by path unless told otherwise. */
export async function createNodeViewer<S = string>(
  label: string,
  options: Partial<ViewerOptions<S>> & { format?: GPUTextureFormat } = {},
): Promise<NodeViewer<S>> {
  const gpu = await createNodeGpuContext(label);
  const load = options.load ?? (loadScenePath as unknown as SceneLoader<S>);
  const viewer = await Viewer.create<S>(gpu.device, options.format ?? OFFSCREEN_FORMAT, { ...options, load });
  return {
    viewer,
    gpu,
    destroy: () => {
      viewer.destroy();
      gpu.device.destroy();
    },
  };
}

/**
 * The load limits of this machine's GPU, as a Viewer on it has them: for
 * Node tools that decode scenes without drawing them (the parse benchmark),
 * so they refuse exactly what the viewer would.
 */
export async function nodeLoadLimits(): Promise<LoadLimits> {
  const { device } = await createNodeGpuContext('load-limits');
  try {
    return loadLimitsFor(storageBufferLimit(device));
  } finally {
    device.destroy();
  }
}
