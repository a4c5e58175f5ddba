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
  /**
   * Quads drawn over another renderer's picture, tested against its depth
   * buffer (read only; SplatDrawTarget.depth): the depth format, and the
   * compare function that passes a fragment nearer than the stored depth
   * ('less' for a 0-near projection, 'greater' for reversed depth).
   */
  depthTest?: { format: GPUTextureFormat; compare: GPUCompareFunction };
}

export interface SplatDrawTarget {
  view: GPUTextureView;
  /** Premultiplied clear colour, r g b in 0..1 (opaque). */
  background: readonly [number, number, number];
  /**
   * Splats drawn over the picture the target already holds (another
   * renderer's: src/lib/engine.ts) instead of over the background: the
   * target is kept, and blended into where the splats cover it.
   */
  over?: boolean;
  /** A depth buffer (read only) the splats are tested against: another renderer's meshes hide the splats behind them. */
  depth?: GPUTextureView;
  /**
   * The view's texture was made with STORAGE_BINDING (render/output-target.ts
   * outputUsage): the frame's last pass writes it by compute, not by a
   * render pass. Absent: a render pass.
   */
  writable?: boolean;
}

/** What one draw reads: records indexed by splat, the order naming splats, and how many entries of it to draw. */
export interface SplatDraw {
  records: GPUBuffer;
  order: GPUBuffer;
  /** Entries of `order` to draw: a number, or drawIndirect's arguments on the GPU. */
  count: number | GpuCount;
  /** The splats' view depths (the projector's), which a depth-tested draw places its quads by. */
  depths?: GPUBuffer;
  /** What the projector kept, by which the per-pixel order places its ray shapes (tiles/tile-ray-shapes.ts). */
  kept?: KeptSplats;
}

/** What the projector kept this frame. */
export interface KeptSplats {
  /** Its view depths per splat (CULLED_DEPTH: culled). */
  depths: GPUBuffer;
  /** Its VisibleState: the kept splats' count and each projector tile's first slot among them. */
  visible: GPUBuffer;
  /** The most splats it keeps (its capacity: a world's budget, else the scene's splats). */
  capacity: number;
}

interface BoundDraw {
  pipeline: GPURenderPipeline;
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
  private depthStencil: GPURenderPassDepthStencilAttachment | undefined;

  static async create(device: GPUDevice, frame: GPUBuffer, format: GPUTextureFormat, options: SplatRendererOptions = {}): Promise<SplatRenderer> {
    const module = await createCheckedShaderModule(device, 'SplatRenderer.shader', `${commonSource}\n${recordsSource}\n${renderSource}`);
    const blend: GPUBlendComponent = { srcFactor: 'one', dstFactor: 'one-minus-src-alpha', operation: 'add' };
    const fragment: GPUFragmentState = { module, entryPoint: options.fragment === 'flat' ? 'fs_flat' : 'fs_main', targets: [{ format, blend: { color: blend, alpha: blend } }] };
    const primitive: GPUPrimitiveState = { topology: 'triangle-list' };
    const depthTest = options.depthTest;
    const [pipeline, depthTested] = await Promise.all([
      renderPipeline(device, { label: 'SplatRenderer.pipeline', layout: 'auto', vertex: { module, entryPoint: 'vs_main' }, fragment, primitive }),
      depthTest
        ? renderPipeline(device, {
          label: 'SplatRenderer.depthTestedPipeline',
          layout: 'auto',
          vertex: { module, entryPoint: 'vs_depth_tested' },
          fragment,
          primitive,
          depthStencil: { format: depthTest.format, depthWriteEnabled: false, depthCompare: depthTest.compare },
        })
        : null,
    ]);
    return new SplatRenderer(device, pipeline, depthTested, frame);
  }

