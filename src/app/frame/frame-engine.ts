/**
 * The frame engine under the Viewer (src/app/viewer.ts): the scene on the
 * GPU, the frame, the draw orders (the GPU sort, the CPU sort's uploaded
 * order, the frozen order) and the decisions between them, the auto key
 * width and the ordering-error measure. DOM-free. The Viewer decides which
 * scene is on screen and owns the scenes' lifetimes; the GPU tests drive
 * the core directly with a synchronous CPU sort.
 *
 * Each drawFrame records and submits one frame and reports what it did.
 * Nothing on that path allocates once warm, beyond what WebGPU returns.
 */
import type { mat4 } from 'gl-matrix';
import { SplatFrame, type FrameTimings, type FrameView, type SplatFrameOptions } from './splat-frame';
import type { DrawOrder } from './order/draw-order';
import { GpuSortOrder } from './order/gpu-sort-order';
import { UploadedOrder } from './order/uploaded-order';
import { chooseOrder, type OrderChoice, type OrderState, type SortMode } from './order/order-policy';
import { initialAutoKeyBits, keyBitsOf, nextAutoKeyBits, AUTO_MEASURE_INTERVAL, type AutoKeyBits } from './key-bits-policy';
import { RendererPolicy, type MeasuredFrame, type RendererScene } from './renderer-policy';
import { DEFAULT_SPLAT_ORDER, type FrameRenderer, type RendererSetting, type SplatOrder } from '../../render/frame-renderer';
import type { TilePairCounts } from '../../render/tiles/tile-renderer';
import type { FrameParameters } from '../../render/frame-uniforms';
import type { OrderErrorMeasure } from '../../render/order-error-pass';
import type { DifferenceMeasure } from '../../render/splat-resolve';
import { GpuSplats } from '../../scene/gpu-splats';
import type { SplatCloud } from '../../scene/splat-cloud';
import type { CpuOrderSource, CpuSortAlgorithm } from '../../sort/cpu-order-source';
import type { WorldSession } from '../world/world-session';
import { isHeatMap, rendererSettingOf, wantsPerPixel, type FrameReport, type FrameSettings } from './frame-settings';

export type { FrameReport, FrameSettings } from './frame-settings';

export class FrameEngine {
  private scene: GpuSplats | null = null;
  /** The world on screen (its pool is `scene` once its first chunk arrived), or null. */
  private world: WorldSession | null = null;
  /** A world's frames sort on the GPU: its splats are not on the CPU. Reused for them. */
  private readonly worldSettings: FrameSettings = {} as FrameSettings;
  private sceneId = 0;
  private positions: Float32Array = new Float32Array(0);
  private splatCount = 0;
  private cpu: CpuOrderSource | null = null;
  /** Frame number from which CPU orders count (orders asked for before the switch to a CPU mode are stale). */
  private cpuSince = 0;
  private lastMode: SortMode = 'gpu';
  private cpuOrderFrame = 0;
  private cpuOrderBits = 32;
  /**
   * The key width and age of the order drawn last (what a frozen frame
   * re-draws; SplatFrame forgets that order on a new scene, and
   * UploadedOrder is cleared then, so neither needs a scene id here).
   */
  private drawnBits = 32;
  private drawnAge = 0;
  private drawnAt = 0;
  private auto: AutoKeyBits = initialAutoKeyBits();
  private measuredBits = 32;
  private measuredAuto = false;
  private framesSinceMeasure = 0;
  private order: DrawOrder;
  /** Reused every frame: the policy's input and the frame's report. */
  private readonly orderState: OrderState = { hasScene: false, mode: 'gpu', freeze: false, canFreeze: false, cpuOrderReady: false, cpuFailed: false };
  private readonly renderers = new RendererPolicy();
  private readonly rendererScene: RendererScene = { sceneId: 0, width: 0, height: 0, timed: false };
  /** The frame whose GPU times are being read (auto's measure needs to know which renderer drew it). */
  private readonly timedFrame: MeasuredFrame = { renderer: 'quads', run: -1, draw: 0 };
  private readonly report: FrameReport = { choice: chooseOrder(this.orderState), keyBits: 32, orderAge: 0, cpuSortMs: null, renderer: this.renderers.choice, order: DEFAULT_SPLAT_ORDER };
  private readonly commands: GPUCommandBuffer[] = [];
  private readonly encoderDescriptor: GPUCommandEncoderDescriptor = { label: 'FrameEngine.frame' };
  private readonly encodeOptions: { measure: boolean; view: FrameView; renderer: FrameRenderer; order: SplatOrder } = { measure: false, view: 'picture', renderer: 'quads', order: DEFAULT_SPLAT_ORDER };
  /** Frames submitted so far. */
  frames = 0;
  /** The last ordering error measured, and the key width it was measured at. */
  orderError: (OrderErrorMeasure & { keyBits: number }) | null = null;
  /** Called with each frame's GPU pass times that could be read (not every frame). */
  onTimings: (times: FrameTimings) => void = () => {};
  /** Called with each count of a heat map view (the sort difference, the per-pixel order) as soon as it is read, and the view it counted. */
  onDifference: (m: DifferenceMeasure, view: FrameView) => void = () => {};
  /** The read of the last frame's GPU pass times (null: that frame was not timed, a read was pending). */
  private lastTimings: Promise<FrameTimings> | null = null;
  private timingPending = false;

