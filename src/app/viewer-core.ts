/**
 * The viewer without its page: the scene on the GPU, the frame, the two
 * draw orders (the GPU sort, the CPU sort's uploaded order) and the
 * decisions between them, the auto key width and the ordering-error
 * measure. DOM-free: the page (src/ui/viewer-page.ts) wires input, panels
 * and overlays to it, the GPU tests drive it with a CPU sort of their own.
 *
 * Each drawFrame records and submits one frame and reports what it did.
 * Nothing on that path allocates once warm, beyond what WebGPU returns.
 */
import type { mat4 } from 'gl-matrix';
import { SplatFrame, type FrameOrder, type FrameTimings, type FrameView } from './splat-frame';
import { GpuSortOrder } from './gpu-sort-order';
import { UploadedOrder } from './uploaded-order';
import { chooseOrder, type OrderChoice, type OrderState, type SortMode } from './order-policy';
import { initialAutoKeyBits, keyBitsOf, nextAutoKeyBits, AUTO_MEASURE_INTERVAL, type AutoKeyBits, type KeyBitsSetting } from './key-bits-policy';
import type { FrameParameters } from '../render/frame-uniforms';
import type { OrderErrorMeasure } from '../render/order-error-pass';
import type { DifferenceMeasure } from '../render/splat-resolve';
import { GpuSplats } from '../scene/gpu-splats';
import type { SplatCloud } from '../scene/splat-cloud';
import type { CpuSortAlgorithm } from '../sort/cpu-order-worker';
import type { CpuOrder } from '../sort/cpu-order-client';

export type { CpuOrder };

/** The CPU sort behind the CPU modes: the worker in the browser, a synchronous sort in tests. */
export interface CpuOrderSource {
  setScene(positions: Float32Array, count: number): void;
  /** Asks for the order of `view`; false while an earlier request is being sorted. */
  request(view: mat4, keyBits: number, algorithm: CpuSortAlgorithm, frame: number): boolean;
  /** The newest finished order not yet taken. */
  take(): CpuOrder | null;
  recycle(order: Uint32Array): void;
  readonly error: string | null;
  dispose(): void;
}

/** What the user asks of a frame. */
export interface FrameSettings {
  sortMode: SortMode;
  keyBits: KeyBitsSetting;
  freezeOrder: boolean;
  /** Measure the ordering error of every frame it can (a pass each); auto measures on its own. */
  measureOrder: boolean;
  /**
   * The picture, or the sort difference view (the frame drawn again in the
   * exact order, and a heat map of where the two differ). Until the view's
   * second sort is made, frames show the picture. Default 'picture'.
   */
  view?: FrameView;
}

/** What a frame did. */
export interface FrameReport {
  choice: Readonly<OrderChoice>;
  /** The key width the order was made with (of the frozen order, when frozen). */
  keyBits: number;
  /** Frames between the camera the order was sorted for and this one (0: sorted this frame). */
  orderAge: number;
  /** A CPU order arrived and was uploaded this frame: its sort time. */
  cpuSortMs: number | null;
}

export class ViewerCore {
  private scene: GpuSplats | null = null;
  /** The scene a preview replaced (src/io/scene-preview.ts), shown again if its load does not complete. */
  private held: { scene: GpuSplats | null; positions: Float32Array; count: number } | null = null;
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
  private order: FrameOrder;
  /** Reused every frame: the policy's input and the frame's report. */
  private readonly orderState: OrderState = { hasScene: false, mode: 'gpu', freeze: false, canFreeze: false, cpuOrderReady: false, cpuFailed: false };
  private readonly report: FrameReport = { choice: chooseOrder(this.orderState), keyBits: 32, orderAge: 0, cpuSortMs: null };
  private readonly commands: GPUCommandBuffer[] = [];
  private readonly encoderDescriptor: GPUCommandEncoderDescriptor = { label: 'ViewerCore.frame' };
  private readonly encodeOptions: { measure: boolean; view: FrameView } = { measure: false, view: 'picture' };
  /** Frames submitted so far. */
  frames = 0;
  /** The last ordering error measured, and the key width it was measured at. */
  orderError: (OrderErrorMeasure & { keyBits: number }) | null = null;
  /** Called with each frame's GPU pass times that could be read (not every frame). */
  onTimings: (times: FrameTimings) => void = () => {};
  private timingPending = false;

