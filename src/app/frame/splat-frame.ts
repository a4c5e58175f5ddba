/**
 * One frame of the viewer, DOM-free (the browser, the tests and the Node
 * benchmark all use it): per-frame uniforms → projector (cull, project,
 * key the visible splats) → draw order → splats drawn back to front.
 *
 * The order is a DrawOrder: the GPU sort of this frame's keys (drawn with
 * drawIndirect from the projector's visible count), an uploaded CPU order,
 * or the frame's own FrozenOrder: the order drawn last, re-drawn without
 * sorting (the records are still projected for this frame's camera).
 *
 * The splats are drawn by one of two renderers (src/render/frame-renderer.ts):
 * quads blended into a float accumulation target (src/render/accumulation-
 * target.ts says why; 'direct' blends straight into the output, as a
 * comparison for the frame benchmark), or the compute tile renderer
 * (src/render/tiles/, driven by FrameTiles: frame-tiles.ts), which writes
 * each pixel once into a storage texture of the accumulation's format
 * (8-bit for 'direct'). Either picture is resolved to the output format in
 * a last pass. The sort difference view draws the frame twice, in the
 * order on screen and in the exact order of this frame's depths (a second
 * GPU sort on exact 32-bit keys), and shows where the two pictures differ.
 */
import { GpuPassTimer, setTimestampWrites } from '../../gpu/pass-timer';
import { FrameUniforms, type FrameParameters } from '../../render/frame-uniforms';
import { OrderErrorPass, type OrderErrorMeasure } from '../../render/order-error-pass';
import { SplatProjector, type SplatProjectorOptions } from '../../render/splat-projector';
import { SplatRenderer, type SplatDraw, type SplatDrawTarget, type SplatRendererOptions } from '../../render/splat-renderer';
import { SplatResolve, type DifferenceMeasure } from '../../render/splat-resolve';
import { AccumulationTargets, checkAccumulation, DEFAULT_ACCUMULATION, type Accumulation } from '../../render/accumulation-target';
import type { FrameRenderer, SplatOrder } from '../../render/frame-renderer';
import type { TilePairCounts, TileRenderer, TileRendererOptions } from '../../render/tiles/tile-renderer';
import type { GpuSplats } from '../../scene/gpu-splats';
import type { DrawOrder, OrderFrame, OrderedSplats } from './order/draw-order';
import { GpuSortOrder } from './order/gpu-sort-order';
import { FrozenOrder } from './order/frozen-order';
import { FrameTiles } from './frame-tiles';

export { tilePictureFormat } from './frame-tiles';

export type FramePass = 'project' | 'sort' | 'render';
export type FrameTimings = Record<FramePass, number | null>;
const FRAME_PASSES: readonly FramePass[] = ['project', 'sort', 'render'];

export interface SplatFrameOptions extends SplatProjectorOptions, SplatRendererOptions {
  /** Where the splats are blended (default rgba16float, then resolved to the output format). */
  accumulation?: Accumulation;
  /** The tile renderer's options (made when first asked for: prepareTiles). */
  tiles?: TileRendererOptions;
}

/**
 * What a frame shows: the picture; where the order on screen changes it
 * against the exact order (the sort difference view); or where ordering
 * each pixel's splats by their own depth changes it against the centre
 * depths (the per-pixel order view: the tile renderer draws both).
 */
export type FrameView = 'picture' | 'difference' | 'pixel-order';

export interface FrameEncodeOptions {
  /** Measure the ordering error of the drawn order too. */
  measure?: boolean;
  /** Default 'picture'; 'difference' needs prepareDifferenceView() first and a float accumulation. */
  view?: FrameView;
  /**
   * Default 'quads'. 'tiles' draws with the tile renderer once prepareTiles()
   * has made it (quads until then, and for a view needing more pairs than
   * the device sorts); `drawnWith` says which drew.
   */
  renderer?: FrameRenderer;
  /**
   * Default 'centre-depth'. 'per-pixel' orders each pixel's splats by their
   * depth along its ray; only the tile renderer can (quads draw centre
   * depths); `drawnOrder` says which order drew.
   */
  order?: SplatOrder;
}