  static async create(device: GPUDevice, format: GPUTextureFormat, makeCpu: () => CpuOrderSource, options: SplatFrameOptions = {}): Promise<FrameEngine> {
    const [frame, gpuOrder] = await Promise.all([SplatFrame.create(device, format, options), GpuSortOrder.create(device)]);
    return new FrameEngine(device, frame, gpuOrder, new UploadedOrder(device), makeCpu);
  }

  private constructor(
    readonly device: GPUDevice,
    readonly frame: SplatFrame,
    private readonly gpuOrder: GpuSortOrder,
    private readonly uploaded: UploadedOrder,
    private readonly makeCpu: () => CpuOrderSource,
  ) {
    this.order = gpuOrder;
  }

  /** The scene on screen. */
  get gpuScene(): GpuSplats | null {
    return this.scene;
  }

  /** The view the last frame showed (a screenshot shows the same). */
  get shownView(): FrameView {
    return this.encodeOptions.view;
  }

  /** The renderer the last frame drew with (a screenshot draws with the same). */
  get shownRenderer(): FrameRenderer {
    return this.encodeOptions.renderer;
  }

  /** The order the last frame drew (a screenshot draws the same). */
  get currentOrder(): DrawOrder {
    return this.order;
  }

  /** What a heat map view counted last (null before one is first shown), and which view that was. */
  difference: DifferenceMeasure | null = null;
  differenceView: FrameView = 'picture';
  private differenceReading = false;
  /** The view whose count is being read. */
  private countingView: FrameView = 'picture';
  /** The read of the last frame's difference counts (null: that frame did not count). */
  private lastDifference: Promise<DifferenceMeasure> | null = null;
  /** Why a heat map view could not be shown (null: it could, or was never asked for). */
  differenceError: string | null = null;
  /** Why a frame asked of the tile renderer was drawn with quads: it could not be made, or a view needed more pairs than the device sorts. */
  tilesError: string | null = null;
  /** The read of the last frame's tile pairs (null: quads drew it, or its read was skipped). */
  private lastTilePairs: Promise<TilePairCounts> | null = null;

  /** The CPU sort's error, if it failed. */
  get cpuError(): string | null {
    return this.cpu?.error ?? null;
  }

  /**
   * Puts `cloud` on the GPU and shows it from the next frame on. The scene
   * it replaces is not destroyed: its owner decides (it may be held aside
   * and shown again). Throws, the scene on screen kept, if it does not fit.
   */
  showCloud(cloud: SplatCloud, label: string): GpuSplats {
    const scene = new GpuSplats(this.device, cloud, label);
    try {
      this.frame.setScene(scene);
    } catch (error) {
      scene.destroy();
      this.frame.setScene(this.scene, this.world?.maxDrawn);
      throw error;
    }
    this.show(scene, cloud.positions, cloud.count);
    return scene;
  }

