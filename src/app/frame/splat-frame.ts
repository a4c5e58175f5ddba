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
 * The splats are drawn by one of two painters (src/render/painter.ts): the
 * quad renderer's, blending into a float accumulation target and resolving
 * it ('direct' blends straight into the output, as a comparison for the
 * frame benchmark), or the compute tile renderer's, made when first asked
 * for, which writes each pixel once and may blend each pixel's splats in
 * their per-pixel order. The frame hands the painter asked for one job when
 * it can paint, and the quad painter otherwise. The sort difference view
 * draws the frame twice, in the order on screen and in the exact order of
 * this frame's depths (a second GPU sort on exact 32-bit keys), and shows
 * where the two pictures differ.
 */
import { GpuPassTimer, setTimestampWrites } from '../../gpu/pass-timer';
import { FrameUniforms, type FrameParameters } from '../../render/frame-uniforms';
import { OrderErrorPass, type OrderErrorMeasure } from '../../render/order-error-pass';
import { SplatProjector, type SplatProjectorOptions } from '../../render/splat-projector';
import { SplatRenderer, type SplatDrawTarget, type SplatRendererOptions } from '../../render/splat-renderer';
import { SplatResolve, type DifferenceMeasure } from '../../render/splat-resolve';
import { checkAccumulation, DEFAULT_ACCUMULATION, type Accumulation } from '../../render/accumulation-target';
import type { FrameRenderer, SplatOrder } from '../../render/frame-renderer';
import type { PaintedPicture, PaintJob, Painter, PaintStatistics, PaintTiming } from '../../render/painter';
import { QuadPainter } from '../../render/quad-painter';
import { TilePainter } from '../../render/tiles/tile-painter';
import type { TileRendererOptions } from '../../render/tiles/tile-renderer';
import type { GpuSplats } from '../../scene/gpu-splats';
import type { DrawOrder, OrderFrame, OrderedSplats } from './order/draw-order';
import { GpuSortOrder } from './order/gpu-sort-order';
import { FrozenOrder } from './order/frozen-order';
import { unbound } from '../../gpu/unbound';

export type FramePass = 'project' | 'sort' | 'render';
export type FrameTimings = Record<FramePass, number | null>;
const FRAME_PASSES: readonly FramePass[] = ['project', 'sort', 'render'];

export interface SplatFrameOptions extends SplatProjectorOptions, SplatRendererOptions {
  /** Where the splats are blended (default rgba16float, then resolved to the output format). */
  accumulation?: Accumulation;
  /** The tile renderer's options (made when first asked for: painters.tiles.prepare()). */
  tiles?: TileRendererOptions;
  /** Frames may be drawn over their target's picture (SplatDrawTarget.over); implied by depthTest. */
  over?: boolean;
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
   * Default 'quads'. 'tiles' draws with the tile painter once its prepare()
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

/** The frame's painters, one for each renderer. */
export interface FramePainters extends Record<FrameRenderer, Painter> {
  readonly quads: QuadPainter;
  readonly tiles: TilePainter;
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
  private readonly orderFrame: OrderFrame = {
    encoder: unbound<GPUCommandEncoder>(),
    keyBits: 32,
    visibleCount: unbound<OrderFrame['visibleCount']>(),
    drawArgs: unbound<OrderFrame['drawArgs']>(),
    capacity: 0,
  };
  /** Passes that ran in the last timed frame. */
  private readonly timed = new Set<FramePass>();
  /** The difference view's reference order: made by prepareDifferenceView. */
  private exactOrder: GpuSortOrder | null = null;
  private exactOrderMade: Promise<void> | null = null;
  /** Reused every frame: the painter's job, its second picture, its timing. */
  private readonly job: PaintJob;
  private readonly secondPicture: PaintedPicture = { order: null, perPixel: null };
  private paintTiming: PaintTiming | undefined;
  /** The painter of the last frame. */
  private painter: Painter;

