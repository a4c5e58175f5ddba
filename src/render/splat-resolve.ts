/**
 * The frame's last pass (shaders/splat_resolve.wgsl): the splats were
 * blended into a float accumulation target; this pass writes the picture to
 * the output format (the canvas, a PNG's rgba8unorm), rounding once. In the
 * sort difference view it compares two accumulated pictures of the same
 * frame instead (the order on screen and the exact order), draws the heat
 * map and counts the pixels that differ. For the tile renderer it writes
 * the tile picture, or, where that frame's pairs did not fit, draws the
 * frame's quads in the same pass (encodeTilePicture). DOM-free.
 */
import resolveSource from '../../shaders/splat_resolve.wgsl?raw';
import resolveComputeSource from '../../shaders/splat_resolve_compute.wgsl?raw';
import { setTimestampWrites } from '../gpu/pass-timer';
import { createCheckedShaderModule } from '../gpu/shader';
import { DIFFERENCE_STATS, RESOLVE_COMPUTE_SLOTS, RESOLVE_SLOTS, TILE_STATE } from './frame-layouts';
import type { SplatDraw, SplatDrawTarget, SplatRenderer } from './splat-renderer';
import { unbound } from '../gpu/unbound';
import { computePipeline, renderPipeline } from '../gpu/pipeline-cache';
import { storageWritable } from './output-target';

/** Where a resolve writes: the output's view, whether a compute pass may write it (SplatDrawTarget.writable), and its size in pixels. */
export interface ResolveTarget extends Pick<SplatDrawTarget, 'view' | 'writable'> {
  width: number;
  height: number;
}

/** Pixels on a side of a compute resolve's workgroup (@workgroup_size(8, 8) in splat_resolve_compute.wgsl). */
const RESOLVE_GROUP = 8;

type PassWrites = GPUComputePassTimestampWrites & GPURenderPassTimestampWrites;

/** The resolves by compute (null where the output format cannot be written by one). */
interface ComputeResolves {
  picture: GPUComputePipeline;
  tilePicture: GPUComputePipeline;
}

/** What the difference view measured, in 8-bit levels of the resolved picture. */
export interface DifferenceMeasure {
  /** Pixels of the frame. */
  pixelCount: number;
  /** Pixels where some channel differs by one level or more. */
  pixels: number;
  /** pixels / pixelCount. */
  fraction: number;
  /** The largest difference of any channel, levels (0..255). */
  largest: number;
  /** The mean of the per-pixel largest channel difference over the differing pixels (0 when none). */
  mean: number;
}

interface BoundViews {
  picture: GPUTextureView;
  exact: GPUTextureView | null;
  group: GPUBindGroup;
}

export class SplatResolve {
  private readonly stats: GPUBuffer;
  private readonly readback: GPUBuffer;
  private readonly zero = new Uint32Array(DIFFERENCE_STATS.size / 4);
  /** A count was recorded and not yet read (its readback is spoken for). */
  private busy = false;
  private reading = false;
  private measuredPixels = 0;
  private boundPicture: BoundViews | null = null;
  private boundOver: BoundViews | null = null;
  private boundDifference: BoundViews | null = null;
  private boundTiles: { picture: GPUTextureView; state: GPUBuffer; group: GPUBindGroup } | null = null;
  private boundCompute: { pipeline: GPUComputePipeline; picture: GPUTextureView; state: GPUBuffer | null; output: GPUTextureView; group: GPUBindGroup } | null = null;
  private readonly computeDescriptor: GPUComputePassDescriptor = { label: 'SplatResolve.computePass' };
  /** Timestamp writes split over a compute pass and the render pass after it, made once per writes. */
  private readonly split = new WeakMap<PassWrites, [PassWrites | undefined, PassWrites | undefined]>();
  private readonly attachment: GPURenderPassColorAttachment = {
    view: unbound<GPUTextureView>(),
    loadOp: 'clear',
    clearValue: { r: 0, g: 0, b: 0, a: 1 },
    storeOp: 'store',
  };
  private readonly descriptor: GPURenderPassDescriptor = { label: 'SplatResolve.pass', colorAttachments: [this.attachment] };

