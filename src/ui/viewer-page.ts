/**
 * The viewer page: a full-window WebGPU canvas showing one splat scene, the
 * orbit camera, the settings panel, the performance panels and the overlays.
 * It wires the DOM to the viewer core (src/app/viewer-core.ts), which owns
 * the scene, the frame and the draw order; each animation frame hands the
 * core the camera and the settings. Nothing in the loop allocates beyond
 * what WebGPU itself returns.
 *
 * For automated checks the page keeps `window.__splatsort` up to date and
 * sets `document.body.dataset.viewer` to 'ready' once the first scene has
 * been drawn ('load-failed' if that scene could not be opened).
 */

import { FrameRate } from './scene-facts';
import { frameHome, HOME_PITCH, HOME_YAW, sceneUp, upAxisOf } from '../app/home-view';
import { fileName, sceneName, shortName } from './scene-names';
import { screenFilterFor, type SceneAntiAliasing } from '../scene/anti-aliasing';
import { mat4, vec3 } from 'gl-matrix';
import { createCameraView, OrbitCamera, type CameraView } from '../app/orbit-camera';
import type { FrameTimings } from '../app/splat-frame';
import { ViewerCore, type FrameReport } from '../app/viewer-core';
import type { GpuContext } from '../gpu/device';
import { SplatLoader, type LoadedScene, type LoadProgressReport } from '../io/splat-loader';
import { SceneLoads, type LoadOutcome } from '../app/scene-loads';
import { DEFAULT_LOAD_LIMITS, type LoadLimits } from '../io/load-limits';
import { loadLimitsFor } from '../render/renderer-limits';
import { resolveSceneUrl } from '../io/scene-url';
import type { FrameParameters } from '../render/frame-uniforms';
import { storageBufferLimit } from '../scene/gpu-splats';
import { robustBounds, type Bounds, type SplatCloud } from '../scene/splat-cloud';
import { CpuOrderClient } from '../sort/cpu-order-client';
import { CAMERA_HELP, CameraInput, TOUCH_HELP } from './camera-input';
import type { CameraMode, FlySpeed } from '../app/fly-motion';
import { pickPoint } from '../app/pick-point';
import { followCamera } from '../app/camera-damping';
import { DropZone, FilePicker, HelpOverlay, MessageOverlay, PAGE_KEY_LISTENER, ProgressBar, el, isTypingKey, reportGpuErrors } from './overlays';
import { StatsPanels } from './stats-panels';
import { ViewSharing } from './view-sharing';
import { captureFrame } from './capture';
import { DEFAULT_SETTINGS, SIDE_PANEL_MIN_WIDTH, SORT_LABELS, ViewerGui, hexToRgb, type ViewerSettings } from './viewer-gui';
import './style.css';

const DEFAULT_SCENE = new URL('../../data/default-scene.ply', import.meta.url).href;
/** The page's own keys, for the help (the camera's are CAMERA_HELP). */
const PAGE_KEYS: ReadonlyArray<[string, string]> = [
  ['C', 'Switch between orbit and fly mode'],
  ['P', 'Screenshot'],
  ['U', 'Hide or show the panels (the link flag ui=0 starts hidden)'],
];
/** A touch screen is the main pointer (a phone, a tablet): its help shows the touch controls. */
const IS_TOUCH_SCREEN = matchMedia('(pointer: coarse)').matches;
/** Auto-rotate's speed: a turn in 36 s, slow enough to look at the scene as it turns. */
const AUTO_ROTATE_DEG_PER_S = 10;
/** On a narrow window the open panel is a sheet over at most this part of the window's height. */
const SHEET_MAX_HEIGHT = 0.45;
/** How often the read-only displays are refreshed. */
const INFO_INTERVAL_MS = 250;
/**
 * Frames submitted whose GPU work has not finished, at most. An animation
 * frame that finds this many in flight draws nothing: on a GPU slower than
 * the display (a software adapter, a busy integrated GPU) frames would
 * otherwise queue up, each showing a camera older than the last input, and
 * the queue would starve everything else the GPU process does for the page
 * (a screenshot, a scene upload, another tab). Two keep the GPU busy while
 * the CPU records the next frame.
 */