export class SplatFrame {
  readonly uniforms: FrameUniforms;
  readonly timer: GpuPassTimer<FramePass>;
  private scene: GpuSplats | null = null;
  /** The most splats a frame of the scene draws (setScene). */
  private maxDrawn = 0;
  private timerBusy = false;
  /** The order drawn last, drawn again while the order is frozen. */
  readonly frozen: FrozenOrder;
  private readonly draw: SplatDraw = { records: null as unknown as GPUBuffer, order: null as unknown as GPUBuffer, count: 0 };
  private readonly orderFrame: OrderFrame = {
    encoder: null as unknown as GPUCommandEncoder,
    keyBits: 32,
    visibleCount: null as unknown as OrderFrame['visibleCount'],
    drawArgs: null as unknown as OrderFrame['drawArgs'],
    capacity: 0,
  };
  /** Passes that ran in the last timed frame. */
  private readonly timed = new Set<FramePass>();
  /** The float targets (null for 'direct'). */
  private readonly targets: AccumulationTargets | null;
  /** The difference view's reference order: made by prepareDifferenceView. */
  private exactOrder: GpuSortOrder | null = null;
  private exactOrderMade: Promise<void> | null = null;
  private readonly exactDraw: SplatDraw = { records: null as unknown as GPUBuffer, order: null as unknown as GPUBuffer, count: 0 };
  private readonly accumulationTarget: SplatDrawTarget = { view: null as unknown as GPUTextureView, background: [0, 0, 0] };

  static async create(device: GPUDevice, format: GPUTextureFormat, options: SplatFrameOptions = {}): Promise<SplatFrame> {
    const accumulation = options.accumulation ?? DEFAULT_ACCUMULATION;
    checkAccumulation(device, accumulation);
    const uniforms = new FrameUniforms(device, 'SplatFrame.uniforms');
    const [projector, renderer, resolve, measure] = await Promise.all([
      SplatProjector.create(device, uniforms.buffer, options),
      SplatRenderer.create(device, uniforms.buffer, accumulation === 'direct' ? format : accumulation, options),
      SplatResolve.create(device, format),
      OrderErrorPass.create(device),
    ]);
    const tiles = new FrameTiles(device, uniforms.buffer, format, accumulation, renderer, resolve, options.tiles ?? {});
    return new SplatFrame(device, uniforms, projector, renderer, resolve, measure, accumulation, tiles);
  }

  private constructor(
    private readonly device: GPUDevice,
    uniforms: FrameUniforms,
    readonly projector: SplatProjector,
    private readonly renderer: SplatRenderer,
    private readonly resolve: SplatResolve,
    private readonly measure: OrderErrorPass,
    readonly accumulation: Accumulation,
    /** The tile renderer's path: made when first asked for (prepareTiles). */
    private readonly tiles: FrameTiles,
  ) {
    this.uniforms = uniforms;
    this.timer = new GpuPassTimer(device, FRAME_PASSES, 'SplatFrame.timer');
    this.targets = accumulation === 'direct' ? null : new AccumulationTargets(device, accumulation);
    this.frozen = new FrozenOrder(device);
  }

  /** Which renderer drew the last frame. */
  drawnWith: FrameRenderer = 'quads';
  /** Which order the last frame's pixels were blended in. */
  drawnOrder: SplatOrder = 'centre-depth';

  /** Makes the tile renderer (its shaders and pair sort); frames may draw with tiles once this resolves. */
  prepareTiles(): Promise<void> {
    return this.tiles.prepare();
  }

  /**
   * Makes what the per-pixel order needs (the tile renderer, then its
   * per-pixel raster); frames asking for that order draw centre depths
   * until this resolves.
   */
  preparePerPixel(): Promise<void> {
    return this.tiles.preparePerPixel();
  }

  /** True once preparePerPixel has finished. */
  get perPixelReady(): boolean {
    return this.tiles.perPixelReady;
  }

  /** True once prepareTiles has finished. */
  get tilesReady(): boolean {
    return this.tiles.ready;
  }

  /** The tile renderer (null before prepareTiles finished): its pair figures and profile. */
  get tileRenderer(): TileRenderer | null {
    return this.tiles.renderer;
  }

  /**
   * The tile pairs of the last frame if the tile renderer drew it, once the
   * GPU has run it (call after its submit; null otherwise, or when that
   * frame's read was skipped). `overflowed`: its picture was not drawn,
   * the room is grown: draw the frame again.
   */
  readTilePairs(): Promise<TilePairCounts> | null {
    return this.tiles.readPairs();
  }

  /**
   * Makes what the sort difference view needs (a second GPU sort, for the
   * exact order). Frames may ask for the view once this resolves.
   */
  prepareDifferenceView(): Promise<void> {
    if (!this.targets) return Promise.reject(new Error(`the sort difference view needs a float accumulation target, not '${this.accumulation}'`));
    return (this.exactOrderMade ??= GpuSortOrder.create(this.device).then((order) => {
      this.exactOrder = order;
    }));
  }

