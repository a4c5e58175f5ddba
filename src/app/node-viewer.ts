/**
 * The Viewer in Node: the render command, the benchmarks and the GPU tests
 * drive the same Viewer as the page, on a device made by Dawn (the
 * `webgpu` package) with the adapter's real limits, so a scene is refused
 * or accepted by what this GPU holds, as in the browser. Scenes are read
 * from the file system. Never imported by the browser build.
 */
import { totalmem } from 'node:os';
import { resolve } from 'node:path';
import { createNodeGpuContext } from '../gpu/node-gpu';
import type { GpuContext } from '../gpu/device';
import { loadSceneFile, nodeFileSource } from '../io/node-scene-source';
import { isWorldIndexName } from '../io/lod/world-name';
import { worldOfSource } from './world/world-opening';
import { openWorldInWorkers } from '../io/world-worker-client';
import { nodeWorldWorkers } from '../io/world-worker-node-client';
import type { LoadLimits } from '../io/load-limits';
import { deviceLoadLimits } from '../render/renderer-limits';
import { Viewer, type SceneLoader, type ViewerOptions, type WorldOpener } from './viewer';
import { OFFSCREEN_FORMAT } from './frame/offscreen-render';

/** Reads a scene file by path (and the files it names beside it), as the page's worker reads a dropped file. */
export const loadScenePath: SceneLoader<string> = loadSceneFile;

/**
 * A path whose file is a lod-meta.json opens as a world, its chunks read
 * from beside it: in worker threads where the tools were built with them
 * (world-worker-node-client.ts), else on this thread.
 */
export const openWorldPath: WorldOpener<string> = (path) => {
  if (!isWorldIndexName(path)) return null;
  const start = nodeWorldWorkers();
  return start ? (options) => openWorldInWorkers({ path: resolve(path) }, options, start) : worldOfSource(nodeFileSource(path));
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
  const openWorld = options.openWorld ?? (options.load ? undefined : (openWorldPath as unknown as WorldOpener<S>));
  const viewer = await Viewer.create<S>(gpu.device, options.format ?? OFFSCREEN_FORMAT, { hostMemoryBytes: totalmem(), openWorld, ...options, load });
  // Quads unless a tool asks for another: its pictures are then the same on every run, where auto's pick follows this run's timings.
  viewer.settings.renderer = 'quads';
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
 * The load limits of this machine's GPU and memory, as a Viewer on it has them: for
 * Node tools that decode scenes without drawing them (the parse benchmark),
 * so they refuse exactly what the viewer would.
 */
export async function nodeLoadLimits(): Promise<LoadLimits> {
  const { device } = await createNodeGpuContext('load-limits');
  try {
    return deviceLoadLimits(device, totalmem());
  } finally {
    device.destroy();
  }
}
