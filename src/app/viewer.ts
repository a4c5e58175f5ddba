/**
 * The viewer without its page: one scene session. It opens scenes (one
 * load at a time, the newest wins), shows the part of a file loaded so far
 * in place of the scene before, and then the whole scene, or, when the load
 * fails or is cancelled, that scene again as it was: its GPU data, camera,
 * framing, up axis and panel rows, kept aside as one snapshot. It frames
 * each new scene, chooses its up axis, picks points, and draws frames
 * (ViewerCore) on screen or offscreen.
 *
 * DOM-free: the page (src/ui/viewer-page.ts) is one view of it, the render
 * command, the benchmarks and the browser tests' hook drive the same class.
 * It publishes a state snapshot and events (src/app/viewer-state.ts) and
 * never calls its views. How a source is loaded is handed in: a worker in
 * the browser, the file system in Node.
 */
import { createNanoEvents, type Unsubscribe } from 'nanoevents';
import { mat4, vec3 } from 'gl-matrix';
import { ViewerCore, type FrameReport } from './viewer-core';
import { CameraRig, type RigSnapshot } from './camera-rig';
import { SceneLoads, type LoadOutcome } from './scene-loads';
import { frameHome, sceneUp } from './home-view';
import { upAxisOf, type UpAxis } from './up-axis';
import { cameraFileOf, cameraMatrices, type CameraFile } from './camera-file';
import { createCameraView, OrbitCamera, type CameraView } from './orbit-camera';
import { pickPoint } from './pick-point';
import { createViewerState, type SceneFacts, type UpChoice, type ViewerEvents, type ViewerState } from './viewer-state';
import { DEFAULT_SETTINGS, hexToRgb, type ViewerSettings } from './viewer-settings';
import { drawOffscreen, type OffscreenPicture } from './offscreen-render';
import type { SplatFrameOptions } from './splat-frame';
import type { FrameParameters } from '../render/frame-uniforms';
import { screenFilterFor } from '../scene/anti-aliasing';
import { robustBounds, type SplatCloud } from '../scene/splat-cloud';
import { storageBufferLimit, type GpuSplats } from '../scene/gpu-splats';
import type { LoadLimits } from '../io/load-limits';
import { loadLimitsFor } from '../render/renderer-limits';
import type { LoadedScene, LoadProgressReport } from '../io/splat-loader';
import { SyncCpuOrder, type CpuOrderSource } from '../sort/cpu-order-source';

/** Loads a source: a worker in the browser, the file system in Node; rejects with an AbortError once `signal` aborts. */
export type SceneLoader<S> = (
  source: S,
  options: { signal: AbortSignal; onProgress: (p: LoadProgressReport) => void; onPreview?: (cloud: SplatCloud) => void; limits: LoadLimits },
) => Promise<LoadedScene>;

export interface ViewerOptions<S> {
  load: SceneLoader<S>;
  /** The CPU sort of the CPU sort modes (default: a synchronous one). */
  cpuSort?: () => CpuOrderSource;
  /** Passed to the frame (e.g. its accumulation target). */
  frame?: SplatFrameOptions;
  /** What a scene may cost (default: what this device's buffers hold). */
  limits?: LoadLimits;
}

export interface OpenOptions {
  /** How messages and the panel name the scene. */
  name: string;
  /** The viewer's own default scene: +y up. */
  defaultScene?: boolean;
  /** The view to show the scene from (a shared link's), instead of framing it. */
  view?: CameraView | null;
  /** A load error shown before stays (the default scene standing in for a link that failed). */
  keepError?: boolean;
}

/** The scene on screen, and what framing, picking and the panel need of it. */
interface ShownScene {
  gpu: GpuSplats | null;
  positions: Float32Array;
  count: number;
  /** Its splats' shapes and opacities (not their colours), for picks. */
  pickCloud: SplatCloud | null;
  facts: SceneFacts | null;
}

const NO_SCENE: ShownScene = { gpu: null, positions: new Float32Array(0), count: 0, pickCloud: null, facts: null };

/** A Viewer whatever it opens: for views that never open a source themselves. */
export type AnyViewer = Viewer<never>;