const MAX_FRAMES_IN_FLIGHT = 2;

/** What the page exposes for automated checks. */
export interface ViewerState {
  frames: number;
  splats: number;
  sceneName: string;
  activeSort: string;
  lastError: string | null;
  /** Warnings about the scene on screen (extra bytes, oversized splats, ...). */
  warnings: string[];
  /** A load is in progress. */
  loading: boolean;
  /** The key width of the order on screen. */
  keyBits: number;
  /** The last ordering error measured (auto, or the "measure ordering error" toggle), or null. */
  orderError: { invertedFraction: number; largest: number; keyBits: number } | null;
  /** What the sort difference view counted last (null outside it, or before its first count). */
  difference: { pixels: number; fraction: number; largest: number } | null;
  /** The camera of the last frame drawn. */
  view: CameraView;
  /** Fly mode's speed (scene units per second, without Shift). */
  readonly flySpeed: number;
  /** The point the last double-click or held touch picked (null: none there), undefined before any. */
  picked?: [number, number, number] | null;
  ready: boolean;
}

declare global {
  interface Window {
    __splatsort?: ViewerState;
  }
}

export class ViewerPage {
  private readonly canvas = el('canvas', { className: 'viewer-canvas', ariaLabel: 'Splat scene' });
  private readonly messages = new MessageOverlay();
  private readonly progress = new ProgressBar(() => this.cancelLoad());
  private readonly help = IS_TOUCH_SCREEN
    ? new HelpOverlay(TOUCH_HELP, window, () => {}, { touch: true })
    : new HelpOverlay([...CAMERA_HELP, ...PAGE_KEYS], window, () => {
      this.messages.dismissAll();
      this.cancelLoad();
    });
  private readonly picker = new FilePicker((files) => void this.open(files, sceneName(files)));
  private readonly settings: ViewerSettings = { ...DEFAULT_SETTINGS };
  private readonly state: ViewerState = {
    frames: 0, splats: 0, sceneName: '', activeSort: '', lastError: null, warnings: [], loading: false, ready: false, keyBits: 32, orderError: null, difference: null, view: createCameraView(), flySpeed: 1,
  };
  /** The camera the controls move, links and camera files keep. */
  private readonly camera = new OrbitCamera({ yaw: HOME_YAW, pitch: HOME_PITCH });
  /** The camera drawn: it follows `camera` smoothly (src/app/camera-damping.ts), or at once. */
  private readonly shown = new OrbitCamera({ yaw: HOME_YAW, pitch: HOME_PITCH });
  /** The next frame takes the camera at once (a new scene, a shared view): no glide from the last one. */
  private snapShown = true;
  /** The user (or a link) moved the camera since the scene on screen was framed: growing scenes leave it alone. */
  private cameraMoved = false;
  private readonly loader = new SplatLoader();
  /** Removes the message of the last load that failed, if it is still showing. */
  private clearLoadError: () => void = () => {};
  /** Removes the warnings about the scene on screen, if they are still showing. */
  private clearWarnings: () => void = () => {};
  /** What a scene may cost on this device. */
  private limits: LoadLimits = DEFAULT_LOAD_LIMITS;
  /** One load at a time; the newest one wins. */
  private readonly loads = new SceneLoads<File[] | string, LoadedScene, LoadProgressReport, SplatCloud>((source, options) =>
    this.loader.load(source, { ...options, limits: this.limits }));

  // Per-frame scratch, allocated once.
  private readonly params: FrameParameters = {
    view: mat4.create(), projection: mat4.create(), eye: vec3.create(), fovY: 1, width: 1, height: 1,
    splatCount: 0, shDegree: 0, splatScale: 1, keyBits: 32,
  };
  private readonly background: [number, number, number] = [0, 0, 0];
  private pendingSize: [number, number] = [1, 1];

  private device!: GPUDevice;
  private context!: GPUCanvasContext;
  private core!: ViewerCore;
  private gui!: ViewerGui;
  private stats!: StatsPanels;
  private target!: { view: GPUTextureView; background: readonly [number, number, number] };