  static async create(device: GPUDevice, format: GPUTextureFormat, makeCpu: () => CpuOrderSource): Promise<ViewerCore> {
    const [frame, gpuOrder] = await Promise.all([SplatFrame.create(device, format), GpuSortOrder.create(device)]);
    return new ViewerCore(device, frame, gpuOrder, new UploadedOrder(device), makeCpu);
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

  /** The order the last frame drew (a screenshot draws the same). */
  get currentOrder(): FrameOrder {
    return this.order;
  }

  /** What the difference view counted last (null before it is first shown). */
  difference: DifferenceMeasure | null = null;
  private differenceReading = false;
  /** Why the difference view could not be made (null: it could, or was never asked for). */
  differenceError: string | null = null;

  /** The CPU sort's error, if it failed. */
  get cpuError(): string | null {
    return this.cpu?.error ?? null;
  }

  /**
   * Puts `cloud` on the GPU in place of the scene before (destroyed, and so
   * is the scene a preview held aside). Throws, keeping the old scene, if it
   * does not fit.
   */
  setScene(cloud: SplatCloud, label: string): GpuSplats {
    const scene = this.upload(cloud, label);
    if (this.held) {
      if (this.held.scene !== this.scene) this.held.scene?.destroy();
      this.held = null;
    }
    this.scene?.destroy();
    this.show(scene, cloud.positions, cloud.count);
    return scene;
  }

  /**
   * Shows the part of a scene loaded so far in place of the one on screen,
   * which is held aside (not destroyed) until the load ends: setScene (it
   * completed) frees it, restoreScene (it failed or was cancelled) shows it
   * again. Throws, keeping what is on screen, if the part does not fit.
   */
  showPreview(cloud: SplatCloud, label: string): void {
    const scene = this.upload(cloud, label);
    if (!this.held) this.held = { scene: this.scene, positions: this.positions, count: this.splatCount };
    // The preview before this one.
    else this.scene?.destroy();
    this.show(scene, cloud.positions, cloud.count);
  }

  /** A preview is on screen, in place of the scene held aside. */
  get previewing(): boolean {
    return this.held !== null;
  }

  /** Ends a preview: the scene it replaced (or none) is shown again, the preview destroyed. */
  restoreScene(): void {
    const held = this.held;
    if (!held) return;
    this.held = null;
    this.frame.setScene(held.scene);
    this.scene?.destroy();
    this.show(held.scene, held.positions, held.count);
  }

  /** `cloud` on the GPU and in the frame; throws, the frame left on the scene it had, if it does not fit. */
  private upload(cloud: SplatCloud, label: string): GpuSplats {
    const scene = new GpuSplats(this.device, cloud, label);
    try {
      this.frame.setScene(scene);
    } catch (error) {
      scene.destroy();
      this.frame.setScene(this.scene);
      throw error;
    }
    return scene;
  }

  /** Makes `scene` (already in the frame) the one on screen: the orders and the CPU sort start over. */
  private show(scene: GpuSplats | null, positions: Float32Array, count: number): void {
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
    params.splatCount = this.splatCount;
    if (choice.source === 'frozen') {
      params.keyBits = this.drawnBits;
      report.orderAge = this.drawnAge + (this.frames - this.drawnAt);
      this.order = 'frozen';
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
    const measure = this.frame.encode(encoder, params, target, this.order, this.encodeOptions);
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
    if (this.encodeOptions.view === 'difference' && !this.differenceReading) {
      const reading = this.frame.readDifference();
      if (reading) {
        this.differenceReading = true;
        reading.then(this.differenceRead, this.differenceFailed);
      }
    }
    if (!this.timingPending && this.frame.timer.enabled) {
      this.timingPending = true;
      this.frame.readTimings().then(this.timingsRead, this.timingsFailed);
    }
    return report;
  }

  /** The view this frame can show: the difference view once its second sort is made (asked for here). */
  private viewOf(settings: FrameSettings): FrameView {
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
    this.onTimings(times);
  };

  private readonly timingsFailed = (): void => {
    this.timingPending = false;
  };

  destroy(): void {
    this.cpu?.dispose();
    this.scene?.destroy();
    this.frame.destroy();
    this.gpuOrder.destroy();
    this.uploaded.destroy();
  }
}
