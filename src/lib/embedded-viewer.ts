/**
 * The viewer createViewer hands out: one Viewer (src/app/viewer.ts) with
 * what needs the DOM: its canvas and its size (canvas-framing.ts), the
 * frame loop (frame-loop.ts), the camera controls (camera-input.ts), the
 * device's errors, and the Viewer's events under their public names
 * (viewer-api.ts). Whatever it is asked goes through here, so the page's
 * panel and an embedding page drive the same calls.
 */
import { createNanoEvents, type Unsubscribe } from 'nanoevents';
import type { Viewer, AnyViewer } from '../app/viewer';
import { createCameraView } from '../app/camera/orbit-camera';
import { flippedUpAxis } from '../app/camera/up-axis';
import { cameraFileOf, parseCameraFile } from '../app/camera/camera-file';
import { writeOrderParam, writeRendererParam, writeViewParams } from '../app/camera/view-url';
import { hexToRgb, rgbToHex } from '../app/session/viewer-settings';
import { worldOfFolderInWorkers } from '../app/world/world-opening-web';
import { WORLD_ANTI_ALIASING } from '../app/world/world-options';
import { describeScreenFilter, screenFilterFor } from '../scene/anti-aliasing';
import { outputUsage } from '../render/output-target';
import type { SplatLoader } from '../io/splat-loader';
import { CameraInput } from './camera-input';
import { CanvasFraming } from './canvas-framing';
import { encodePng, pictureSide } from './capture';
import { watchDeviceErrors } from './device-errors';
import { readDroppedFolder } from './dropped-files';
import { FrameLoop } from './frame-loop';
import { openedInput } from './scene-input';
import { changedSettings } from './settings-input';
import { ViewerViews } from './views';
import type { CameraPose, FrameRenderer, FrameReport, GpuFacts, LoadOutcome, SaveSelection, SavedScene, ScreenFilterInUse, SplatOrder, ViewerSettings, ViewerState } from './public-types';
import type { CaptureFraming, CaptureOptions, DrawnCamera, LoadLimits, LoadOptions, SceneInput, SplatViewer, SplatViewerEvents, ViewerSettingsInput } from './viewer-api';
import type { PagePanel, PanelMount } from './page-panel';

export type PageViewer = Viewer<File[] | string>;

export interface EmbeddedViewerOptions {
  gpu: GpuFacts;
  /** The camera controls: off, or on with their keys heard on the canvas or anywhere on the page. */
  controls: false | 'canvas' | 'page';
  /** Loads the viewer page's panel and mounts it on this viewer (setUi, `ui: true`). */
  mountPanel: (viewer: SplatViewer, mount: PanelMount) => Promise<PagePanel>;
}

export class EmbeddedViewer implements SplatViewer {
  readonly canvas: HTMLCanvasElement;
  readonly gpu: GpuFacts;
  private readonly events = createNanoEvents<SplatViewerEvents>();
  private readonly loop: FrameLoop;
  private readonly input: CameraInput | null;
  private readonly framing: CanvasFraming;
  private readonly unbind: Unsubscribe[];
  /** Every DOM listener the viewer adds takes this signal: destroy() removes them all. */
  private readonly listening = new AbortController();
  private renderer: FrameRenderer | null = null;
  private order: SplatOrder | null = null;
  private destroyed = false;
  private readonly mountPanel: EmbeddedViewerOptions['mountPanel'];
  /** The page's panel once mounted; while it is being mounted, the promise of it. */
  private panel: PagePanel | null = null;
  private panelMade: Promise<void> | null = null;
  /** A move of the camera under way (camera.flyTo), its start set by the first frame after it was asked for. */
  private flight: { from: CameraPose; to: CameraPose; seconds: number; start: number; arrived: () => void } | null = null;
  readonly views: ViewerViews;