export class Viewer<S> {
  readonly settings: ViewerSettings = { ...DEFAULT_SETTINGS };
  readonly rig = new CameraRig();
  readonly state: ViewerState = createViewerState(() => this.rig.fly.speed);
  readonly limits: LoadLimits;
  private readonly events = createNanoEvents<ViewerEvents>();
  private readonly loads: SceneLoads<S, LoadedScene, LoadProgressReport, SplatCloud>;
  private shown: ShownScene = NO_SCENE;
  /** What a preview replaced, to come back to if its load does not complete. */
  private held: { scene: ShownScene; rig: RigSnapshot; up: UpChoice; warnings: string[] } | null = null;
  private readonly params: FrameParameters = {
    view: mat4.create(), projection: mat4.create(), eye: vec3.create(), fovY: 1, width: 1, height: 1,
    splatCount: 0, shDegree: 0, splatScale: 1, keyBits: 32,
  };
  private readonly target = { view: null as unknown as GPUTextureView, background: [0, 0, 0] as [number, number, number] };
  /** The window's size in CSS pixels (framing, picks). */
  private readonly window = { width: 1, height: 1 };
  private readyPending = false;
  private cpuErrorShown = false;
  private differenceErrorShown = false;

  static async create<S>(device: GPUDevice, format: GPUTextureFormat, options: ViewerOptions<S>): Promise<Viewer<S>> {
    const core = await ViewerCore.create(device, format, options.cpuSort ?? (() => new SyncCpuOrder()), options.frame);
    return new Viewer(core, format, options);
  }

  private constructor(readonly core: ViewerCore, readonly format: GPUTextureFormat, options: ViewerOptions<S>) {
    this.limits = options.limits ?? loadLimitsFor(storageBufferLimit(core.device));
    this.loads = new SceneLoads((source, o) => options.load(source, { ...o, limits: this.limits }));
    core.onTimings = (times) => this.events.emit('timings', times);
  }

  on<E extends keyof ViewerEvents>(event: E, listener: ViewerEvents[E]): Unsubscribe {
    return this.events.on(event, listener);
  }

  /** The camera the controls move. */
  get camera(): OrbitCamera {
    return this.rig.camera;
  }

  /**
   * Opens a scene in place of the one on screen, which stays until the new
   * one has parsed or, for a file decoded as it arrives, until its first
   * part can be drawn in its place. A later open() or cancel() cancels it;
   * nothing of a load that does not complete stays. Resolves to what became
   * of it.
   */
  async open(source: S, options: OpenOptions): Promise<LoadOutcome> {
    // The preview of a load this one replaces goes: the scene before it comes back.
    this.endPreview();
    const { name } = options;
    this.state.loading = true;
    this.state.load = { name, progress: null };
    this.events.emit('loadStart', name);
    const started = performance.now();
    const outcome = await this.loads.run(source, {
      progress: (p) => {
        this.state.load = { name, progress: p };
        this.events.emit('progress', p);
      },
      preview: (cloud) => this.showPreview(cloud, options),
      show: (loaded) => this.showLoaded(loaded, options, performance.now() - started),
      fail: (error) => this.fail(name, error),
    });
    if (outcome === 'failed' || outcome === 'cancelled') this.endPreview();
    // A load that was replaced leaves the progress to the one that replaced it.
    if (outcome !== 'superseded') {
      this.state.loading = false;
      this.state.load = null;
      this.events.emit('loadEnd', outcome);
    }
    return outcome;
  }

  /** Makes what the sort difference view needs; frames show the picture until it is done. */
  prepareDifferenceView(): Promise<void> {
    return this.core.frame.prepareDifferenceView();
  }

  /** Cancels the load in progress, if any: the scene before it comes back. */
  cancel(): void {
    this.loads.cancel();
  }

  /** Reports that `name` could not be opened (a load's failure, or a source refused before any load). */
  fail(name: string, error: unknown): void {
    const reason = error instanceof Error ? error.message : String(error);
    this.state.lastError = `Could not open ${name}: ${reason}`;
    this.events.emit('failed', { name, reason });
  }