  private constructor(
    private readonly device: GPUDevice,
    private readonly pipeline: GPURenderPipeline,
    /** The quads tested against a depth buffer (null unless made with depthTest). */
    private readonly depthTested: GPURenderPipeline | null,
    private readonly frame: GPUBuffer,
  ) {}

  /**
   * Records a render pass that clears the target and draws `draw` (its
   * buffers borrowed). Without a draw (or with count 0) the pass only clears.
   */
  encode(encoder: GPUCommandEncoder, target: SplatDrawTarget, draw: SplatDraw | null, timestampWrites?: GPURenderPassTimestampWrites): void {
    const attachment = this.attachment;
    attachment.view = target.view;
    attachment.loadOp = target.over ? 'load' : 'clear';
    const clear = attachment.clearValue as GPUColorDict;
    [clear.r, clear.g, clear.b] = target.background;
    const descriptor = this.descriptor;
    descriptor.depthStencilAttachment = target.depth ? this.depthAttachment(target.depth) : undefined;
    setTimestampWrites(descriptor, timestampWrites);
    const pass = encoder.beginRenderPass(descriptor);
    if (draw) this.record(pass, draw, target.depth !== undefined);
    pass.end();
  }

  /**
   * Clears `view` to transparent black and draws `draw` into it: the
   * splats' own picture, premultiplied, its alpha their coverage, for
   * blending over another renderer's (tested against its `depth`).
   */
  encodeLayer(encoder: GPUCommandEncoder, view: GPUTextureView, depth: GPUTextureView | undefined, draw: SplatDraw | null, timestampWrites?: GPURenderPassTimestampWrites): void {
    const attachment = this.attachment;
    const clear = attachment.clearValue as GPUColorDict;
    clear.a = 0;
    this.encode(encoder, { view, background: [0, 0, 0], depth }, draw, timestampWrites);
    clear.a = 1;
  }

  private depthAttachment(view: GPUTextureView): GPURenderPassDepthStencilAttachment {
    const attachment = (this.depthStencil ??= { view, depthReadOnly: true, stencilReadOnly: true });
    attachment.view = view;
    return attachment;
  }

  /** Records `draw` into a render pass of the caller's (whose target has this renderer's format; with `depthTested`, a depth buffer too). */
  record(pass: GPURenderPassEncoder, draw: SplatDraw, depthTested = false): void {
    if (draw.count === 0) return;
    const pipeline = depthTested ? this.depthTestedPipeline(draw) : this.pipeline;
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, this.bindGroupFor(pipeline, draw));
    if (typeof draw.count === 'number') pass.draw(QUAD_VERTICES * draw.count);
    else pass.drawIndirect(draw.count.buffer, draw.count.offset);
  }

  private depthTestedPipeline(draw: SplatDraw): GPURenderPipeline {
    if (!this.depthTested) throw new Error('these quads were made without a depth test (SplatRendererOptions.depthTest): they cannot draw against a depth buffer');
    if (!draw.depths) throw new Error("a depth-tested draw needs the splats' view depths");
    return this.depthTested;
  }

  private bindGroupFor(pipeline: GPURenderPipeline, draw: SplatDraw): GPUBindGroup {
    const bound = this.bound;
    for (const b of bound) if (b.pipeline === pipeline && b.records === draw.records && b.order === draw.order) return b.group;
    const depthTested = pipeline === this.depthTested;
    const group = this.device.createBindGroup({
      label: 'SplatRenderer.bindGroup',
      layout: pipeline.getBindGroupLayout(0),
      entries: RENDER_SLOTS.entries({
        frame: { buffer: this.frame },
        records: { buffer: draw.records },
        order: { buffer: draw.order },
        depths: depthTested ? { buffer: draw.depths! } : undefined,
      }),
    });
    // The oldest goes: orders change only with a new scene, a larger sort or a new upload buffer.
    if (bound.length === BOUND_DRAWS) bound.pop();
    bound.unshift({ pipeline, records: draw.records, order: draw.order, group });
    return group;
  }
}