  /** The world on screen, if a world is. */
  get shownWorld(): WorldSession | null {
    return this.world;
  }

  /**
   * Shows `world` from the next frame on: each frame chooses what of it to
   * draw for its camera (its owner closes it). Null: back to scenes.
   */
  showWorld(world: WorldSession | null): void {
    this.world = world;
    this.setShown(world?.scene ?? null, new Float32Array(0), 0);
  }

  /** Shows `scene` (already on the GPU, or none) from the next frame on: the orders and the CPU sort start over. */
  show(scene: GpuSplats | null, positions: Float32Array, count: number): void {
    this.world = null;
    this.setShown(scene, positions, count);
  }

  private setShown(scene: GpuSplats | null, positions: Float32Array, count: number): void {
    this.frame.setScene(scene, this.world?.maxDrawn);
    this.scene = scene;
    this.sceneId++;
    this.positions = positions;
    this.splatCount = count;
    this.uploaded.clear();
    this.cpu?.setScene(positions, count);
    this.auto = initialAutoKeyBits();
  }

  /**
   * Records and submits one frame: `params` carries the camera and the
   * target's size (its key bits and splat count are set here).
   */
  drawFrame(target: { view: GPUTextureView; background: readonly [number, number, number] }, params: FrameParameters, settings: FrameSettings): FrameReport {
    if (this.world) settings = this.worldFrame(params, settings);
    const report = this.report;
    report.cpuSortMs = null;
    if (settings.sortMode !== this.lastMode) {
      this.lastMode = settings.sortMode;
      this.cpuSince = this.frames;
    }
    const wantedBits = keyBitsOf(settings.keyBits, this.auto);
    if (settings.sortMode !== 'gpu') this.serveCpu(params.view, settings, wantedBits, report);
    const state = this.orderState;
    state.hasScene = this.scene !== null;
    state.mode = settings.sortMode;
    state.freeze = settings.freezeOrder;
    state.canFreeze = this.frame.canFreeze;
    state.cpuOrderReady = this.uploaded.ready && this.cpuOrderFrame >= this.cpuSince;
    state.cpuFailed = this.cpu?.error != null;
    const choice = chooseOrder(state);
    report.choice = choice;
    params.splatCount = this.world ? (this.scene?.count ?? 0) : this.splatCount;
    if (choice.source === 'frozen') {
      params.keyBits = this.drawnBits;
      report.orderAge = this.drawnAge + (this.frames - this.drawnAt);
      this.order = this.frame.frozen;
    } else if (choice.source === 'uploaded') {
      params.keyBits = this.cpuOrderBits;
      report.orderAge = this.frames - this.cpuOrderFrame;
      this.order = this.uploaded;
    } else {
      params.keyBits = wantedBits;
      report.orderAge = 0;
      this.order = this.gpuOrder;
    }
    report.keyBits = params.keyBits;
    const wantMeasure = choice.source !== 'none' && !this.frame.measuring && this.wantsMeasure(settings, choice);

    const encoder = this.device.createCommandEncoder(this.encoderDescriptor);
    this.encodeOptions.measure = wantMeasure;
    this.encodeOptions.view = this.viewOf(settings);
    this.encodeOptions.renderer = this.resolveRenderer(settings, params, report);
    this.encodeOptions.order = settings.order ?? DEFAULT_SPLAT_ORDER;
    const measure = this.frame.encode(encoder, params, target, this.order, this.encodeOptions);
    report.order = this.frame.drawnOrder;
    this.commands[0] = encoder.finish();
    this.device.queue.submit(this.commands);
    if (choice.source !== 'frozen' && choice.source !== 'none') {
      this.drawnBits = params.keyBits;
      this.drawnAge = report.orderAge;
      this.drawnAt = this.frames;
    }
    this.frames++;
    this.framesSinceMeasure++;
    if (measure) {
      this.framesSinceMeasure = 0;
      this.measuredBits = params.keyBits;
      this.measuredAuto = settings.keyBits === 'auto' && choice.source === 'gpu-sort';
      const sceneId = this.sceneId;
      // A failed read (the device lost) leaves the measure unread; the pass frees itself either way.
      this.frame.readOrderError().then((m) => this.measured(m, sceneId), () => {});
    }
    this.lastDifference = null;
    if (isHeatMap(this.encodeOptions.view) && !this.differenceReading) {
      const reading = this.frame.readDifference();
      if (reading) {
        this.differenceReading = true;
        this.countingView = this.encodeOptions.view;
        this.lastDifference = reading;
        reading.then(this.differenceRead, this.differenceFailed);
      }
    }
    this.lastTilePairs = this.frame.readTilePairs();
    this.lastTilePairs?.then(this.tilePairsRead, ignoreFailedRead);
    this.lastTimings = null;
    if (!this.timingPending && this.frame.timer.enabled) {
      this.timingPending = true;
      this.renderers.describeFrame(this.timedFrame);
      this.lastTimings = this.frame.readTimings();
      this.lastTimings.then(this.timingsRead, this.timingsFailed);
    }
    return report;
  }

