/**
 * The float textures a frame's splats are blended into before the resolve
 * pass (src/render/splat-resolve.ts) writes the picture out: one for the
 * picture, a second for the sort difference view's exact-order picture.
 * They follow the output's size, made again only when it changes (a
 * screenshot at another size costs one texture each way).
 *
 * Why float: blending straight into an 8-bit target rounds every layer to
 * 1/255 before the next is blended over it; the reference rasterizer keeps
 * the sum in f32 registers. rgba16float keeps 11 bits of mantissa per layer
 * and every WebGPU device can blend it; rgba32float needs the
 * 'float32-blendable' feature and twice the bandwidth (docs/benchmarks.md
 * compares the three).
 */

/**
 * How the splats are accumulated: a float target and a resolve pass, or
 * straight into the output ('direct'). rgb10a2unorm is measured beside
 * them: the 8-bit target's bytes per pixel, four times finer steps, not a
 * float.
 */
export type Accumulation = 'rgba16float' | 'rgba32float' | 'rgb10a2unorm' | 'direct';

/** Every accumulation, for the benchmark's and the render command's options. */
export const ACCUMULATIONS: readonly Accumulation[] = ['rgba16float', 'rgba32float', 'rgb10a2unorm', 'direct'];

export const DEFAULT_ACCUMULATION: Accumulation = 'rgba16float';

/** Throws when `device` cannot blend into the accumulation format. */
export function checkAccumulation(device: GPUDevice, accumulation: Accumulation): void {
  if (accumulation === 'rgba32float' && !device.features.has('float32-blendable')) {
    throw new Error("rgba32float accumulation needs the 'float32-blendable' feature, which this device does not have: use rgba16float");
  }
}

export class AccumulationTargets {
  private textures: GPUTexture[] = [];
  private readonly views: GPUTextureView[] = [];
  private width = 0;
  private height = 0;

  constructor(
    private readonly device: GPUDevice,
    readonly format: GPUTextureFormat,
    /** The textures' usage (the tile renderer's pictures add storage). */
    private readonly usage: GPUTextureUsageFlags = GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.TEXTURE_BINDING,
  ) {}

  /** The view of texture `index` (0: the picture, 1: the exact-order picture) at this size. */
  view(index: 0 | 1, width: number, height: number): GPUTextureView {
    if (width !== this.width || height !== this.height) {
      this.destroy();
      this.width = width;
      this.height = height;
    }
    let view = this.views[index];
    if (!view) {
      const texture = this.device.createTexture({
        label: `AccumulationTargets.${index === 0 ? 'picture' : 'exact'}(${this.format})`,
        size: [width, height],
        format: this.format,
        usage: this.usage,
      });
      this.textures[index] = texture;
      view = this.views[index] = texture.createView();
    }
    return view;
  }

  destroy(): void {
    for (const t of this.textures) t?.destroy();
    this.textures = [];
    this.views.length = 0;
  }
}
