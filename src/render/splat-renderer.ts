/**
 * Draws the splats as instanced quads in the order of an index buffer
 * (shaders/splat_render.wgsl), premultiplied alpha "over", onto a colour
 * target of the given format.
 */
import commonSource from '../../shaders/splat_common.wgsl?raw';
import renderSource from '../../shaders/splat_render.wgsl?raw';
import { createCheckedShaderModule } from '../gpu/shader';

export interface SplatDrawTarget {
  view: GPUTextureView;
  /** Premultiplied clear colour, r g b in 0..1 (opaque). */
  background: readonly [number, number, number];
}

export class SplatRenderer {
  private bindGroup: GPUBindGroup | null = null;
  private bound: { splats: GPUBuffer; sh: GPUBuffer; order: GPUBuffer } | null = null;
  // Reused every frame (nothing allocated per frame); the view is set per frame.
  private readonly attachment: GPURenderPassColorAttachment = {
    view: null as unknown as GPUTextureView,
    clearValue: { r: 0, g: 0, b: 0, a: 1 },
    loadOp: 'clear',
    storeOp: 'store',
  };
  private readonly descriptor: GPURenderPassDescriptor = { label: 'SplatRenderer.pass', colorAttachments: [this.attachment] };

  /**
   * `fragment: 'flat'` swaps in a constant blended fragment (fs_flat): the
   * same quads and blending, for benchmarks that separate raster cost from
   * the splat math.
   */
  static async create(
    device: GPUDevice,
    frame: GPUBuffer,
    format: GPUTextureFormat,
    options: { fragment?: 'splat' | 'flat' } = {},
  ): Promise<SplatRenderer> {
    const module = await createCheckedShaderModule(device, 'SplatRenderer.shader', `${commonSource}\n${renderSource}`);
    const blend: GPUBlendComponent = { srcFactor: 'one', dstFactor: 'one-minus-src-alpha', operation: 'add' };
    const pipeline = await device.createRenderPipelineAsync({
      label: 'SplatRenderer.pipeline',
      layout: 'auto',
      vertex: { module, entryPoint: 'vs_main' },
      fragment: { module, entryPoint: options.fragment === 'flat' ? 'fs_flat' : 'fs_main', targets: [{ format, blend: { color: blend, alpha: blend } }] },
      primitive: { topology: 'triangle-strip' },
    });
    return new SplatRenderer(device, pipeline, frame);
  }

  private constructor(
    private readonly device: GPUDevice,
    private readonly pipeline: GPURenderPipeline,
    private readonly frame: GPUBuffer,
  ) {}

  /** Records a render pass that clears the target and draws `count` splats in `order` (borrowed). */
  encode(
    encoder: GPUCommandEncoder,
    target: SplatDrawTarget,
    scene: { splats: GPUBuffer; sh: GPUBuffer; order: GPUBuffer; count: number },
    timestampWrites?: GPURenderPassTimestampWrites,
  ): void {
    const b = this.bound;
    if (!b || b.splats !== scene.splats || b.sh !== scene.sh || b.order !== scene.order) {
      this.bound = { splats: scene.splats, sh: scene.sh, order: scene.order };
      this.bindGroup = this.device.createBindGroup({
        label: 'SplatRenderer.bindGroup',
        layout: this.pipeline.getBindGroupLayout(0),
        entries: [
          { binding: 0, resource: { buffer: this.frame } },
          { binding: 1, resource: { buffer: scene.splats } },
          { binding: 2, resource: { buffer: scene.sh } },
          { binding: 3, resource: { buffer: scene.order } },
        ],
      });
    }
    const attachment = this.attachment;
    attachment.view = target.view;
    const clear = attachment.clearValue as GPUColorDict;
    [clear.r, clear.g, clear.b] = target.background;
    const descriptor = this.descriptor;
    if (timestampWrites) descriptor.timestampWrites = timestampWrites;
    else delete descriptor.timestampWrites;
    const pass = encoder.beginRenderPass(descriptor);
    if (scene.count > 0) {
      pass.setPipeline(this.pipeline);
      pass.setBindGroup(0, this.bindGroup!);
      pass.draw(4, scene.count);
    }
    pass.end();
  }
}
