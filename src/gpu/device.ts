/**
 * Device setup shared by the browser, the Node tests and the benchmark: the
 * caller hands in its `GPU` (navigator.gpu in the browser, `create()` from the
 * `webgpu` package in Node), so nothing here touches the DOM.
 */

/**
 * Optional features used when the adapter has them: GPU pass timings, the
 * sort's subgroup ranking, blending into rgba32float (an accumulation
 * target offered beside the default rgba16float, src/render/accumulation-target.ts),
 * and writing a bgra8unorm canvas from a compute pass (src/render/output-target.ts).
 */
const WANTED_FEATURES: GPUFeatureName[] = ['timestamp-query', 'subgroups', 'float32-blendable', 'bgra8unorm-storage'];

/** Limits raised to what the adapter offers: the sort's tiles and large scenes need them. */
const RAISED_LIMITS = [
  'maxComputeWorkgroupStorageSize',
  'maxStorageBufferBindingSize',
  'maxBufferSize',
  'maxComputeWorkgroupsPerDimension',
  'maxStorageBuffersPerShaderStage',
  // Larger sort workgroups where the device allows them (radix-layout.ts).
  'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupSizeX',
] as const;

import { WebGpuUnavailableError } from './webgpu-unavailable';

export { WebGpuUnavailableError };

export interface GpuContext {
  adapter: GPUAdapter;
  device: GPUDevice;
  /** A human-readable adapter name, e.g. "nvidia-h100-80gb-hbm3 (vulkan)". */
  adapterName: string;
  hasTimestamps: boolean;
  /** The device has subgroup operations (the sort ranks with them when they pass its check). */
  hasSubgroups: boolean;
}

export async function requestGpuContext(
  gpu: GPU | undefined,
  options: {
    powerPreference?: GPUPowerPreference;
    label?: string;
    /** Optional features not to ask for even where offered (tests of the paths without them). */
    withoutFeatures?: GPUFeatureName[];
  } = {},
): Promise<GpuContext> {
  if (!gpu) {
    throw new WebGpuUnavailableError('WebGPU is not available: this browser has no navigator.gpu.');
  }
  const adapter = await gpu.requestAdapter({ powerPreference: options.powerPreference ?? 'high-performance' });
  if (!adapter) {
    throw new WebGpuUnavailableError('WebGPU is available but no GPU adapter was found (it may be blocklisted or disabled).');
  }
  const requiredFeatures = WANTED_FEATURES.filter((f) => adapter.features.has(f) && !options.withoutFeatures?.includes(f));
  const requiredLimits: Record<string, number> = {};
  for (const name of RAISED_LIMITS) requiredLimits[name] = adapter.limits[name];
  const device = await adapter.requestDevice({
    label: options.label ?? 'Splatsort.device',
    requiredFeatures,
    requiredLimits,
  });
  return {
    adapter,
    device,
    adapterName: describeAdapter(adapter.info),
    hasTimestamps: device.features.has('timestamp-query'),
    hasSubgroups: device.features.has('subgroups'),
  };
}

/** An adapter's name as people read it (a device's own adapterInfo names its adapter too). */
export function describeAdapter(info: GPUAdapterInfo): string {
  const name = info.description || info.device || info.architecture || info.vendor || 'unknown adapter';
  const backend = (info as { backendType?: string }).backendType;
  return backend ? `${name} (${backend})` : name;
}