  static async create(device: GPUDevice, format: GPUTextureFormat, options: SplatFrameOptions = {}): Promise<SplatFrame> {
    const accumulation = options.accumulation ?? DEFAULT_ACCUMULATION;
    checkAccumulation(device, accumulation);
    const uniforms = new FrameUniforms(device, 'SplatFrame.uniforms');
    const [projector, quads, resolve, measure] = await Promise.all([
      SplatProjector.create(device, uniforms.buffer, options),
      SplatRenderer.create(device, uniforms.buffer, accumulation === 'direct' ? format : accumulation, options),
      SplatResolve.create(device, format, { over: options.depthTest !== undefined || options.over }),
      OrderErrorPass.create(device),
    ]);
    const painters: FramePainters = {
      quads: new QuadPainter(device, uniforms.buffer, quads, resolve, accumulation, options.tiles?.maxPairs),
      tiles: new TilePainter(device, uniforms.buffer, format, accumulation, quads, resolve, options.tiles ?? {}),
    };
    return new SplatFrame(device, uniforms, projector, resolve, measure, accumulation, painters);
  }

  private constructor(
    private readonly device: GPUDevice,
    uniforms: FrameUniforms,
    readonly projector: SplatProjector,
    private readonly resolve: SplatResolve,
    private readonly measure: OrderErrorPass,
    readonly accumulation: Accumulation,
    /** The painters: quads made with the frame, tiles when first prepared. */
    readonly painters: FramePainters,
  ) {
    this.uniforms = uniforms;
    this.timer = new GpuPassTimer(device, FRAME_PASSES, 'SplatFrame.timer');
    this.frozen = new FrozenOrder(device);
    this.painter = painters.quads;
    const none = unbound<GPUCommandEncoder>();
    this.job = { encoder: none, parameters: unbound<FrameParameters>(), target: unbound<SplatDrawTarget>(), records: null, depths: null, visible: null, capacity: 0, picture: { order: null, perPixel: null }, second: null, timing: undefined };
  }

  /** Which renderer drew the last frame. */
  drawnWith: FrameRenderer = 'quads';
  /** Which order the last frame's pixels were blended in. */
  drawnOrder: SplatOrder = 'centre-depth';

  /**
   * What the painter of the last frame learnt of it, once the GPU has run
   * it (call after its submit; null when it keeps nothing to read, or that
   * frame's read was skipped). `overflowed`: its picture was not drawn,
   * the room is grown: draw the frame again.
   */
  readPainted(): Promise<PaintStatistics> | null {
    return this.painter.readStatistics();
  }

  /**
   * Makes what the sort difference view needs (a second GPU sort, for the
   * exact order). Frames may ask for the view once this resolves.
   */
  prepareDifferenceView(): Promise<void> {
    if (!this.painters.quads.blendsInFloats) return Promise.reject(new Error(`the sort difference view needs a float accumulation target, not '${this.accumulation}'`));
    return (this.exactOrderMade ??= GpuSortOrder.create(this.device).then((order) => {
      this.exactOrder = order;
    }));
  }

  /** True once prepareDifferenceView has finished. */
  get canShowDifference(): boolean {
    return this.exactOrder !== null;
  }

  /** The per-pixel order view can be drawn: the tile painter's per-pixel order is made and the frame blends in floats. */
  get canShowPixelOrder(): boolean {
    return this.painters.tiles.isReady(true) && this.painters.quads.blendsInFloats;
  }

  /** Why a heat map view asked for could not be shown (null: it could, or was never asked for). */
  viewError: string | null = null;