  /**
   * A world's frame: its choice for this camera, its pool shown once the
   * first chunk made it, and the settings a world draws with (the GPU sort,
   * its order never frozen: what is drawn changes as chunks come and go).
   */
  private worldFrame(params: FrameParameters, settings: FrameSettings): FrameSettings {
    const world = this.world!;
    world.update(params);
    if (world.scene !== this.scene) this.setShown(world.scene, new Float32Array(0), 0);
    // The budget may have changed: the sort is sized by it (nothing is made when it has not).
    else this.frame.setScene(world.scene, world.maxDrawn);
    params.shDegree = Math.min(params.shDegree, this.scene?.shDegree ?? 0);
    Object.assign(this.worldSettings, settings);
    this.worldSettings.sortMode = 'gpu';
    this.worldSettings.freezeOrder = false;
    return this.worldSettings;
  }

  /**
   * The GPU pass times and the difference view's counts of the frame just
   * drawn, once the GPU has done it (null where that frame did not time or
   * count): for callers that render one frame and wait for it (the render
   * command, the benchmarks).
   */
  async lastFrameResults(): Promise<{ timings: FrameTimings | null; difference: DifferenceMeasure | null; tilePairs: TilePairCounts | null }> {
    const [timings, difference, tilePairs] = await Promise.all([this.lastTimings, this.lastDifference, this.lastTilePairs]);
    return { timings: timings ?? null, difference: difference ?? null, tilePairs: tilePairs ?? null };
  }

  /**
   * A tile frame that outgrew its pair buffers showed the last complete
   * picture; the buffers are grown when its read arrives, and the frames
   * after it (the page draws every animation frame) are complete. A view
   * beyond the device's pairs is drawn with quads, and said once.
   */
  private readonly tilePairsRead = (): void => {
    const beyond = this.frame.tileRenderer?.beyondLimit ?? null;
    if (beyond && this.tilesError === null) this.tilesError = beyond;
  };

  /** The renderer of this frame: the setting's (rendererSettingOf), or auto's (which counts this frame in its measure). */
  private resolveRenderer(settings: FrameSettings, params: FrameParameters, report: FrameReport): FrameRenderer {
    const setting = rendererSettingOf(settings, this.encodeOptions.view);
    const scene = this.rendererScene;
    scene.sceneId = this.sceneId;
    scene.width = params.width;
    scene.height = params.height;
    scene.timed = this.frame.timer.enabled;
    scene.tilesReady = this.frame.tilesReady;
    const perPixel = wantsPerPixel(settings, this.encodeOptions.view);
    if (setting !== 'quads' && !(perPixel ? this.frame.perPixelReady : this.frame.tilesReady)) void this.prepareRenderer(setting, perPixel);
    report.renderer = this.renderers.resolve(setting, scene);
    return report.renderer.renderer;
  }