  /** With `over`, the resolve can also blend a picture over what its target holds (encodePicture's `over`). */
  static async create(device: GPUDevice, format: GPUTextureFormat, options: { over?: boolean } = {}): Promise<SplatResolve> {
    const [module, computes] = await Promise.all([
      createCheckedShaderModule(device, 'SplatResolve.shader', resolveSource),
      storageWritable(device, format) ? SplatResolve.createComputes(device, format) : null,
    ]);
    const pipeline = (entryPoint: string) =>
      renderPipeline(device, {
        label: `SplatResolve.${entryPoint}`,
        layout: 'auto',
        vertex: { module, entryPoint: 'vs_main' },
        fragment: { module, entryPoint, targets: [{ format }] },
        primitive: { topology: 'triangle-list' },
      });
    const blend: GPUBlendComponent = { srcFactor: 'one', dstFactor: 'one-minus-src-alpha', operation: 'add' };
    const [picture, difference, tilePicture, over] = await Promise.all([
      pipeline('fs_picture'),
      pipeline('fs_difference'),
      renderPipeline(device, {
        label: 'SplatResolve.fs_tile_picture',
        layout: 'auto',
        vertex: { module, entryPoint: 'vs_main' },
        fragment: { module, entryPoint: 'fs_tile_picture', targets: [{ format }], constants: { tile_total_word: TILE_STATE.word('total'), tile_capacity_word: TILE_STATE.word('capacity') } },
        primitive: { topology: 'triangle-list' },
      }),
      options.over
        ? renderPipeline(device, {
          label: 'SplatResolve.fs_over',
          layout: 'auto',
          vertex: { module, entryPoint: 'vs_main' },
          fragment: { module, entryPoint: 'fs_over', targets: [{ format, blend: { color: blend, alpha: blend } }] },
          primitive: { topology: 'triangle-list' },
        })
        : null,
    ]);
    return new SplatResolve(device, picture, difference, tilePicture, over, computes);
  }

  private static async createComputes(device: GPUDevice, format: GPUTextureFormat): Promise<ComputeResolves> {
    const module = await createCheckedShaderModule(device, `SplatResolve.compute(${format})`, resolveComputeSource.replaceAll('OUTPUT_FORMAT', format));
    const pipeline = (entryPoint: string, constants?: Record<string, number>) =>
      computePipeline(device, { label: `SplatResolve.${entryPoint}`, layout: 'auto', compute: { module, entryPoint, ...(constants ? { constants } : {}) } });
    const [picture, tilePicture] = await Promise.all([
      pipeline('cs_picture'),
      pipeline('cs_tile_picture', { tile_total_word: TILE_STATE.word('total'), tile_capacity_word: TILE_STATE.word('capacity'), tile_background_word: TILE_STATE.word('background_r') }),
    ]);
    return { picture, tilePicture };
  }