  private bounds: Bounds | undefined;
  /** What the page showed before a load's preview replaced it, to come back to if the load does not complete. */
  private beforePreview: {
    bounds: Bounds | undefined; pickCloud: SplatCloud | undefined; antiAliasing: SceneAntiAliasing | undefined;
    camera: OrbitCamera; flySpeed: FlySpeed; upAxis: ViewerSettings['upAxis'];
    upSource: { value: string; tooltip: string | undefined }; name: string; splats: number;
  } | null = null;
  /** What a pick needs of the scene on screen: its splats' shapes and opacities (not their colours). */
  private pickCloud: SplatCloud | undefined;
  /** What the scene on screen says about its anti-aliasing (the 'auto' setting follows it). */
  private sceneAntiAliasing: SceneAntiAliasing | undefined;
  private cpuErrorShown = false;
  private differenceErrorShown = false;
  private readyPending = false;
  private framesInFlight = 0;
  private lastInfo = 0;
  private readonly fps = new FrameRate();
  private lastTick = -1;
  private running = true;
  private sharing!: ViewSharing;
  private input!: CameraInput;
  private format!: GPUTextureFormat;
  /** The view named in the page's link, applied to the first scene only. */
  private initialView: CameraView | null = null;

  private constructor() {}

  /** Takes over the page's root element (`#app`). */
  static mount(selector = '#app'): ViewerPage {
    const root = document.querySelector<HTMLElement>(selector);
    if (!root) throw new Error(`Splatsort: the page has no ${selector} element`);
    document.body.classList.add('viewer');
    const page = new ViewerPage();
    root.replaceChildren(page.canvas, page.picker.dom, page.progress.dom, page.help.dom, page.messages.dom);
    return page;
  }

  /** Shows why the viewer could not start (console and page). */
  showFatal(error: unknown): void {
    console.error(error);
    const reason = error instanceof Error ? error.message : String(error);
    this.state.lastError = `Splatsort could not start: ${reason}`;
    window.__splatsort = this.state;
    this.messages.show('Splatsort could not start', reason, { dismissible: false });
    document.body.dataset.viewer = 'failed';
  }

  async start(gpu: GpuContext): Promise<void> {
    window.__splatsort = this.state;
    this.device = gpu.device;
    this.limits = loadLimitsFor(storageBufferLimit(gpu.device));
    reportGpuErrors(gpu.device, this.messages, (text, lost) => {
      this.state.lastError = text;
      if (lost) this.running = false;
    });
    const context = this.canvas.getContext('webgpu');
    if (!context) throw new Error('The canvas has no WebGPU context');
    this.context = context;
    const format = navigator.gpu.getPreferredCanvasFormat();
    this.format = format;
    context.configure({ device: this.device, format, alphaMode: 'opaque' });
    this.core = await ViewerCore.create(this.device, format, () => new CpuOrderClient());
    this.core.onTimings = this.onTimings;
    this.target = { view: context.getCurrentTexture().createView(), background: this.background };

    this.stats = new StatsPanels(gpu.hasTimestamps);
    this.gui = new ViewerGui(this.settings, gpu.adapterName, {
      openFile: () => this.picker.open(),
      resetCamera: () => {
        this.camera.reset();
        this.showUpAxis();
        this.sharing.scheduleUrlUpdate();
      },
      copyViewLink: () => void this.sharing.copyLink(),
      saveCamera: () => this.sharing.saveCamera(),
      loadCamera: () => this.sharing.cameraPicker.open(),
      screenshot: () => void this.sharing.screenshot(this.settings.screenshotScale),
      fullscreen: () => this.toggleFullscreen(),
      level: () => {
        this.camera.level();
        this.cameraMoved = true;
        this.showUpAxis();
        this.gui.set('upSource', 'levelled from a view');
        this.sharing.scheduleUrlUpdate();
      },
      hideUi: () => this.setUiHidden(true),
      changed: (name) => this.settingChanged(name),
    });
    this.sharing = this.createSharing();
    this.initialView = this.sharing.viewFromPage();
    this.canvas.after(this.sharing.cameraPicker.dom);
    window.addEventListener('keydown', (event) => {
      if (isTypingKey(event) || event.ctrlKey || event.metaKey || event.altKey) return;
      const key = event.key.toLowerCase();
      if (key === 'p') void this.sharing.screenshot(this.settings.screenshotScale);
      else if (key === 'u') this.setUiHidden(!document.body.classList.contains('ui-hidden'));
      else if (key === 'c') this.setCameraMode(this.settings.cameraMode === 'fly' ? 'orbit' : 'fly');
    }, PAGE_KEY_LISTENER);
    this.settingChanged('background');
    this.settingChanged('sortMode');
    this.settingChanged('keyBits');
    // A link for embedding: ui=0 starts with the panels hidden (U shows them).
    if (new URLSearchParams(location.search).get('ui') === '0') this.setUiHidden(true);
    const drop = new DropZone(window, (files) => void this.open(files, sceneName(files)));
    this.canvas.after(this.stats.dom, this.help.hint, drop.dom);
    this.watchCanvas();
    // The controls exist from here on: the link's camera mode reaches them (the address stays as the link gave it).
    this.settings.cameraMode = this.sharing.modeFromPage();
    this.input.mode = this.settings.cameraMode;
    this.gui.refreshCameraMode();
    requestAnimationFrame(this.tick);

    // Any ?url= value gives a scene to look at: a link that cannot be
    // opened leaves its message up over the default scene.
    const link = new URLSearchParams(location.search).get('url');
    let outcome: LoadOutcome = 'failed';
    if (link !== null) {
      let url: string | undefined;
      try {
        url = resolveSceneUrl(link, location.href);
      } catch (error) {
        this.showLoadError(link === '' ? 'the link\'s scene' : shortName(link), error);
      }
      if (url !== undefined) outcome = await this.open(url, fileName(url), { link });
    }
    // The link failed, or its load was cancelled before any scene showed.
    if (outcome === 'failed' || (outcome === 'cancelled' && !this.core.gpuScene)) {
      if (link !== null) this.initialView = null; // the link's camera was for its own scene
      outcome = await this.open(DEFAULT_SCENE, 'default-scene.ply', { keepLoadError: true });
      if (link !== null && outcome === 'opened') this.sharing.keepFailedLink(link);
    }
    if (outcome === 'failed' && !this.core.gpuScene) document.body.dataset.viewer = 'load-failed';
  }