  /** True once prepareDifferenceView has finished. */
  get canShowDifference(): boolean {
    return this.exactOrder !== null;
  }

  /** The per-pixel order view can be drawn: preparePerPixel has finished and the frame blends in floats. */
  get canShowPixelOrder(): boolean {
    return this.perPixelReady && this.targets !== null;
  }

  /**
   * Shows `scene` from the next frame on (the caller owns and destroys it);
   * null: none, the background alone. `maxDrawn` (default: all its splats)
   * bounds the splats a frame draws, and so the sort's buffers: a world's
   * pool holds more splats than a frame draws.
   */
  setScene(scene: GpuSplats | null, maxDrawn = scene?.count ?? 0): void {
    const most = Math.min(maxDrawn, scene?.count ?? 0);
    if (scene === this.scene && most === this.maxDrawn) return;
    if (scene !== this.scene) this.frozen.forget();
    this.scene = scene;
    this.maxDrawn = most;
    if (scene) this.projector.setScene(scene, most);
    else this.projector.destroy();
  }

  /** The order drawn by the last frame (borrowed; null before one, or after a scene change). */
  get drawn(): OrderedSplats | null {
    return this.frozen.drawn;
  }

  /** True when the frozen order has an order of this scene to draw again. */
  get canFreeze(): boolean {
    return this.frozen.ready;
  }

  /**
   * Records one frame into `encoder`. With `measure`, the ordering error of
   * the drawn order is measured too: returns true when it was (read it with
   * readOrderError after the submit); false when nothing was drawn or an
   * earlier measure is still being read.
   */
  encode(encoder: GPUCommandEncoder, parameters: FrameParameters, target: SplatDrawTarget, order: DrawOrder, options: FrameEncodeOptions = {}): boolean {
    this.uniforms.write(parameters);
    const scene = this.scene;
    const timing = !this.timerBusy && this.timer.enabled;
    if (timing) this.timed.clear();
    let drawn: OrderedSplats | null = null;
    let exact: OrderedSplats | null = null;
    let measured = false;
    const difference = options.view === 'difference';
    if (difference && !this.exactOrder) throw new Error('the sort difference view was asked for before prepareDifferenceView() finished');
    const pixelOrderView = options.view === 'pixel-order';
    if (pixelOrderView && !this.canShowPixelOrder) throw new Error(`the per-pixel order view was asked for before preparePerPixel() finished${this.targets ? '' : `, or without a float accumulation ('${this.accumulation}')`}`);
    if (scene && scene.count > 0) {
      const projector = this.projector;
      const keyTarget = order.keyTarget(this.maxDrawn);
      const exactTarget = difference ? this.exactOrder!.keyTarget(this.maxDrawn) : null;
      projector.encode(encoder, keyTarget, timing ? this.timer.timestampWrites('project') : undefined, exactTarget);
      if (timing) this.timed.add('project');
      const f = this.orderFrame;
      f.encoder = encoder;
      f.keyBits = parameters.keyBits;
      f.visibleCount = projector.visibleCount;
      f.drawArgs = projector.drawArgs;
      f.capacity = projector.capacity;
      // Only an order made from this frame's keys sorts.
      const sortWrites = timing && keyTarget ? this.timer.timestampWrites('sort') : undefined;
      setTimestampWrites(f, sortWrites);
      if (sortWrites) this.timed.add('sort');
      drawn = order.encode(f);
      this.frozen.keep(encoder, drawn);
      if (drawn && options.measure) {
        measured = this.measure.encode(encoder, { ...drawn, depths: projector.depths!, state: projector.state! });
      }
      if (difference) {
        const f = this.orderFrame;
        f.encoder = encoder;
        f.keyBits = 32;
        f.visibleCount = projector.visibleCount;
        f.drawArgs = projector.drawArgs;
        f.capacity = projector.capacity;
        delete f.timestampWrites;
        exact = this.exactOrder!.encode(f);
      }
    }
    const tiles = this.tiles.drawsFrame(options.renderer === 'tiles' || pixelOrderView);
    this.drawnWith = tiles ? 'tiles' : 'quads';
    // The per-pixel order once its raster is made (centre depths until then; the caller prepares it).
    this.drawnOrder = tiles && options.order === 'per-pixel' && this.tiles.perPixelReady ? 'per-pixel' : 'centre-depth';
    // Quads are drawn from the indirect draw's vertex count, tiles bin the order's entry count.
    const countOf = tiles ? 'entries' : 'vertices';
    const draw = this.drawOf(this.draw, drawn, countOf);
    const exactDraw = difference ? { exact: this.drawOf(this.exactDraw, exact, countOf) } : null;
    if (tiles) {
      const span = timing ? this.timer.spanWrites('render') : undefined;
      const perPixelScene = this.drawnOrder === 'per-pixel' ? scene : null;
      const maxEntries = drawn?.maxCount ?? 0;
      if (pixelOrderView) {
        // The drawn order in centre depths, then blended per pixel.
        this.drawnOrder = 'per-pixel';
        this.tiles.encode(encoder, parameters, target, draw, maxEntries, null, this.tiles.secondDraw(draw, maxEntries, scene), span);
      } else {
        // With the difference view, the exact order, in the same order per pixel.
        const second = exactDraw ? this.tiles.secondDraw(exactDraw.exact, exact?.maxCount ?? 0, perPixelScene) : null;
        this.tiles.encode(encoder, parameters, target, draw, maxEntries, perPixelScene, second, span);
      }
    } else {
      this.encodeDraws(encoder, parameters, target, draw, exactDraw, timing);
    }
    if (timing) {
      this.timed.add('render');
      this.timer.resolve(encoder);
    }
    return measured;
  }

