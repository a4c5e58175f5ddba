/**
 * The frame engine under the Viewer (src/app/viewer.ts): what is drawn (a
 * FrameSource: a scene or a world, never asked which), the frame, the draw
 * orders (the GPU sort, the CPU sort's uploaded order, the frozen order)
 * and the decisions between them, the key width, the renderer choice and
 * the reads of each frame. DOM-free. The Viewer decides what is on screen
 * and owns the sources' lifetimes; the GPU tests drive the engine directly
 * with a synchronous CPU sort.
 *
 * Each drawFrame records and submits one frame and reports what it did.
 * It is the one writer of the frame's parameters: the caller gives the
 * camera and look (FrameCamera), the engine adds the splats, the key width
 * and the SH bands the scene has. Nothing on that path allocates once
 * warm, beyond what WebGPU returns.
 */
import { SplatFrame, type FrameView, type SplatFrameOptions } from './splat-frame';
import type { DrawOrder } from './order/draw-order';
import { GpuSortOrder } from './order/gpu-sort-order';
import { CpuOrders } from './order/cpu-orders';
import { chooseOrder, type OrderState } from './order/order-policy';
import { KeyWidth } from './key-width';
import { RendererPolicy, type RendererScene } from './renderer-policy';
import { PixelOrderPolicy } from './pixel-order-policy';
import { FrameReads, type FrameResults } from './frame-reads';
import { SceneSource, type FrameSource } from './frame-source';
import { DEFAULT_SPLAT_ORDER, type FrameRenderer, type RendererSetting, type SplatOrder } from '../../render/frame-renderer';
import { copyFrameCamera, createFrameCamera, type FrameCamera, type FrameParameters } from '../../render/frame-uniforms';
import type { SplatDrawTarget } from '../../render/splat-renderer';
import type { GpuSplats } from '../../scene/gpu-splats';
import type { SplatCloud } from '../../scene/splat-cloud';
import type { CpuOrderSource } from '../../sort/cpu-order-source';
import { rendererSettingOf, wantsPerPixel, type FrameReport, type FrameSettings } from './frame-settings';

export type { FrameReport, FrameSettings } from './frame-settings';

export class FrameEngine {
  private source: FrameSource | null = null;
  /** The source's splats the frame has (a world's pool appears with its first chunk). */
  private scene: GpuSplats | null = null;
  private readonly cpu: CpuOrders;
  private readonly keyWidth = new KeyWidth();
  /** The key width and age of the order drawn last (what a frozen frame re-draws). */
  private drawnBits = 32;
  private drawnAge = 0;
  private drawnAt = 0;
  /** Reused every frame: the policies' inputs, the frame's parameters and settings, its report and its command. */
  private readonly orderState: OrderState = { hasScene: false, mode: 'gpu', freeze: false, canFreeze: false, cpuOrderReady: false, cpuFailed: false };
  private readonly renderers = new RendererPolicy();
  private readonly orders = new PixelOrderPolicy();
  private readonly rendererScene: RendererScene = { sceneId: 0, width: 0, height: 0, timed: false };
  private readonly parameters: FrameParameters = { ...createFrameCamera(), splatCount: 0, keyBits: 32 };
  private readonly gpuOnlySettings = {} as FrameSettings;
  private readonly report: FrameReport = { choice: chooseOrder(this.orderState), keyBits: 32, orderAge: 0, cpuSortMs: null, renderer: this.renderers.choice, order: DEFAULT_SPLAT_ORDER, orderChoice: this.orders.choice };
  private readonly commands: GPUCommandBuffer[] = [];
  private readonly encoderDescriptor: GPUCommandEncoderDescriptor = { label: 'FrameEngine.frame' };
  private readonly encodeOptions: { measure: boolean; view: FrameView; renderer: FrameRenderer; order: SplatOrder } = { measure: false, view: 'picture', renderer: 'quads', order: DEFAULT_SPLAT_ORDER };
  /** What each frame's reads found (GPU times, heat map counts). */
  readonly reads: FrameReads;
  /** Frames submitted so far. */
  frames = 0;

  static async create(device: GPUDevice, format: GPUTextureFormat, makeCpu: () => CpuOrderSource, options: SplatFrameOptions = {}): Promise<FrameEngine> {
    const [frame, gpuOrder] = await Promise.all([SplatFrame.create(device, format, options), GpuSortOrder.create(device)]);
    return new FrameEngine(device, frame, gpuOrder, makeCpu);
  }