  private watchCanvas(): void {
    new ResizeObserver(([entry]) => {
      if (!entry) return;
      const box = entry.devicePixelContentBoxSize?.[0];
      const dpr = window.devicePixelRatio || 1;
      const width = box ? box.inlineSize : Math.round(entry.contentRect.width * dpr);
      const height = box ? box.blockSize : Math.round(entry.contentRect.height * dpr);
      const max = this.device.limits.maxTextureDimension2D;
      this.pendingSize = [Math.max(1, Math.min(max, width)), Math.max(1, Math.min(max, height))];
      this.layoutPanel();
    }).observe(this.canvas);
    this.gui.onPanelToggle(() => this.layoutPanel());
    this.layoutPanel();
    this.input = new CameraInput(this.canvas, this.camera, {
      bounds: () => this.bounds,
      keys: window,
      onChange: () => {
        this.cameraMoved = true;
        this.sharing.scheduleUrlUpdate();
        this.showUpAxis();
      },
      onPick: (x, y) => this.pickAt(x, y),
    });
    // Read live: the wheel sets the speed without a frame to publish it.
    Object.defineProperty(this.state, 'flySpeed', { get: () => this.input.fly.speed, enumerable: true });
  }

  /**
   * Loads a scene; the current one keeps rendering until the new one has
   * parsed, or, for a file decoded as it arrives, until its first part is
   * drawn in its place (showPreview). A later open() or the cancel button
   * (Escape) cancels it: nothing of a cancelled load (scene so far, error,
   * warning) stays on the page (SceneLoads, endPreview). Resolves to what
   * became of it.
   */
  private async open(
    source: File[] | string,
    name: string,
    options: { keepLoadError?: boolean; link?: string } = {},
  ): Promise<LoadOutcome> {
    // The preview of a load this one replaces goes: the scene before it comes back.
    this.endPreview();
    this.progress.start(name);
    this.state.loading = true;
    const started = performance.now();
    const outcome = await this.loads.run(source, {
      progress: (p) => this.progress.update(p.stage, p.fraction),
      preview: (cloud) => this.showPreview(cloud, source, name),
      show: ({ cloud, warnings, bytes }) => {
        this.showScene(cloud, source, name, options.link);
        this.gui.showSceneFacts(cloud, bytes, performance.now() - started, this.bounds!);
        // A scene that opened makes the messages about the one before stale.
        if (!options.keepLoadError) this.clearLoadError();
        this.clearWarnings();
        this.showWarnings(name, warnings);
      },
      fail: (error) => this.showLoadError(name, error),
    });
    // Nothing of a load that did not complete stays on screen.
    if (outcome === 'failed' || outcome === 'cancelled') this.endPreview();
    // A load that was replaced leaves the progress bar to the one that replaced it.
    if (outcome !== 'superseded') {
      this.progress.finish();
      this.state.loading = false;
    }
    return outcome;
  }