  constructor(
    container: HTMLElement,
    private readonly viewer: PageViewer,
    private readonly loader: SplatLoader,
    format: GPUTextureFormat,
    options: EmbeddedViewerOptions,
  ) {
    this.gpu = options.gpu;
    this.mountPanel = options.mountPanel;
    const canvas = (this.canvas = document.createElement('canvas'));
    canvas.className = 'splatsort-canvas';
    canvas.tabIndex = 0;
    canvas.setAttribute('aria-label', 'Splat scene');
    Object.assign(canvas.style, { display: 'block', width: '100%', height: '100%', outline: 'none' });
    container.append(canvas);
    const context = canvas.getContext('webgpu');
    if (!context) throw new Error('the canvas has no WebGPU context');
    context.configure({ device: viewer.core.device, format, alphaMode: 'opaque', usage: outputUsage(viewer.core.device, format) });
    const events = this.events;
    this.loop = new FrameLoop(viewer as AnyViewer, canvas, context, {
      begin: () => events.emit('beforeframe'),
      drawn: (report, now) => this.drawn(report, now),
    });
    this.input = options.controls
      ? new CameraInput(canvas, viewer.camera, {
        fly: viewer.rig.fly,
        bounds: () => viewer.state.scene?.bounds,
        keys: options.controls === 'page' ? window : canvas,
        onChange: () => {
          this.land();
          viewer.cameraMoved();
          events.emit('camerachange');
        },
        onPick: (x, y) => void viewer.pick(x, y),
        onFlipUp: () => this.flipUp(),
      })
      : null;
    if (this.input) this.input.mode = viewer.settings.cameraMode;
    this.views = new ViewerViews({
      camera: this.camera,
      lastFrame: () => this.lastFrame,
      canvasSize: () => ({ width: canvas.clientWidth, height: canvas.clientHeight }),
      baseUrl: () => document.baseURI,
      changed: (views) => events.emit('viewschange', views),
    });
    this.framing = new CanvasFraming(canvas, {
      resized: (width, height) => this.loop.resize(width, height),
      framed: (width, height, free) => viewer.setWindow(width, height, free),
    });
    watchDeviceErrors(viewer.core.device, this.listening.signal, (message, lost) => {
      viewer.state.lastError = lost ? `The GPU device was lost: ${message}` : `WebGPU error: ${message}`;
      if (lost) this.loop.stop();
      events.emit('gpuerror', { message, lost });
    });
    this.unbind = [
      viewer.on('loadStart', (name) => events.emit('loadstart', name)),
      viewer.on('progress', (p) => events.emit('loadprogress', p)),
      viewer.on('loadEnd', (outcome) => events.emit('loadend', outcome)),
      viewer.on('scene', (facts, how) => events.emit('scenechange', facts, how)),
      viewer.on('opened', ({ name, warnings, keepError }) => {
        // The SH degree drawn starts at the scene's own.
        events.emit('settingschange', ['shDegree']);
        events.emit('loaded', name, { warnings, keepError });
      }),
      viewer.on('failed', (failure) => events.emit('error', failure)),
      viewer.on('up', (choice) => {
        events.emit('upchange', choice);
        events.emit('settingschange', ['upAxis']);
      }),
      viewer.on('camera', () => events.emit('camerachange')),
      viewer.on('message', (message) => events.emit('message', message)),
      viewer.on('timings', (times) => events.emit('gputimes', times)),
      viewer.on('difference', (count) => events.emit('heatmapcount', count)),
      viewer.on('ready', () => events.emit('ready')),
    ];
  }

  get state(): Readonly<ViewerState> {
    return this.viewer.state;
  }

  get settings(): Readonly<ViewerSettings> {
    return this.viewer.settings;
  }

  get device(): GPUDevice {
    return this.viewer.core.device;
  }

  get limits(): LoadLimits {
    return this.viewer.limits;
  }

  get lastFrame(): DrawnCamera {
    return this.viewer.lastFrame;
  }

  get heatMapReady(): boolean {
    const { view } = this.viewer.settings;
    const frame = this.viewer.core.frame;
    return view === 'picture' || (view === 'pixel-order' ? frame.canShowPixelOrder : frame.canShowDifference);
  }