  /**
   * The view a frame asking for `asked` shows: a heat map view once what it
   * needs is made (asked for here: the second sort, the per-pixel order),
   * the picture until then, and where it cannot be (viewError says why).
   */
  viewFor(asked: FrameView): FrameView {
    if (asked === 'pixel-order') {
      if (this.canShowPixelOrder) return 'pixel-order';
      const tiles = this.painters.tiles;
      if (!tiles.isReady(true)) {
        if (tiles.failure === null) tiles.prepare(true).catch(ignore);
      } else {
        this.viewError ??= `the per-pixel order view needs a float accumulation target, not '${this.accumulation}'`;
      }
      return 'picture';
    }
    if (asked !== 'difference') return 'picture';
    if (this.canShowDifference) return 'difference';
    this.prepareDifferenceView().catch((error: unknown) => {
      this.viewError = error instanceof Error ? error.message : String(error);
    });
    return 'picture';
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
    else this.projector.releaseScene();
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
    if (pixelOrderView && !this.canShowPixelOrder) throw new Error(`the per-pixel order view was asked for before the tile painter's prepare(true) finished${this.painters.quads.blendsInFloats ? '' : `, or without a float accumulation ('${this.accumulation}')`}`);
    if (scene && scene.count > 0) {
      const projector = this.projector;
      const keyTarget = order.keyTarget(this.maxDrawn);
      const exactTarget = difference ? this.exactOrder!.keyTarget(this.maxDrawn) : null;
      projector.encode(encoder, keyTarget, timing ? this.timer.timestampWrites('project') : undefined, exactTarget);
      if (timing) this.timed.add('project');
      // Only an order made from this frame's keys sorts.
      const sortWrites = timing && keyTarget ? this.timer.timestampWrites('sort') : undefined;
      drawn = order.encode(this.orderFrameOf(encoder, parameters.keyBits, sortWrites));
      if (sortWrites) this.timed.add('sort');
      this.frozen.keep(encoder, drawn);
      if (drawn && options.measure) {
        measured = this.measure.encode(encoder, { ...drawn, depths: projector.depths!, state: projector.state! });
      }
      if (difference) exact = this.exactOrder!.encode(this.orderFrameOf(encoder, 32, undefined));
    }
    this.paint(encoder, parameters, target, drawn, exact, options, timing);
    if (timing) {
      this.timed.add('render');
      this.timer.resolve(encoder);
    }
    return measured;
  }

  private orderFrameOf(encoder: GPUCommandEncoder, keyBits: number, timestampWrites: GPUComputePassTimestampWrites | undefined): OrderFrame {
    const f = this.orderFrame;
    const projector = this.projector;
    f.encoder = encoder;
    f.keyBits = keyBits;
    f.visibleCount = projector.visibleCount;
    f.drawArgs = projector.drawArgs;
    f.capacity = projector.capacity;
    setTimestampWrites(f, timestampWrites);
    return f;
  }

  /**
   * The frame's painting, timed as one span ('render'): by the painter
   * asked for where it can paint, else by quads. The per-pixel order view
   * paints the drawn order by centre depths and then per pixel; the sort
   * difference view paints the exact order second, in the same order per
   * pixel.
   */
  private paint(encoder: GPUCommandEncoder, parameters: FrameParameters, target: SplatDrawTarget, drawn: OrderedSplats | null, exact: OrderedSplats | null, options: FrameEncodeOptions, timing: boolean): void {
    const { tiles, quads } = this.painters;
    const pixelOrderView = options.view === 'pixel-order';
    // Splats over another renderer's picture (and depth) are drawn as quads: the tile raster writes every pixel.
    const overAnother = target.over === true || target.depth !== undefined;
    const painter = (options.renderer === 'tiles' || pixelOrderView) && tiles.canPaint && !overAnother ? tiles : quads;
    this.painter = painter;
    this.drawnWith = painter.renderer;
    // The per-pixel order once its raster is made (centre depths until then; the caller prepares it).
    this.drawnOrder = options.order === 'per-pixel' && painter.isReady(true) ? 'per-pixel' : 'centre-depth';
    const perPixel = this.drawnOrder === 'per-pixel' ? this.scene : null;
    const job = this.job;
    job.encoder = encoder;
    job.parameters = parameters;
    job.target = target;
    job.records = this.projector.records;
    job.depths = this.projector.depths;
    job.visible = this.projector.state;
    job.capacity = this.projector.capacity;
    job.picture.order = drawn;
    job.picture.perPixel = perPixel;
    job.second = null;
    if (pixelOrderView && painter === tiles) {
      this.drawnOrder = 'per-pixel';
      job.picture.perPixel = null;
      job.second = this.second(drawn, this.scene);
    } else if (options.view === 'difference') {
      job.second = this.second(exact, perPixel);
    }
    job.timing = timing ? (this.paintTiming ??= { span: this.timer.spanWrites('render')!, whole: this.timer.timestampWrites('render')! }) : undefined;
    painter.paint(job);
  }

  private second(order: OrderedSplats | null, perPixel: GpuSplats | null): PaintedPicture {
    this.secondPicture.order = order;
    this.secondPicture.perPixel = perPixel;
    return this.secondPicture;
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
      return await this.timer.read(this.timed);
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
    this.painters.tiles.destroy();
    this.painters.quads.destroy();
    this.frozen.destroy();
    this.exactOrder?.destroy();
  }
}

/** A preparation that failed: the painter keeps why (its failure). */
function ignore(): void {}