  /**
   * Puts a loaded scene on screen in place of the one before, framed, or in
   * place of its own preview, framed as a preview that grew (reframe).
   */
  private showScene(cloud: SplatCloud, source: File[] | string, name: string, link: string | undefined): void {
    this.core.setScene(cloud, `GpuSplats(${name})`);
    const previewed = this.beforePreview !== null;
    this.beforePreview = null;
    this.sceneAntiAliasing = cloud.antiAliasing;
    this.gui.setSceneShDegree(cloud.shDegree);
    this.gui.showScreenFilter(this.settings.antiAliasing, cloud.antiAliasing);
    if (previewed) this.reframe(cloud);
    else this.frameNewScene(cloud, source);
    // The scene's address goes into view links as the page's link gave it.
    this.sharing.setSceneUrl(typeof source === 'string' && source !== DEFAULT_SCENE ? link ?? source : null);
    this.nameScene(name, cloud.count.toLocaleString('en-US'), cloud.count);
  }

  /**
   * Shows the part of a scene that has arrived (a file decoded as it
   * downloads): the first part framed as a new scene, the next ones as the
   * scene growing (reframe); what was on screen is kept aside until the
   * load ends (endPreview).
   */
  private showPreview(cloud: SplatCloud, source: File[] | string, name: string): void {
    const first = this.beforePreview === null;
    try {
      this.core.showPreview(cloud, `GpuSplats(${name}, so far)`);
    } catch {
      // A part the GPU cannot hold: no preview; the load itself says what is wrong.
      return;
    }
    if (first) {
      this.beforePreview = {
        bounds: this.bounds, pickCloud: this.pickCloud, antiAliasing: this.sceneAntiAliasing,
        camera: new OrbitCamera().copy(this.camera), flySpeed: this.input.fly.saveSpeed(),
        upAxis: this.settings.upAxis, upSource: this.gui.get('upSource'), name: this.state.sceneName, splats: this.state.splats,
      };
      this.frameNewScene(cloud, source);
    } else {
      this.reframe(cloud);
    }
    this.nameScene(name, `${cloud.count.toLocaleString('en-US')} so far`, cloud.count);
  }

  /** Ends a preview of a load that did not complete: what was on screen before it comes back. */
  private endPreview(): void {
    const before = this.beforePreview;
    if (!before) return;
    this.beforePreview = null;
    this.core.restoreScene();
    this.bounds = before.bounds;
    this.pickCloud = before.pickCloud;
    this.sceneAntiAliasing = before.antiAliasing;
    this.camera.copy(before.camera);
    this.input.fly.restoreSpeed(before.flySpeed);
    this.settings.upAxis = before.upAxis;
    this.gui.set('upSource', before.upSource.value, before.upSource.tooltip);
    this.gui.refreshUpAxis();
    this.snapShown = true;
    this.nameScene(before.name, before.splats > 0 ? before.splats.toLocaleString('en-US') : '—', before.splats);
  }

  private nameScene(name: string, splatsText: string, splats: number): void {
    this.state.splats = splats;
    this.state.sceneName = name;
    this.gui.set('scene', name || '—');
    this.gui.set('splats', splatsText);
  }