  get screenFilter(): ScreenFilterInUse {
    const setting = this.viewer.settings.antiAliasing;
    const scene = this.viewer.state.scene?.antiAliasing;
    const filter = screenFilterFor(setting, scene);
    const why = setting !== 'auto' ? 'forced' : scene ? `from ${scene.source}` : 'the file records none';
    const chosenBy = setting !== 'auto' ? 'setting' : !scene ? 'default' : scene === WORLD_ANTI_ALIASING ? 'world' : 'file';
    return { ...filter, description: describeScreenFilter(filter), why, fromFile: chosenBy === 'file' || chosenBy === 'world', chosenBy };
  }

  readonly camera = {
    get: (): CameraPose => this.viewer.camera.getView(createCameraView()),
    set: (pose: CameraPose): void => {
      this.land();
      this.viewer.setView(pose);
    },
    flyTo: (pose: CameraPose, options: { seconds?: number } = {}): Promise<void> => {
      this.land();
      const seconds = Math.max(0, options.seconds ?? 1);
      return new Promise<void>((arrived) => {
        this.flight = { from: this.camera.get(), to: structuredClone(pose), seconds, start: -1, arrived };
      });
    },
  };

  async load(source: SceneInput, options: LoadOptions = {}): Promise<LoadOutcome> {
    const input = openedInput(source, document.baseURI);
    const name = options.name ?? input.name;
    if (input.kind === 'refused') {
      this.viewer.fail(name, input.error);
      return 'failed';
    }
    if (input.kind === 'scene') return this.viewer.open(input.opened, { name, view: options.camera, up: options.up, keepError: options.keepError });
    try {
      const dropped = await readDroppedFolder(input.entries);
      // Named after the folder dropped, not the file in it read first (a SOG's meta.json, a world's lod-meta.json).
      if ('files' in dropped) return await this.load(dropped.files, { ...options, name });
      return await this.viewer.openWorld(worldOfFolderInWorkers(dropped.entries), { name, view: options.camera, keepError: options.keepError });
    } catch (error) {
      this.viewer.fail(name, error);
      return 'failed';
    }
  }

  cancel(): void {
    this.viewer.cancel();
  }

  frameScene(): void {
    this.viewer.frameScene();
  }

  resetCamera(): void {
    this.viewer.resetCamera();
  }

  homeView(): CameraPose {
    return this.viewer.homeView();
  }

  level(): void {
    this.viewer.level();
  }

  flipUp(): void {
    this.setSettings({ upAxis: flippedUpAxis(this.viewer.settings.upAxis, this.viewer.camera.up) });
  }

  setSettings(input: ViewerSettingsInput): void {
    const viewer = this.viewer;
    const changed = changedSettings(viewer.settings, input);
    if (changed.length === 0) return;
    for (const key of changed) (viewer.settings as unknown as Record<string, unknown>)[key] = input[key];
    for (const key of changed) {
      if (key === 'upAxis') viewer.upAxisChosen();
      else if (key === 'cameraMode' && this.input) this.input.mode = viewer.settings.cameraMode;
      else if (key === 'worldBudget') viewer.worldBudgetChanged();
      // The counts shown are of the view now on screen only.
      else if (key === 'view') viewer.core.reads.difference = null;
    }
    this.events.emit('settingschange', changed);
  }

  setOverlays(elements: readonly Element[]): void {
    this.framing.setOverlays(elements);
  }

  async save(format: string, selection: SaveSelection = { keep: 'all' }): Promise<SavedScene> {
    const saved = await this.viewer.saveScene(format, selection);
    return { name: saved.name, blob: new Blob([saved.bytes as Uint8Array<ArrayBuffer>], { type: 'application/octet-stream' }), splats: saved.splats, of: saved.of };
  }

  saveLosses(format: string): string[] {
    return this.viewer.saveLosses(format);
  }

  async capture(options?: CaptureOptions): Promise<Blob> {
    const { width, height, rgba } = await this.capturePixels(options);
    return encodePng(rgba, width, height);
  }

  async capturePixels(options: CaptureOptions = {}): Promise<{ width: number; height: number; rgba: Uint8Array }> {
    const width = pictureSide('width', options.width ?? this.canvas.width);
    const height = pictureSide('height', options.height ?? this.canvas.height);
    return { width, height, rgba: await this.viewer.capture(width, height, options.framing ?? 'scene') };
  }

