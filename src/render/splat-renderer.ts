/**
 * Draws projected splats (SplatProjector's records) as quads in the order
 * of an index buffer (shaders/splat_render.wgsl), premultiplied alpha
 * "over", onto a colour target of the given format: one draw of six
 * vertices per splat (two triangles), the vertex shader finding its splat
 * and corner from the vertex index. The vertex count comes from the CPU
 * or, for the GPU sort's order, from the projector's drawIndirect
 * arguments.
 *
 * Not one instance per splat: CPU rasterizers pay for every instance
 * (SwiftShader drew a 153k-splat frame at 64×40 in 5.0 s instanced, 0.3 s
 * this way, and 54–64 s instanced beside a second such process on two
 * cores), while on an H200 the render pass took the same time either way
 * where raster-bound and up to 0.67 ms (2–6 %) longer where vertex-bound
 * (1.8M small splats seen from outside; docs/benchmarks.md).
 */
import commonSource from '../../shaders/splat_common.wgsl?raw';
import recordsSource from '../../shaders/splat_records.wgsl?raw';
import renderSource from '../../shaders/splat_render.wgsl?raw';
import { setTimestampWrites } from '../gpu/pass-timer';
import { createCheckedShaderModule } from '../gpu/shader';
import { QUAD_VERTICES, RENDER_SLOTS } from './frame-layouts';
import type { GpuCount } from './splat-projector';
import { unbound } from '../gpu/unbound';
import { renderPipeline } from '../gpu/pipeline-cache';

/** Options of SplatRenderer.create. */
export interface SplatRendererOptions {
  /**
   * 'flat' swaps in a constant blended fragment (fs_flat): the same quads
   * and blending, for benchmarks that separate raster cost from the splat
   * math.
   */
  fragment?: 'splat' | 'flat';
}

export interface SplatDrawTarget {
  view: GPUTextureView;
  /** Premultiplied clear colour, r g b in 0..1 (opaque). */
  background: readonly [number, number, number];
}

/** What one draw reads: records indexed by splat, the order naming splats, and how many entries of it to draw. */
export interface SplatDraw {
  records: GPUBuffer;
  order: GPUBuffer;
  /** Entries of `order` to draw: a number, or drawIndirect's arguments on the GPU. */
  count: number | GpuCount;
}

interface BoundDraw {
  records: GPUBuffer;
  order: GPUBuffer;
  group: GPUBindGroup;
}

/** Bind groups kept: a frame of the sort difference view draws two orders (the one on screen, the exact one). */
const BOUND_DRAWS = 2;

export class SplatRenderer {
  /** The most recently made first. */
  private readonly bound: BoundDraw[] = [];
  // Reused every frame (nothing allocated per frame); the view is set per frame.
  private readonly attachment: GPURenderPassColorAttachment = {
    view: unbound<GPUTextureView>(),
    clearValue: { r: 0, g: 0, b: 0, a: 1 },
    loadOp: 'clear',
    storeOp: 'store',
  };
  private readonly descriptor: GPURenderPassDescriptor = { label: 'SplatRenderer.pass', colorAttachments: [this.attachment] };

  static async create(device: GPUDevice, frame: GPUBuffer, format: GPUTextureFormat, options: SplatRendererOptions = {}): Promise<SplatRenderer> {
    const module = await createCheckedShaderModule(device, 'SplatRenderer.shader', `${commonSource}\n${recordsSource}\n${renderSource}`);
    const blend: GPUBlendComponent = { srcFactor: 'one', dstFactor: 'one-minus-src-alpha', operation: 'add' };
    const pipeline = await renderPipeline(device, {
      label: 'SplatRenderer.pipeline',
      layout: 'auto',
      vertex: { module, entryPoint: 'vs_main' },
      fragment: { module, entryPoint: options.fragment === 'flat' ? 'fs_flat' : 'fs_main', targets: [{ format, blend: { color: blend, alpha: blend } }] },
      primitive: { topology: 'triangle-list' },
    });
    return new SplatRenderer(device, pipeline, frame);
  }

  private constructor(
    private readonly device: GPUDevice,
    private readonly pipeline: GPURenderPipeline,
    private readonly frame: GPUBuffer,
  ) {}

  /**
   * Records a render pass that clears the target and draws `draw` (its
   * buffers borrowed). Without a draw (or with count 0) the pass only clears.
   */
  encode(encoder: GPUCommandEncoder, target: SplatDrawTarget, draw: SplatDraw | null, timestampWrites?: GPURenderPassTimestampWrites): void {
    const attachment = this.attachment;
    attachment.view = target.view;
    const clear = attachment.clearValue as GPUColorDict;
    [clear.r, clear.g, clear.b] = target.background;
    const descriptor = this.descriptor;
    setTimestampWrites(descriptor, timestampWrites);
    const pass = encoder.beginRenderPass(descriptor);
    if (draw) this.record(pass, draw);
    pass.end();
  }

  /** Records `draw` into a render pass of the caller's (whose target has this renderer's format). */
  record(pass: GPURenderPassEncoder, draw: SplatDraw): void {
    if (draw.count === 0) return;
    pass.setPipeline(this.pipeline);
    pass.setBindGroup(0, this.bindGroupFor(draw));
    if (typeof draw.count === 'number') pass.draw(QUAD_VERTICES * draw.count);
    else pass.drawIndirect(draw.count.buffer, draw.count.offset);
  }

  private bindGroupFor(draw: SplatDraw): GPUBindGroup {
    const bound = this.bound;
    for (const b of bound) if (b.records === draw.records && b.order === draw.order) return b.group;
    const group = this.device.createBindGroup({
      label: 'SplatRenderer.bindGroup',
      layout: this.pipeline.getBindGroupLayout(0),
      entries: RENDER_SLOTS.entries({ frame: { buffer: this.frame }, records: { buffer: draw.records }, order: { buffer: draw.order } }),
    });
    // The oldest goes: orders change only with a new scene, a larger sort or a new upload buffer.
    if (bound.length === BOUND_DRAWS) bound.pop();
    bound.unshift({ records: draw.records, order: draw.order, group });
    return group;
  }
}