  private constructor(
    readonly device: GPUDevice,
    readonly frame: SplatFrame,
    private readonly gpuOrder: GpuSortOrder,
    makeCpu: () => CpuOrderSource,
  ) {
    this.cpu = new CpuOrders(device, makeCpu);
    this.reads = new FrameReads(frame, this.renderers, this.orders);
  }

  /** The splats on screen. */
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

  /** The last ordering error measured, and the key width it was measured at. */
  get orderError(): KeyWidth['orderError'] {
    return this.keyWidth.orderError;
  }

  /** The CPU sort's error, if it failed. */
  get cpuError(): string | null {
    return this.cpu.error;
  }

  /**
   * Shows `source` from the next frame on (null: nothing, the background);
   * the orders and the key width start over. What it replaces is not
   * destroyed: its owner decides. Throws, keeping what is on screen, when
   * the frame cannot hold it.
   */
  show(source: FrameSource | null): void {
    try {
      this.frame.setScene(source?.scene ?? null, source?.maxDrawn);
    } catch (error) {
      this.frame.setScene(this.scene, this.source?.maxDrawn);
      throw error;
    }
    this.source = source;
    this.sceneChanged(source?.scene ?? null);
  }

  /** `cloud` on the GPU, shown from the next frame on (show); the caller owns the source. Throws, keeping what is on screen, if it does not fit. */
  showCloud(cloud: SplatCloud, label: string): SceneSource {
    const source = SceneSource.fromCloud(this.device, cloud, label);
    try {
      this.show(source);
    } catch (error) {
      source.destroy();
      throw error;
    }
    return source;
  }

  private sceneChanged(scene: GpuSplats | null): void {
    this.scene = scene;
    this.rendererScene.sceneId++;
    this.cpu.setScene(this.source?.positions ?? null, scene?.count ?? 0);
    this.keyWidth.reset();
  }

  /** Records and submits one frame of `camera` into `target`. */
  drawFrame(target: SplatDrawTarget, camera: Readonly<FrameCamera>, settings: FrameSettings): FrameReport {
    settings = this.follow(camera, settings);
    const report = this.report;
    report.cpuSortMs = null;
    this.cpu.follow(settings.sortMode, this.frames);
    const wantedBits = this.keyWidth.bitsOf(settings.keyBits);
    if (settings.sortMode !== 'gpu') report.cpuSortMs = this.cpu.serve(camera.view, settings.sortMode, wantedBits, this.frames, settings.freezeOrder && this.frame.canFreeze);
    const state = this.orderState;
    state.hasScene = this.scene !== null;
    state.mode = settings.sortMode;
    state.freeze = settings.freezeOrder;
    state.canFreeze = this.frame.canFreeze;
    state.cpuOrderReady = this.cpu.ready;
    state.cpuFailed = this.cpu.error !== null;
    const choice = chooseOrder(state);
    report.choice = choice;
    let keyBits = wantedBits;
    report.orderAge = 0;
    let order: DrawOrder = this.gpuOrder;
    if (choice.source === 'frozen') {
      keyBits = this.drawnBits;
      report.orderAge = this.drawnAge + (this.frames - this.drawnAt);
      order = this.frame.frozen;
    } else if (choice.source === 'uploaded') {
      keyBits = this.cpu.bits;
      report.orderAge = this.cpu.age(this.frames);
      order = this.cpu.order;
    }
    const params = this.parametersOf(camera, keyBits);
    report.keyBits = keyBits;
    const options = this.encodeOptions;
    options.measure = choice.source !== 'none' && !this.frame.measuring && this.keyWidth.wantsMeasure(settings, choice);
    options.view = this.frame.viewFor(settings.view ?? 'picture');
    options.renderer = this.rendererOf(settings, params, report);
    options.order = this.orderOf(settings, report);
    const encoder = this.device.createCommandEncoder(this.encoderDescriptor);
    const measured = this.frame.encode(encoder, params, target, order, options);
    report.order = this.frame.drawnOrder;
    this.commands[0] = encoder.finish();
    this.device.queue.submit(this.commands);
    if (choice.source !== 'frozen' && choice.source !== 'none') {
      this.drawnBits = keyBits;
      this.drawnAge = report.orderAge;
      this.drawnAt = this.frames;
    }
    this.frames++;
    this.keyWidth.drawn(measured, keyBits, settings.keyBits === 'auto' && choice.source === 'gpu-sort');
    // A failed read (the device lost) leaves the measure unread; the pass frees itself either way.
    if (measured) this.frame.readOrderError().then(this.keyWidth.reading(), () => {});
    this.reads.afterSubmit(options.view);
    return report;
  }