  /**
   * Makes what `setting` may draw with (the tile renderer unless it is
   * 'quads'; with `perPixel`, its per-pixel raster too); frames draw with
   * quads (or centre depths) until it is made, or when it could not be
   * (tilesError says why). Callers that draw one frame and wait (the
   * render command, screenshots) wait for this first.
   */
  async prepareRenderer(setting: RendererSetting, perPixel = false): Promise<void> {
    if (setting === 'quads' || this.tilesError !== null) return;
    try {
      await (perPixel ? this.frame.preparePerPixel() : this.frame.prepareTiles());
    } catch (error) {
      this.tilesError ??= `the tile renderer could not be made: ${error instanceof Error ? error.message : String(error)}; drawing with quads`;
    }
  }

  /**
   * The view this frame can show: the difference view once its second sort
   * is made, the per-pixel order view once the tile renderer is (each
   * asked for here).
   */
  private viewOf(settings: FrameSettings): FrameView {
    if (settings.view === 'pixel-order') {
      if (this.frame.canShowPixelOrder) return 'pixel-order';
      if (!this.frame.perPixelReady) void this.prepareRenderer('tiles', true);
      else this.differenceError ??= `the per-pixel order view needs a float accumulation target, not '${this.frame.accumulation}'`;
      return 'picture';
    }
    if (settings.view !== 'difference') return 'picture';
    if (this.frame.canShowDifference) return 'difference';
    this.frame.prepareDifferenceView().catch((error: unknown) => {
      this.differenceError = error instanceof Error ? error.message : String(error);
    });
    return 'picture';
  }

  private readonly differenceRead = (m: DifferenceMeasure): void => {
    this.differenceReading = false;
    this.difference = m;
    this.differenceView = this.countingView;
    this.onDifference(m, this.countingView);
  };

  private readonly differenceFailed = (): void => {
    this.differenceReading = false;
  };

  /** Takes the newest CPU order (uploading it) and asks for the next. */
  private serveCpu(view: mat4, settings: FrameSettings, wantedBits: number, report: FrameReport): void {
    const cpu = (this.cpu ??= this.createCpu());
    // A frozen order may be the uploaded one: leave its buffer alone.
    if (settings.freezeOrder && this.frame.canFreeze) return;
    const taken = cpu.take();
    if (taken) {
      if (taken.frame >= this.cpuSince) {
        this.uploaded.upload(taken.order, this.splatCount);
        this.cpuOrderFrame = taken.frame;
        this.cpuOrderBits = taken.keyBits;
        report.cpuSortMs = taken.sortMs;
      }
      cpu.recycle(taken.order);
    }
    const algorithm: CpuSortAlgorithm = settings.sortMode === 'cpu-counting16' ? 'counting16' : 'radix';
    cpu.request(view, algorithm === 'counting16' ? 16 : wantedBits, algorithm, this.frames);
  }

  private createCpu(): CpuOrderSource {
    const cpu = this.makeCpu();
    cpu.setScene(this.positions, this.splatCount);
    return cpu;
  }

  private wantsMeasure(settings: FrameSettings, choice: Readonly<OrderChoice>): boolean {
    if (settings.measureOrder) return true;
    return settings.keyBits === 'auto' && choice.source === 'gpu-sort' && (this.auto.probing || this.framesSinceMeasure >= AUTO_MEASURE_INTERVAL);
  }

  private measured(m: OrderErrorMeasure, sceneId: number): void {
    this.orderError = { ...m, keyBits: this.measuredBits };
    // Only a measure of the auto width, of this scene, steers it.
    if (this.measuredAuto && sceneId === this.sceneId && this.measuredBits === this.auto.bits) this.auto = nextAutoKeyBits(this.auto, m);
  }

  private readonly timingsRead = (times: FrameTimings): void => {
    this.timingPending = false;
    this.renderers.record(this.timedFrame, times.render);
    this.onTimings(times);
  };

  private readonly timingsFailed = (): void => {
    this.timingPending = false;
  };

  destroy(): void {
    // The scenes are their owner's (the Viewer's) to destroy.
    this.cpu?.dispose();
    this.frame.destroy();
    this.gpuOrder.destroy();
    this.uploaded.destroy();
  }
}

/** A read that failed (the device lost): nothing to learn from it. */
function ignoreFailedRead(): void {}