  private showLoaded({ cloud, warnings, bytes }: LoadedScene, options: OpenOptions, loadMs: number): void {
    const gpu = this.core.showCloud(cloud, `GpuSplats(${options.name})`);
    const previewed = this.held !== null;
    if (this.held && this.held.scene.gpu !== this.shown.gpu) this.held.scene.gpu?.destroy();
    this.held = null;
    this.shown.gpu?.destroy();
    this.shown = this.sceneOf(gpu, cloud, { name: options.name, partial: false, bytes, loadMs });
    const bounds = this.shown.facts!.bounds;
    if (previewed) this.rig.reframe(bounds, this.framingUp());
    else this.frameNewScene(cloud, options);
    // The scene as trained: its SH degree.
    this.settings.shDegree = cloud.shDegree;
    if (!options.keepError) this.state.lastError = null;
    this.state.warnings = [...warnings];
    this.publishScene('opened');
    this.events.emit('opened', { name: options.name, cloud, warnings, keepError: options.keepError ?? false });
  }

  /**
   * Shows the part of a scene that has arrived (a file decoded as it
   * downloads): the first part framed as a new scene, the next ones as the
   * scene growing; what was on screen is held aside until the load ends.
   */
  private showPreview(cloud: SplatCloud, options: OpenOptions): void {
    let gpu: GpuSplats;
    try {
      gpu = this.core.showCloud(cloud, `GpuSplats(${options.name}, so far)`);
    } catch {
      // A part the GPU cannot hold: no preview; the load itself says what is wrong.
      return;
    }
    const first = this.held === null;
    if (first) this.held = { scene: this.shown, rig: this.rig.save(), up: { ...this.state.up }, warnings: this.state.warnings };
    // The preview before this one.
    else this.shown.gpu?.destroy();
    this.shown = this.sceneOf(gpu, cloud, { name: options.name, partial: true, bytes: null, loadMs: null });
    if (first) this.frameNewScene(cloud, options);
    else this.rig.reframe(this.shown.facts!.bounds, this.framingUp());
    this.publishScene('preview');
  }

  /** Ends a preview of a load that did not complete: what was on screen before it comes back. */
  private endPreview(): void {
    const held = this.held;
    if (!held) return;
    this.held = null;
    this.core.show(held.scene.gpu, held.scene.positions, held.scene.count);
    this.shown.gpu?.destroy();
    this.shown = held.scene;
    this.rig.restore(held.rig);
    this.state.warnings = held.warnings;
    this.setUp(held.up);
    this.publishScene('restored');
    this.events.emit('camera');
  }

  private sceneOf(gpu: GpuSplats, cloud: SplatCloud, load: Pick<SceneFacts, 'name' | 'partial' | 'bytes' | 'loadMs'>): ShownScene {
    // The bulk of the scene, not its floaters.
    const bounds = robustBounds(cloud.positions, cloud.count);
    this.rig.fly.setScene(bounds);
    return {
      gpu,
      positions: cloud.positions,
      count: cloud.count,
      pickCloud: { ...cloud, dc: new Float32Array(0), sh: new Float32Array(0), shDegree: 0 },
      facts: { ...load, splats: cloud.count, shDegree: cloud.shDegree, bounds, antiAliasing: cloud.antiAliasing },
    };
  }

  private publishScene(how: 'opened' | 'preview' | 'restored'): void {
    const facts = this.shown.facts;
    this.state.scene = facts;
    this.state.sceneName = facts?.name ?? '';
    this.state.splats = facts?.splats ?? 0;
    this.events.emit('scene', facts, how);
  }

  /** Frames a new scene from the home angle, up as the scene suggests, or from the view the open names. */
  private frameNewScene(cloud: SplatCloud, options: OpenOptions): void {
    const up = sceneUp(cloud, options.defaultScene ?? false);
    this.rig.frameHome(this.shown.facts!.bounds, up.axis);
    this.rig.moved = false;
    if (options.view) {
      // A shared link: the exact view it names (framing above set the zoom limits), kept as the scene grows.
      this.camera.setView(options.view);
      this.rig.moved = true;
      this.setUp({ axis: upAxisOf(this.camera.up) ?? 'levelled', source: 'the link', why: undefined });
    } else {
      this.setUp({ axis: up.axis, source: up.source, why: up.why });
    }
    this.rig.jump();
    this.events.emit('camera');
  }

