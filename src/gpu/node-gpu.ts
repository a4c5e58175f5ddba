/**
 * Node entry to WebGPU (Dawn, through the `webgpu` package), for the tests
 * and the benchmark. Never imported by the browser build.
 */
import { create, globals } from 'webgpu';
import { existsSync } from 'node:fs';
import { requestGpuContext, type GpuContext } from './device';
import { noAdapterAdvice } from './node-gpu-advice';
import { WebGpuUnavailableError } from './webgpu-unavailable';
import { recordUncapturedError } from './uncaptured-errors';

let installed = false;
/**
 * Every GPU handed out stays referenced for the life of the process: if the
 * instance is garbage-collected while its device lives, Dawn's event
 * processing touches freed memory and the process crashes.
 */
const liveInstances: GPU[] = [];

/**
 * A new GPU (Dawn instance), kept alive for the process (liveInstances says
 * why): what a caller asking for an adapter of its own must use, never the
 * package's `create` directly. Dawn rounds timestamps unless told not to.
 */
export function createNodeGpu(): GPU {
  if (!installed) {
    Object.assign(globalThis, globals);
    installed = true;
  }
  // DAWN_ENABLE_FEATURES (comma-separated Dawn toggles, e.g. dump_shaders) is
  // for inspecting what Dawn hands the driver (bench/pipeline-stats/).
  const extra = process.env.DAWN_ENABLE_FEATURES;
  const gpu = create(['disable-dawn-features=timestamp_quantization', ...(extra ? [`enable-dawn-features=${extra}`] : [])]);
  liveInstances.push(gpu);
  return gpu;
}

/**
 * Creates a GPU and a device. Each call makes a new adapter (an adapter
 * gives out one device).
 */
export async function createNodeGpuContext(label?: string, options: { withoutFeatures?: GPUFeatureName[] } = {}): Promise<GpuContext> {
  const gpu = createNodeGpu();
  let context: GpuContext;
  try {
    context = await requestGpuContext(gpu, { ...(label ? { label } : {}), ...options });
  } catch (error) {
    if (!(error instanceof WebGpuUnavailableError)) throw error;
    throw new WebGpuUnavailableError(noAdapterAdvice({ icdFilenames: process.env.VK_ICD_FILENAMES, exists: existsSync }));
  }
  context.device.addEventListener('uncapturederror', (event) => {
    const message = `${label ?? 'device'}: uncaptured WebGPU error: ${(event as GPUUncapturedErrorEvent).error.message}`;
    recordUncapturedError(message);
    console.error(message);
  });
  return context;
}