  /**
   * The source moved along for this camera, and its splats followed (a
   * world's pool appears with its first chunk; the budget sizes the sort);
   * the settings a source without its splats on the CPU draws with: the
   * GPU sort, every frame.
   */
  private follow(camera: Readonly<FrameCamera>, settings: FrameSettings): FrameSettings {
    const source = this.source;
    if (!source) return settings;
    source.update(camera);
    const scene = source.scene;
    this.frame.setScene(scene, source.maxDrawn);
    if (scene !== this.scene) this.sceneChanged(scene);
    if (source.positions) return settings;
    Object.assign(this.gpuOnlySettings, settings);
    this.gpuOnlySettings.sortMode = 'gpu';
    this.gpuOnlySettings.freezeOrder = false;
    return this.gpuOnlySettings;
  }

  /** The frame's parameters: the camera and look, the splats drawn, the key width, SH bands no more than the scene has. */
  private parametersOf(camera: Readonly<FrameCamera>, keyBits: number): FrameParameters {
    const p = this.parameters;
    copyFrameCamera(p, camera);
    p.shDegree = Math.min(camera.shDegree, this.scene?.shDegree ?? 0);
    p.splatCount = this.scene?.count ?? 0;
    p.keyBits = keyBits;
    return p;
  }

  /** The renderer of this frame: the setting's (rendererSettingOf), or auto's (which counts this frame in its measure). */
  private rendererOf(settings: FrameSettings, params: FrameParameters, report: FrameReport): FrameRenderer {
    const view = this.encodeOptions.view;
    const setting = rendererSettingOf(settings, view);
    const scene = this.rendererScene;
    scene.width = params.width;
    scene.height = params.height;
    scene.timed = this.frame.timer.enabled;
    scene.tilesReady = this.frame.painters.tiles.isReady();
    const perPixel = wantsPerPixel(settings, view);
    if (this.needsPreparing(setting, perPixel)) void this.prepareRenderer(setting, perPixel);
    report.renderer = this.renderers.resolve(setting, scene);
    return report.renderer.renderer;
  }

  /**
   * The order of this frame: the setting's, or auto's (which counts this
   * frame in its measure, after the renderer's choice; the per-pixel
   * raster is made for it where tiles draw).
   */
  private orderOf(settings: FrameSettings, report: FrameReport): SplatOrder {
    const setting = settings.order ?? DEFAULT_SPLAT_ORDER;
    const renderer = report.renderer;
    let ready = false;
    if (setting === 'auto' && renderer.renderer === 'tiles' && renderer.state === 'chosen') {
      if (this.needsPreparing('tiles', true)) void this.prepareRenderer('tiles', true);
      ready = this.frame.painters.tiles.isReady(true);
    }
    report.orderChoice = this.orders.resolve(setting, renderer, this.rendererScene, ready);
    return report.orderChoice.order;
  }

  /**
   * Makes what `setting` may draw with (its painter; with `perPixel`, the
   * per-pixel order too). Frames draw with quads (or centre depths) until
   * it is made, or when it could not be (the painter's failure says why).
   * Callers that draw one frame and wait (the render command, screenshots)
   * wait for this first.
   */
  async prepareRenderer(setting: RendererSetting, perPixel = false): Promise<void> {
    if (!this.needsPreparing(setting, perPixel)) return;
    await this.frame.painters[setting === 'auto' ? 'tiles' : setting].prepare(perPixel).catch(() => {});
  }

  /** Whether `setting`'s painter is still to be made (checked each frame before anything is allocated for it). */
  private needsPreparing(setting: RendererSetting, perPixel: boolean): boolean {
    if (setting === 'quads') return false;
    const painter = this.frame.painters[setting === 'auto' ? 'tiles' : setting];
    return painter.failure === null && !painter.isReady(perPixel);
  }

  /** The last frame's GPU times, heat map counts and painter statistics, once the GPU has done it. */
  lastFrameResults(): Promise<FrameResults> {
    return this.reads.last();
  }

  destroy(): void {
    // The sources are their owner's (the Viewer's) to destroy.
    this.cpu.destroy();
    this.frame.destroy();
    this.gpuOrder.destroy();
  }
}