  /**
   * A scene that grew (more of it arrived): framed anew while the user has
   * not moved the camera, the view gliding out as the scene fills in (the
   * parts of a file are seldom spread evenly: the first tenth of the
   * default scene is its lower half); once they have, their view stays and
   * only the home view (R) and the zoom limits follow the scene.
   */
  private reframe(cloud: SplatCloud): void {
    this.setSceneShape(cloud);
    if (!this.cameraMoved) {
      this.frameCamera();
      return;
    }
    const framed = new OrbitCamera().copy(this.camera);
    this.frameCamera(framed);
    this.camera.takeHome(framed);
  }

  /** What framing, picking and flying need of the scene: its bulk's bounds, the splats' shapes, its size. */
  private setSceneShape(cloud: SplatCloud): void {
    // The bulk of the scene, not its floaters.
    this.bounds = robustBounds(cloud.positions, cloud.count);
    this.pickCloud = { ...cloud, dc: new Float32Array(0), sh: new Float32Array(0), shDegree: 0 };
    this.input.fly.setScene(this.bounds);
  }

  /** Frames a new scene from the home angle, up as the scene suggests (or as the page's link names the view). */
  private frameNewScene(cloud: SplatCloud, source: File[] | string): void {
    this.setSceneShape(cloud);
    const up = sceneUp(cloud, source === DEFAULT_SCENE);
    this.settings.upAxis = up.axis;
    this.gui.set('upSource', up.source, up.why);
    this.frameCamera();
    this.cameraMoved = false;
    if (this.initialView) {
      // A shared link: the exact view it names (framing above set the zoom limits), kept as the scene grows.
      this.camera.setView(this.initialView);
      this.cameraMoved = true;
      this.settings.upAxis = upAxisOf(this.camera.up) ?? 'levelled';
      this.gui.set('upSource', 'the link');
      this.initialView = null;
    }
    this.gui.refreshUpAxis();
    this.snapShown = true;
  }

  /** Cancels the load in progress, if any (the progress bar's button, Escape): the scene before it comes back. */
  private cancelLoad(): void {
    this.loads.cancel();
  }

  private showLoadError(name: string, error: unknown): void {
    const reason = error instanceof Error ? error.message : String(error);
    this.state.lastError = `Could not open ${name}: ${reason}`;
    this.clearLoadError();
    this.clearLoadError = this.messages.show(`Could not open ${name}`, reason);
  }

  private showWarnings(name: string, warnings: readonly string[]): void {
    this.state.warnings = [...warnings];
    const removers = warnings.map((text) => this.messages.show(`${name} opened with a warning`, text, { tone: 'warn' }));
    this.clearWarnings = () => removers.forEach((remove) => remove());
  }

  private createSharing(): ViewSharing {
    return new ViewSharing({
      camera: this.camera,
      size: () => [this.canvas.width, this.canvas.height],
      background: () => [...this.background],
      shDegree: () => this.settings.shDegree,
      mode: () => this.settings.cameraMode,
      applyMode: (mode) => this.setCameraMode(mode),
      applyLook: (background, shDegree) => {
        this.settings.background = `#${background.map((c) => Math.round(c * 255).toString(16).padStart(2, '0')).join('')}`;
        this.gui.setShDegree(shDegree);
        this.gui.gui.controllersRecursive().forEach((c) => c.updateDisplay());
        this.settingChanged('background');
      },
      capture: (width, height) =>
        captureFrame(this.device, this.core.frame, this.core.currentOrder, this.format, this.params, this.background, width, height, this.core.shownView, (out, aspect) =>
          this.camera.projectionMatrix(out, aspect),
        ),
      showMessage: (title, text, tone) => this.messages.show(title, text, { tone }),
      showNotice: (title, text) => this.messages.notify(title, text),
    });
  }

  /**
   * Fits the panel to the window: on a wide one the picture shifts so the
   * camera's target shows in the middle of what the open panel leaves
   * uncovered; on a narrow one (a phone) it is a sheet along the bottom
   * edge (style.css) over less than half the window, and scrolls.
   */
  private layoutPanel(): void {
    const width = this.canvas.clientWidth;
    this.camera.coveredRight = width > 0 ? this.gui.coveredRight(width) / width : 0;
    const narrow = window.innerWidth < SIDE_PANEL_MIN_WIDTH;
    document.body.classList.toggle('narrow-window', narrow);
    this.gui.setMaxHeight(narrow ? window.innerHeight * SHEET_MAX_HEIGHT : null);
  }

