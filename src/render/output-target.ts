/**
 * The texture a frame ends in (the canvas's, or an offscreen one) and
 * whether a compute pass may write it. DOM-free.
 *
 * The last pass of a frame copies the blended picture into the output. As
 * a full-window render pass it costs what the GPU's raster hardware
 * allows, and on an H200, a compute GPU with little of it, that is 0.298
 * ms at 1920×1080 (1.18 ms at 3840×2160) for a copy, a third of the tile
 * frame, where a compute pass writing the same pixels takes 0.026 ms
 * (0.086): even a full-window triangle of one colour takes 0.298 ms
 * there (bench/resolve-passes.mjs; docs/benchmarks.md). So an output a
 * compute pass can write is made with STORAGE_BINDING usage, and the
 * resolve writes it by compute (SplatResolve).
 */

/** Formats a compute pass may write on every device (the output formats the viewer uses). */
const STORAGE_FORMATS: ReadonlySet<GPUTextureFormat> = new Set<GPUTextureFormat>(['rgba8unorm', 'rgba16float', 'rgba32float']);

/** Whether a compute pass may write a texture of `format` on `device` (bgra8unorm needs the bgra8unorm-storage feature). */
export function storageWritable(device: GPUDevice, format: GPUTextureFormat): boolean {
  return STORAGE_FORMATS.has(format) || (format === 'bgra8unorm' && device.features.has('bgra8unorm-storage'));
}

/** The usage to make or configure an output texture of `format` with: a render target, and a storage one where it can be. */
export function outputUsage(device: GPUDevice, format: GPUTextureFormat): GPUTextureUsageFlags {
  return GPUTextureUsage.RENDER_ATTACHMENT | (storageWritable(device, format) ? GPUTextureUsage.STORAGE_BINDING : 0);
}