  cameraFile(options: { framing?: CaptureFraming } = {}): string {
    const s = this.viewer.settings;
    const lensShift = (options.framing ?? 'screen') === 'screen' ? this.viewer.lensShift() : undefined;
    const look = { width: this.canvas.width, height: this.canvas.height, background: hexToRgb(s.background, [0, 0, 0]), shDegree: s.shDegree, mode: s.cameraMode, lensShift };
    return JSON.stringify(cameraFileOf(this.camera.get(), look), null, 2) + '\n';
  }

  applyCameraFile(text: string): void {
    const file = parseCameraFile(text);
    this.camera.set({ eye: file.eye, target: file.target, up: file.up, fovyDeg: file.fovy_deg });
    // The SH degree drawn stays within the scene's own.
    const shDegree = Math.min(file.sh_degree, this.viewer.state.scene?.shDegree ?? file.sh_degree);
    this.setSettings({ background: rgbToHex(file.background), shDegree, cameraMode: file.mode ?? 'orbit' });
  }

  writeViewLink(params: URLSearchParams): void {
    const s = this.viewer.settings;
    writeViewParams(this.camera.get(), params, s.cameraMode);
    writeRendererParam(s.renderer, params);
    writeOrderParam(s.order, params);
    this.views.writeLink(params);
  }

  on<E extends keyof SplatViewerEvents>(event: E, listener: SplatViewerEvents[E]): Unsubscribe {
    return this.events.on(event, listener);
  }

  get ui(): boolean {
    return this.panel !== null && !this.panel.hidden;
  }

  async setUi(shown: boolean): Promise<void> {
    if (shown && !this.panel) await this.showPanel({ first: null, openFirst: false });
    this.panel?.setHidden(!shown);
  }

  /** Mounts the page's panel (once), opening the first scene as `mount` says. */
  showPanel(mount: PanelMount): Promise<void> {
    this.panelMade ??= this.mountPanel(this, mount).then((panel) => {
      // Destroyed while its module loaded: the panel goes with the viewer.
      if (this.destroyed) panel.destroy();
      else this.panel = panel;
    });
    return this.panelMade;
  }

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.panel?.destroy();
    this.panel = null;
    this.views.dispose();
    this.land();
    this.loop.stop();
    this.framing.disconnect();
    this.input?.dispose();
    this.listening.abort();
    for (const unbind of this.unbind) unbind();
    this.events.events = {};
    this.viewer.destroy();
    this.loader.dispose();
    this.canvas.remove();
  }

  private drawn(report: FrameReport, now: number): void {
    this.fly(now);
    this.events.emit('frame', report, now);
    const renderer = report.renderer.renderer;
    if (renderer !== this.renderer) {
      this.renderer = renderer;
      this.events.emit('rendererchange', renderer);
    }
    if (report.order !== this.order) {
      this.order = report.order;
      this.events.emit('orderchange', report.order);
    }
  }

  /** The camera's next pose along a flight (camera.flyTo): eased in and out, the last at the pose asked for. */
  private fly(now: number): void {
    const flight = this.flight;
    if (!flight) return;
    if (flight.start < 0) flight.start = now;
    const t = flight.seconds === 0 ? 1 : Math.min(1, (now - flight.start) / (1000 * flight.seconds));
    const eased = t * t * (3 - 2 * t);
    const { from, to } = flight;
    const mix = (a: readonly number[], b: readonly number[]) => [0, 1, 2].map((i) => a[i]! + (b[i]! - a[i]!) * eased) as [number, number, number];
    this.viewer.setView(t === 1 ? to : { eye: mix(from.eye, to.eye), target: mix(from.target, to.target), up: mix(from.up, to.up), fovyDeg: from.fovyDeg + (to.fovyDeg - from.fovyDeg) * eased });
    if (t === 1) this.land();
  }

  /** Ends a flight where the camera is (arrived, or another move took over). */
  private land(): void {
    const flight = this.flight;
    this.flight = null;
    flight?.arrived();
  }
}