  private drawOf(draw: SplatDraw, ordered: OrderedSplats | null, countOf: 'vertices' | 'entries'): SplatDraw | null {
    if (!ordered) return null;
    draw.records = this.projector.records!;
    draw.order = ordered.order;
    draw.count = countOf === 'vertices' ? (ordered.drawArgs ?? ordered.count) : ordered.count;
    return draw;
  }

  /**
   * The frame's render passes: the splats blended straight into the target,
   * or into the float target and resolved; with `difference`, also the
   * exact order into the second float target, and the heat map of the two
   * as the resolve. Timed as one span ('render').
   */
  private encodeDraws(
    encoder: GPUCommandEncoder,
    parameters: FrameParameters,
    target: SplatDrawTarget,
    draw: SplatDraw | null,
    difference: { exact: SplatDraw | null } | null,
    timing: boolean,
  ): void {
    const targets = this.targets;
    if (!targets) {
      this.renderer.encode(encoder, target, draw, timing ? this.timer.timestampWrites('render') : undefined);
      return;
    }
    const span = timing ? this.timer.spanWrites('render') : undefined;
    const { width, height } = parameters;
    const accumulation = this.accumulationTarget;
    accumulation.background = target.background;
    accumulation.view = targets.view(0, width, height);
    this.renderer.encode(encoder, accumulation, draw, span?.first);
    if (!difference) {
      this.resolve.encodePicture(encoder, accumulation.view, target.view, span?.last);
      return;
    }
    const picture = accumulation.view;
    accumulation.view = targets.view(1, width, height);
    this.renderer.encode(encoder, accumulation, difference.exact, undefined);
    this.resolve.encodeDifference(encoder, picture, accumulation.view, target.view, width * height, span?.last);
  }

  /**
   * The difference view's counts of the last frame that drew it and could
   * count (after its submit); null when no count waits to be read.
   */
  readDifference(): Promise<DifferenceMeasure> | null {
    return this.resolve.takeDifference();
  }

  /** The ordering error of the last measured frame (after its submit). */
  readOrderError(): Promise<OrderErrorMeasure> {
    return this.measure.read();
  }

  /** A measure was recorded and is not yet read. */
  get measuring(): boolean {
    return this.measure.pending;
  }

  /**
   * GPU times of the last timed frame's passes (null: not measured: no
   * timestamp-query, or the pass did not run). Call after submit; frames
   * recorded while a read is pending are not timed.
   */
  async readTimings(): Promise<FrameTimings> {
    this.timerBusy = true;
    try {
      const times = await this.timer.read();
      for (const name of this.timer.names) if (!this.timed.has(name)) times[name] = null;
      return times;
    } finally {
      this.timerBusy = false;
    }
  }

  destroy(): void {
    this.uniforms.destroy();
    this.projector.destroy();
    this.measure.destroy();
    this.timer.destroy();
    this.resolve.destroy();
    this.tiles.destroy();
    this.frozen.destroy();
    this.targets?.destroy();
    this.exactOrder?.destroy();
  }
}