  private setUp(choice: UpChoice): void {
    this.settings.upAxis = choice.axis;
    this.state.up = choice;
    this.events.emit('up', choice);
  }

  /** The axis framing uses: the chosen one, or for a levelled view the axis the camera's up is, else −y. */
  private framingUp(): UpAxis {
    const axis = this.settings.upAxis;
    return axis === 'levelled' ? upAxisOf(this.camera.up) ?? '-y' : axis;
  }

  /** The window the scene is framed in (CSS pixels), and the share of its width a panel covers at the right. */
  setWindow(width: number, height: number, coveredRight = 0): void {
    this.window.width = Math.max(1, width);
    this.window.height = Math.max(1, height);
    this.rig.setWindow(this.window.width, this.window.height, coveredRight);
  }

  /** The controls moved the camera: a scene that grows leaves the view alone from now on. */
  cameraMoved(): void {
    this.rig.moved = true;
    this.showUpAxis();
  }

  /** Back to the view the scene opened with (R). */
  resetCamera(): void {
    this.camera.reset();
    this.showUpAxis();
    this.events.emit('camera');
  }

  /** Fits the scene into the window from where the camera looks now (F); the home view stays. */
  frameScene(): void {
    const facts = this.shown.facts;
    if (facts) this.rig.frameFromHere(facts.bounds);
    else this.camera.reset();
    this.events.emit('camera');
  }

  /** The up axis chosen in the panel (settings.upAxis): the scene framed anew with it. */
  upAxisChosen(): void {
    if (this.settings.upAxis === 'levelled') return; // the level action sets it
    this.state.up = { axis: this.settings.upAxis, source: 'chosen in the panel', why: undefined };
    this.events.emit('up', this.state.up);
    const facts = this.shown.facts;
    if (facts) this.rig.frameHome(facts.bounds, this.settings.upAxis);
    this.events.emit('camera');
  }

  /** Makes what is up on screen the scene's up (a scene captured at a slant). */
  level(): void {
    this.camera.level();
    this.rig.moved = true;
    this.setUp({ axis: upAxisOf(this.camera.up) ?? 'levelled', source: 'levelled from a view', why: undefined });
    this.events.emit('camera');
  }

  /** Shows `view` (a camera file's, a link's) on the scene on screen. */
  setView(view: CameraView): void {
    this.camera.setView(view);
    this.rig.moved = true;
    this.showUpAxis();
    this.events.emit('camera');
  }

  /** Keeps the up axis setting in step with the camera's up (a reset may bring an axis back, level leaves none). */
  private showUpAxis(): void {
    const axis = upAxisOf(this.camera.up) ?? 'levelled';
    if (this.settings.upAxis === axis) return;
    this.setUp({ ...this.state.up, axis });
  }

  /**
   * Orbits the splat surface under (x, y), CSS pixels from the window's
   * corner, as the last frame showed it; says so where there is none.
   */
  pick(x: number, y: number): [number, number, number] | null {
    const { params } = this;
    const cloud = this.shown.pickCloud;
    if (!cloud || this.state.frames === 0) return null;
    const scaleX = params.width / this.window.width, scaleY = params.height / this.window.height;
    const found = pickPoint(cloud, { ...params, shiftNdc: params.projection[8]! }, x * scaleX, y * scaleY);
    this.state.picked = found ? found.point : null;
    if (!found) {
      this.events.emit('message', { title: 'Nothing to orbit there', text: 'Double-click (or touch and hold) a part of the scene to orbit around it.', tone: 'notice' });
      return null;
    }
    this.camera.orbitAround(found.point);
    this.rig.moved = true;
    this.events.emit('camera');
    return found.point;
  }

  /**
   * Advances time by `seconds` (auto-rotate, fly mode, the drawn camera
   * following the controls'), then records and submits one frame into
   * `target` (width × height device pixels). Allocates nothing once warm.
   */
  drawFrame(target: GPUTextureView, width: number, height: number, seconds: number): FrameReport {
    const s = this.settings;
    if (this.rig.advance(seconds, { autoRotate: s.autoRotate, fly: s.cameraMode === 'fly', smooth: s.smoothCamera })) this.events.emit('camera');
    this.frameParameters(this.rig.shown, width, height);
    this.target.view = target;
    hexToRgb(s.background, this.target.background);
    const report = this.core.drawFrame(this.target, this.params, s);
    this.publishFrame(report);
    return report;
  }