  /** Frames the scene from the home pose with the chosen up axis; that pose becomes the reset pose. */
  private frameCamera(camera = this.camera): void {
    if (!this.bounds) return;
    const up = this.settings.upAxis === 'levelled' ? upAxisOf(this.camera.up) ?? '-y' : this.settings.upAxis;
    frameHome(camera, this.bounds, up, this.canvas.clientWidth / Math.max(1, this.canvas.clientHeight));
  }

  private settingChanged(name: keyof ViewerSettings): void {
    const s = this.settings;
    if (name === 'upAxis' && s.upAxis !== 'levelled') {
      // Choosing 'levelled' itself changes nothing: the level action sets it.
      this.gui.set('upSource', 'chosen in the panel');
      this.frameCamera();
      this.sharing.scheduleUrlUpdate();
    }
    if (name === 'cameraMode') {
      this.input.mode = s.cameraMode;
      this.sharing.scheduleUrlUpdate();
    }
    if (name === 'showStats') document.body.classList.toggle('stats-hidden', !s.showStats);
    if (name === 'background') {
      hexToRgb(s.background, this.background);
      document.body.style.backgroundColor = s.background;
    } else if (name === 'sortMode') {
      this.gui.setKeyBitsEnabled(s.sortMode !== 'cpu-counting16');
      this.gui.set('requestedSort', SORT_LABELS[s.sortMode]);
    } else if (name === 'antiAliasing') {
      this.gui.showScreenFilter(s.antiAliasing, this.sceneAntiAliasing);
    } else if (name === 'view') {
      // The counts shown are of the view now on screen only.
      this.core.difference = null;
    } else if (name === 'measureOrder' || name === 'keyBits') {
      // Auto measures on its own every few frames; without either, nothing is measured.
      if (!s.measureOrder && s.keyBits !== 'auto') this.gui.showOrderError(null);
    }
  }

  /**
   * Orbits the splat surface under a double-click or a held touch at (x, y),
   * CSS pixels from the canvas's corner; says so where there is none.
   */
  private pickAt(x: number, y: number): void {
    // The ray through what is on screen: the last frame's camera and window.
    const { canvas, params, pickCloud } = this;
    if (!pickCloud || this.state.frames === 0) return;
    const scaleX = params.width / Math.max(1, canvas.clientWidth), scaleY = params.height / Math.max(1, canvas.clientHeight);
    const pick = pickPoint(pickCloud, { ...params, shiftNdc: params.projection[8]! }, x * scaleX, y * scaleY);
    this.state.picked = pick ? pick.point : null;
    if (!pick) {
      this.messages.notify('Nothing to orbit there', 'Double-click (or touch and hold) a part of the scene to orbit around it.');
      return;
    }
    this.camera.orbitAround(pick.point);
    this.cameraMoved = true;
    this.sharing.scheduleUrlUpdate();
  }

  /** Orbit or fly (the C key, a link, a camera file), shown in the panel. */
  private setCameraMode(mode: CameraMode): void {
    this.settings.cameraMode = mode;
    this.gui.refreshCameraMode();
    this.settingChanged('cameraMode');
  }

  /** Shows the camera's up in the panel (a reset may bring an axis back, level leaves none). */
  private showUpAxis(): void {
    const shown = upAxisOf(this.camera.up) ?? 'levelled';
    if (this.settings.upAxis === shown) return;
    this.settings.upAxis = shown;
    this.gui.refreshUpAxis();
  }

  /** Hides the panel, the stats and the help hint (messages stay), or shows them again. */
  private setUiHidden(hidden: boolean): void {
    document.body.classList.toggle('ui-hidden', hidden);
    this.layoutPanel();
  }

  private toggleFullscreen(): void {
    const request = document.fullscreenElement ? document.exitFullscreen() : document.documentElement.requestFullscreen();
    request.catch((error: unknown) => this.messages.show('Fullscreen is not available', error instanceof Error ? error.message : String(error), { tone: 'info' }));
  }