  private constructor(
    private readonly device: GPUDevice,
    private readonly picturePipeline: GPURenderPipeline,
    private readonly differencePipeline: GPURenderPipeline,
    private readonly tilePicturePipeline: GPURenderPipeline,
    /** Blends the picture over the target's (null unless made with `over`). */
    private readonly overPipeline: GPURenderPipeline | null,
    private readonly computes: ComputeResolves | null,
  ) {
    this.stats = device.createBuffer({ label: 'SplatResolve.stats', size: DIFFERENCE_STATS.size, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
    this.readback = device.createBuffer({ label: 'SplatResolve.readback', size: DIFFERENCE_STATS.size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  }

  /**
   * Writes the accumulated `picture` to `target` (a texture of the output
   * format); with `over`, blends it over what `target` holds instead (the
   * picture premultiplied, its alpha the splats' coverage).
   */
  encodePicture(encoder: GPUCommandEncoder, picture: GPUTextureView, target: ResolveTarget, timestampWrites?: PassWrites, over = false): void {
    if (over && !this.overPipeline) throw new Error('this resolve was made without over: it cannot blend over its target');
    if (!over && target.writable && this.computes) {
      this.dispatch(encoder, this.computes.picture, picture, null, target, timestampWrites);
      return;
    }
    const pipeline = over ? this.overPipeline! : this.picturePipeline;
    let b = over ? this.boundOver : this.boundPicture;
    if (!b || b.picture !== picture) {
      const group = this.device.createBindGroup({
        label: 'SplatResolve.pictureBindGroup',
        layout: pipeline.getBindGroupLayout(0),
        entries: RESOLVE_SLOTS.entries({ picture }),
      });
      b = { picture, exact: null, group };
      if (over) this.boundOver = b;
      else this.boundPicture = b;
    }
    this.attachment.loadOp = over ? 'load' : 'clear';
    this.draw(encoder, pipeline, b.group, target.view, timestampWrites);
    this.attachment.loadOp = 'clear';
  }

  /**
   * Writes the tile renderer's `picture` to `target`, cleared to
   * `background` first; where the frame's pairs did not fit (`state`, the
   * tile renderer's TileState), the picture is not read and
   * `fallbackRenderer` draws `fallbackDraw`, the frame's quads, over the
   * background instead: every frame whole, at the cost of an empty
   * indirect draw. Into a writable target the picture (or the background)
   * is written by compute and the quads' draw follows in a render pass that
   * loads it (on an H200 at 1920×1080: 0.037 ms for both, against 0.298 for
   * the one render pass).
   */
  encodeTilePicture(
    encoder: GPUCommandEncoder,
    picture: GPUTextureView,
    state: GPUBuffer,
    target: ResolveTarget,
    background: readonly [number, number, number],
    fallbackRenderer: SplatRenderer,
    fallbackDraw: SplatDraw,
    timestampWrites?: PassWrites,
  ): void {
    if (target.writable && this.computes) {
      const [first, last] = this.splitWrites(timestampWrites);
      this.dispatch(encoder, this.computes.tilePicture, picture, state, target, first);
      this.encodeTileFallback(encoder, target, fallbackRenderer, fallbackDraw, last);
      return;
    }
    let b = this.boundTiles;
    if (!b || b.picture !== picture || b.state !== state) {
      const group = this.device.createBindGroup({
        label: 'SplatResolve.tilePictureBindGroup',
        layout: this.tilePicturePipeline.getBindGroupLayout(0),
        entries: RESOLVE_SLOTS.entries({ picture, tile_words: { buffer: state } }),
      });
      b = this.boundTiles = { picture, state, group };
    }
    const clear = this.attachment.clearValue as GPUColorDict;
    [clear.r, clear.g, clear.b] = background;
    const pass = this.begin(encoder, this.tilePicturePipeline, b.group, target.view, timestampWrites);
    fallbackRenderer.record(pass, fallbackDraw);
    pass.end();
  }

  /**
   * The fallback alone, over what `target` holds: for a tile picture the
   * raster wrote into `target` itself (a writable output of its format),
   * the quads of a frame whose pairs did not fit, drawn over the
   * background the raster wrote then, in a render pass that loads the
   * target (no vertices when they fit).
   */
  encodeTileFallback(encoder: GPUCommandEncoder, target: ResolveTarget, fallbackRenderer: SplatRenderer, fallbackDraw: SplatDraw, timestampWrites?: PassWrites): void {
    this.attachment.view = target.view;
    this.attachment.loadOp = 'load';
    setTimestampWrites(this.descriptor, timestampWrites);
    const pass = encoder.beginRenderPass(this.descriptor);
    fallbackRenderer.record(pass, fallbackDraw);
    pass.end();
    this.attachment.loadOp = 'clear';
  }

  /**
   * One compute pass of `pipeline` over the output: `picture` (and the tile
   * renderer's `state`, for the tile picture) into `output`. Its bind
   * group is made again when the output changes (a canvas hands out a new
   * texture every frame).
   */
  private dispatch(encoder: GPUCommandEncoder, pipeline: GPUComputePipeline, picture: GPUTextureView, state: GPUBuffer | null, target: ResolveTarget, timestampWrites: PassWrites | undefined): void {
    const output = target.view;
    let b = this.boundCompute;
    if (!b || b.pipeline !== pipeline || b.picture !== picture || b.state !== state || b.output !== output) {
      const group = this.device.createBindGroup({
        label: 'SplatResolve.computeBindGroup',
        layout: pipeline.getBindGroupLayout(0),
        entries: RESOLVE_COMPUTE_SLOTS.entries({ picture, output, ...(state ? { tile_words: { buffer: state } } : {}) }),
      });
      b = this.boundCompute = { pipeline, picture, state, output, group };
    }
    setTimestampWrites(this.computeDescriptor, timestampWrites);
    const pass = encoder.beginComputePass(this.computeDescriptor);
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, b.group);
    pass.dispatchWorkgroups(Math.ceil(target.width / RESOLVE_GROUP), Math.ceil(target.height / RESOLVE_GROUP));
    pass.end();
  }

  /** Timestamp writes over two passes: the beginning on the first, the end on the second (each undefined where not asked for). */
  private splitWrites(writes: PassWrites | undefined): [PassWrites | undefined, PassWrites | undefined] {
    if (!writes) return [undefined, undefined];
    let split = this.split.get(writes);
    if (!split) {
      const { querySet, beginningOfPassWriteIndex: begin, endOfPassWriteIndex: end } = writes;
      split = [begin === undefined ? undefined : { querySet, beginningOfPassWriteIndex: begin }, end === undefined ? undefined : { querySet, endOfPassWriteIndex: end }];
      this.split.set(writes, split);
    }
    return split;
  }

  /**
   * Draws the difference heat map of `picture` (the order on screen) against
   * `exact` (the exact order) into `target`, `pixelCount` pixels. Returns
   * true when the pass also counts the differences for `readDifference`
   * (false while an earlier count is still being read).
   */
  encodeDifference(
    encoder: GPUCommandEncoder,
    picture: GPUTextureView,
    exact: GPUTextureView,
    target: GPUTextureView,
    pixelCount: number,
    timestampWrites?: GPURenderPassTimestampWrites,
  ): boolean {
    let b = this.boundDifference;
    if (!b || b.picture !== picture || b.exact !== exact) {
      const group = this.device.createBindGroup({
        label: 'SplatResolve.differenceBindGroup',
        layout: this.differencePipeline.getBindGroupLayout(0),
        entries: RESOLVE_SLOTS.entries({ picture, exact, stats: { buffer: this.stats } }),
      });
      b = this.boundDifference = { picture, exact, group };
    }
    // The counts of a frame whose read is pending would be lost with it:
    // the heat map is still drawn, the counting waits for the read.
    const counting = !this.busy;
    if (counting) this.device.queue.writeBuffer(this.stats, 0, this.zero);
    this.draw(encoder, this.differencePipeline, b.group, target, timestampWrites);
    if (counting) {
      this.busy = true;
      this.measuredPixels = pixelCount;
      encoder.copyBufferToBuffer(this.stats, 0, this.readback, 0, DIFFERENCE_STATS.size);
    }
    return counting;
  }

  /**
   * The counts of the last difference view that returned true, once its
   * commands were submitted; null when there is none to read or it is
   * already being read.
   */
  takeDifference(): Promise<DifferenceMeasure> | null {
    if (!this.busy || this.reading) return null;
    this.reading = true;
    return this.readDifference();
  }

  private async readDifference(): Promise<DifferenceMeasure> {
    try {
      await this.readback.mapAsync(GPUMapMode.READ);
      const words = new Uint32Array(this.readback.getMappedRange().slice(0));
      this.readback.unmap();
      const pixels = words[DIFFERENCE_STATS.word('pixels')]!;
      const pixelCount = this.measuredPixels;
      return {
        pixelCount,
        pixels,
        fraction: pixelCount > 0 ? pixels / pixelCount : 0,
        largest: words[DIFFERENCE_STATS.word('largest')]!,
        mean: pixels > 0 ? words[DIFFERENCE_STATS.word('total')]! / pixels : 0,
      };
    } finally {
      this.busy = false;
      this.reading = false;
    }
  }

  private draw(encoder: GPUCommandEncoder, pipeline: GPURenderPipeline, group: GPUBindGroup, target: GPUTextureView, timestampWrites?: GPURenderPassTimestampWrites): void {
    this.begin(encoder, pipeline, group, target, timestampWrites).end();
  }

  /** A pass into `target` with the full-window triangle of `pipeline` drawn; the caller ends it. */
  private begin(encoder: GPUCommandEncoder, pipeline: GPURenderPipeline, group: GPUBindGroup, target: GPUTextureView, timestampWrites?: GPURenderPassTimestampWrites): GPURenderPassEncoder {
    this.attachment.view = target;
    setTimestampWrites(this.descriptor, timestampWrites);
    const pass = encoder.beginRenderPass(this.descriptor);
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, group);
    pass.draw(3);
    return pass;
  }

  destroy(): void {
    this.stats.destroy();
    this.readback.destroy();
  }
}
