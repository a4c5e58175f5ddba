/**
 * Draws the splats as instanced quads in the order of an index buffer
 * (shaders/splat_render.wgsl), premultiplied alpha "over", onto a colour
 * target of the given format.
 */
import commonSource from '../../shaders/splat_common.wgsl?raw';
import renderSource from '../../shaders/splat_render.wgsl?raw';
import { createCheckedShaderModule } from '../gpu/shader';
import { FIRST_PASS_BINDING, type GpuSplats } from '../scene/gpu-splats';
import { CLIP_MARGIN_PX, CLIP_SLACK_PX } from './splat-size-cap';

export { CLIP_MARGIN_PX, CLIP_SLACK_PX };

/** Options of SplatRenderer.create. */
export interface SplatRendererOptions {
  /**
   * 'flat' swaps in a constant blended fragment (fs_flat): the same quads
   * and blending, for benchmarks that separate raster cost from the splat
   * math.
   */
  fragment?: 'splat' | 'flat';
  /**
   * How far past the window (pixels) a splat's quad may reach before it is
   * drawn clipped to the window (default CLIP_MARGIN_PX; the cap is argued
   * in src/render/splat-size-cap.ts). Tests set CLIP_ALWAYS to draw every
   * splat through the clipped path, CLIP_NEVER for the picture without the
   * cap.
   */
  clipMarginPx?: number;
  /**
   * How far the clipped rectangle reaches past the window, pixels (default
   * CLIP_SLACK_PX). Tests set CLIP_DROP to see which splats took the
   * clipped path: those are then culled.
   */
  clipSlackPx?: number;
}

/** clipMarginPx that sends every splat through the clipped path. */
export const CLIP_ALWAYS = -1e30;
/** clipMarginPx that never clips: the oriented quads of before the cap. */
export const CLIP_NEVER = 1e30;
/** clipSlackPx that culls every splat the cap clips (a window minus 1e30 px is empty). */
export const CLIP_DROP = -1e30;

export interface SplatDrawTarget {
  view: GPUTextureView;
  /** Premultiplied clear colour, r g b in 0..1 (opaque). */
  background: readonly [number, number, number];
}

export class SplatRenderer {
  /** The pipeline of the bound scene: singlePipeline, or the variant for scenes split across chunks. */
  private pipeline: GPURenderPipeline;
  private chunkedPipeline: GPURenderPipeline | null = null;
  private bindGroup: GPUBindGroup | null = null;
  private bound: { scene: GpuSplats; order: GPUBuffer } | null = null;
  // Reused every frame (nothing allocated per frame); the view is set per frame.
  private readonly attachment: GPURenderPassColorAttachment = {
    view: null as unknown as GPUTextureView,
    clearValue: { r: 0, g: 0, b: 0, a: 1 },
    loadOp: 'clear',
    storeOp: 'store',
  };
  private readonly descriptor: GPURenderPassDescriptor = { label: 'SplatRenderer.pass', colorAttachments: [this.attachment] };

  /** See SplatRendererOptions. */
  static async create(
    device: GPUDevice,
    frame: GPUBuffer,
    format: GPUTextureFormat,
    options: SplatRendererOptions = {},
  ): Promise<SplatRenderer> {
    const clipMarginPx = options.clipMarginPx ?? CLIP_MARGIN_PX;
    const clipSlackPx = options.clipSlackPx ?? CLIP_SLACK_PX;
    // Override constants must be finite f32s: ±1e30 are the "always" and
    // "never" values (a window is never 1e30 px; f32 ends at 3.4e38).
    for (const [name, value] of [['clipMarginPx', clipMarginPx], ['clipSlackPx', clipSlackPx]] as const) {
      if (!(Math.abs(value) <= 1e30)) throw new RangeError(`SplatRenderer: ${name} must be within ±1e30, got ${value}`);
    }
    const module = await createCheckedShaderModule(device, 'SplatRenderer.shader', `${commonSource}\n${renderSource}`);
    const descriptor = (chunked: boolean): GPURenderPipelineDescriptor => {
      const blend: GPUBlendComponent = { srcFactor: 'one', dstFactor: 'one-minus-src-alpha', operation: 'add' };
      return {
        label: chunked ? 'SplatRenderer.pipeline(chunked)' : 'SplatRenderer.pipeline',
        layout: 'auto',
        vertex: { module, entryPoint: 'vs_main', constants: { chunked: chunked ? 1 : 0, clip_margin_px: clipMarginPx, clip_slack_px: clipSlackPx } },
        fragment: { module, entryPoint: options.fragment === 'flat' ? 'fs_flat' : 'fs_main', targets: [{ format, blend: { color: blend, alpha: blend } }] },
        primitive: { topology: 'triangle-strip' },
      };
    };
    const pipeline = await device.createRenderPipelineAsync(descriptor(false));
    return new SplatRenderer(device, pipeline, () => device.createRenderPipeline(descriptor(true)), frame);
  }

  private constructor(
    private readonly device: GPUDevice,
    private readonly singlePipeline: GPURenderPipeline,
    /** Makes the variant for split scenes, when first needed. */
    private readonly makeChunkedPipeline: () => GPURenderPipeline,
    private readonly frame: GPUBuffer,
  ) {
    this.pipeline = singlePipeline;
  }

  /**
   * Records a render pass that clears the target and draws `count` splats
   * of `scene` in `order` (borrowed). Without a scene (or with count 0) the
   * pass only clears.
   */
  encode(
    encoder: GPUCommandEncoder,
    target: SplatDrawTarget,
    draw: { scene: GpuSplats | null; order: GPUBuffer; count: number },
    timestampWrites?: GPURenderPassTimestampWrites,
  ): void {
    const b = this.bound;
    const drawing = draw.scene !== null && draw.count > 0;
    if (drawing && (!b || b.scene !== draw.scene || b.order !== draw.order)) {
      this.bound = { scene: draw.scene!, order: draw.order };
      // One pipeline per kind of scene: the one-chunk variant has no chunk switch.
      this.pipeline = draw.scene!.chunks.length === 1 ? this.singlePipeline : (this.chunkedPipeline ??= this.makeChunkedPipeline());
      this.bindGroup = this.device.createBindGroup({
        label: 'SplatRenderer.bindGroup',
        layout: this.pipeline.getBindGroupLayout(0),
        entries: [
          { binding: 0, resource: { buffer: this.frame } },
          ...draw.scene!.bindGroupEntries(),
          { binding: FIRST_PASS_BINDING, resource: { buffer: draw.order } },
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
    if (drawing) {
      pass.setPipeline(this.pipeline);
      pass.setBindGroup(0, this.bindGroup!);
      pass.draw(4, draw.count);
    }
    pass.end();
  }
}