  private readonly tick = (now: number): void => {
    if (!this.running) return;
    requestAnimationFrame(this.tick);
    const sinceLast = this.lastTick < 0 ? 0 : (now - this.lastTick) / 1000;
    this.lastTick = now;
    // Motion in steps of at most 0.1 s, so a stalled frame does not jump the camera.
    const elapsed = Math.min(0.1, sinceLast);
    if (this.settings.autoRotate && elapsed > 0) {
      this.camera.orbit((AUTO_ROTATE_DEG_PER_S * Math.PI / 180) * elapsed, 0);
      this.sharing.scheduleUrlUpdate();
    }
    this.input.step(elapsed);
    // The drawn camera follows the controls' (a slow frame catches up more, never less).
    followCamera(this.shown, this.camera, this.settings.smoothCamera && !this.snapShown ? sinceLast : Infinity);
    this.snapShown = false;
    if (this.framesInFlight >= MAX_FRAMES_IN_FLIGHT) return;
    this.stats.begin();
    const { canvas, params, shown: camera, settings } = this;
    if (canvas.width !== this.pendingSize[0] || canvas.height !== this.pendingSize[1]) {
      [canvas.width, canvas.height] = this.pendingSize;
    }
    camera.viewMatrix(params.view);
    camera.projectionMatrix(params.projection, canvas.width / canvas.height);
    camera.eye(params.eye);
    params.fovY = camera.fovY;
    params.width = canvas.width;
    params.height = canvas.height;
    params.shDegree = Math.min(settings.shDegree, this.core.gpuScene?.shDegree ?? 0);
    params.splatScale = settings.splatScale;
    params.screenFilter = screenFilterFor(settings.antiAliasing, this.sceneAntiAliasing);

    this.target.view = this.context.getCurrentTexture().createView();
    const report = this.core.drawFrame(this.target, params, settings);
    this.state.frames = this.core.frames;
    camera.getView(this.state.view);
    this.state.activeSort = report.choice.label;
    this.state.keyBits = report.keyBits;
    this.state.orderError = this.core.orderError;
    this.state.difference = settings.view === 'difference' ? this.core.difference : null;
    this.framesInFlight++;
    this.device.queue.onSubmittedWorkDone().then(this.onFrameDone, this.onFrameDone);
    if (report.cpuSortMs !== null) this.stats.addCpuSort(report.cpuSortMs);
    if (report.choice.source !== 'none') this.stats.addOrderAge(report.orderAge);
    const cpuError = this.core.cpuError;
    if (cpuError && !this.cpuErrorShown) {
      this.cpuErrorShown = true;
      this.messages.show('The CPU sort failed', `${cpuError}. Drawing with the GPU sort instead.`);
    }
    if (this.core.gpuScene && !this.readyPending) {
      this.readyPending = true;
      void this.device.queue.onSubmittedWorkDone().then(this.onReady);
    }
    if (now - this.lastInfo >= INFO_INTERVAL_MS) this.updateInfo(now, report);
    this.stats.end(now);
  };

  private updateInfo(now: number, report: FrameReport): void {
    this.fps.sample(now, this.core.frames);
    this.gui.set('fps', this.fps.text);
    this.lastInfo = now;
    const s = this.settings;
    const source = report.choice.source;
    this.gui.showOrder({
      requested: s.sortMode,
      waiting: report.choice.waiting,
      active: report.choice.label,
      keyBits: report.keyBits,
      auto: s.keyBits === 'auto' && source === 'gpu-sort',
      frozen: source === 'frozen',
      age: source === 'uploaded' ? report.orderAge : null,
    });
    if (s.measureOrder || s.keyBits === 'auto') this.gui.showOrderError(this.core.orderError);
    this.gui.showDifference(this.core.difference, s.view === 'difference');
    const differenceError = this.core.differenceError;
    if (differenceError && !this.differenceErrorShown) {
      this.differenceErrorShown = true;
      this.messages.show('The sort difference view is not available', differenceError);
    }
  }

  private readonly onTimings = (times: FrameTimings): void => {
    this.stats.addGpuTimes(times);
  };

  private readonly onFrameDone = (): void => {
    this.framesInFlight--;
  };

  private readonly onReady = (): void => {
    if (this.state.ready) return;
    this.state.ready = true;
    document.body.dataset.viewer = 'ready';
  };
}