  private frameParameters(camera: OrbitCamera, width: number, height: number): void {
    const p = this.params;
    camera.viewMatrix(p.view);
    camera.projectionMatrix(p.projection, width / height);
    camera.eye(p.eye);
    p.fovY = camera.fovY;
    this.cameraLook(width, height);
  }

  /** The frame parameters that do not come from the camera. */
  private cameraLook(width: number, height: number): void {
    const p = this.params, s = this.settings;
    p.width = width;
    p.height = height;
    p.shDegree = Math.min(s.shDegree, this.core.gpuScene?.shDegree ?? 0);
    p.splatScale = s.splatScale;
    p.screenFilter = screenFilterFor(s.antiAliasing, this.shown.facts?.antiAliasing);
  }

  private publishFrame(report: FrameReport): void {
    const state = this.state;
    state.frames = this.core.frames;
    this.rig.shown.getView(state.view);
    state.activeSort = report.choice.label;
    state.keyBits = report.keyBits;
    state.orderError = this.core.orderError;
    state.difference = this.settings.view === 'difference' ? this.core.difference : null;
    const cpuError = this.core.cpuError;
    if (cpuError && !this.cpuErrorShown) {
      this.cpuErrorShown = true;
      this.events.emit('message', { title: 'The CPU sort failed', text: `${cpuError}. Drawing with the GPU sort instead.`, tone: 'error' });
    }
    const differenceError = this.core.differenceError;
    if (differenceError && !this.differenceErrorShown) {
      this.differenceErrorShown = true;
      this.events.emit('message', { title: 'The sort difference view is not available', text: differenceError, tone: 'error' });
    }
    if (this.core.gpuScene && !this.readyPending) {
      this.readyPending = true;
      void this.core.device.queue.onSubmittedWorkDone().then(() => {
        state.ready = true;
        this.events.emit('ready');
      });
    }
  }

  /**
   * Draws the scene from `camera` (a camera file: its size, view and
   * look) offscreen, with the settings as they are, and reads it back.
   * The render command, the benchmarks and the tests draw this way.
   */
  async render(camera: CameraFile): Promise<OffscreenPicture> {
    const p = this.params;
    const { width, height } = camera;
    cameraMatrices(camera, p.view, p.projection);
    vec3.set(p.eye, ...camera.eye);
    p.fovY = (camera.fovy_deg * Math.PI) / 180;
    this.cameraLook(width, height);
    p.shDegree = Math.min(camera.sh_degree, p.shDegree);
    const background = this.target.background;
    [background[0], background[1], background[2]] = camera.background;
    const picture = await drawOffscreen(this.core, this.format, this.params, background, this.settings);
    this.publishFrame(picture.report);
    return picture;
  }

  /** The view on screen drawn again at width × height (a screenshot), as RGBA rows. */
  async capture(width: number, height: number): Promise<Uint8Array> {
    this.frameParameters(this.rig.shown, width, height);
    hexToRgb(this.settings.background, this.target.background);
    const picture = await drawOffscreen(this.core, this.format, this.params, this.target.background, this.settings);
    return picture.rgba;
  }

  /** The camera file of the scene's home view at width × height, as the viewer opens it without a panel. */
  homeCamera(width: number, height: number): CameraFile {
    const camera = new OrbitCamera().copy(this.camera);
    camera.coveredRight = 0;
    const facts = this.shown.facts;
    if (facts) frameHome(camera, facts.bounds, this.framingUp(), width / height);
    const view = camera.getView(createCameraView());
    const background = hexToRgb(this.settings.background, [0, 0, 0]);
    return cameraFileOf(view, { width, height, background, shDegree: this.settings.shDegree, mode: this.settings.cameraMode });
  }

  destroy(): void {
    this.loads.cancel();
    if (this.held && this.held.scene.gpu !== this.shown.gpu) this.held.scene.gpu?.destroy();
    this.shown.gpu?.destroy();
    this.core.destroy();
  }
}
