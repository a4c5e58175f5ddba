/**
 * The viewer without its page: one scene session. It opens scenes and
 * worlds (session/scene-openings.ts: one load at a time, the newest wins),
 * shows the part of a file loaded so far in place of the scene before, and
 * then the whole scene, or, when the load fails or is cancelled, that scene
 * again as it was: its GPU data, camera, framing, up axis and panel rows,
 * kept aside as one snapshot. It frames each new scene, chooses its up
 * axis, picks points, and draws frames (FrameEngine) on screen or
 * offscreen.
 *
 * DOM-free: the page (src/ui/viewer-page.ts) is one view of it, the render
 * command, the benchmarks and the browser tests' hook drive the same class.
 * It publishes a state snapshot and events (src/app/session/viewer-state.ts) and
 * never calls its views. How a source is loaded is handed in: a worker in
 * the browser, the file system in Node.
 */
import { createNanoEvents, type Unsubscribe } from 'nanoevents';
import { FrameEngine, type FrameReport } from './frame/frame-engine';
import { CameraRig } from './camera/camera-rig';
import type { LoadOutcome } from './session/scene-loads';
import { SceneOpenings, type OpenOptions, type SceneLoader, type WorldOpener } from './session/scene-openings';
import { SceneSession } from './session/scene-session';
import { ViewerFrames } from './session/viewer-frames';
import { goHome, homeCameraFile, homeView, insetsOfFreeRect } from './camera/framing';
import { upAxisOf } from './camera/up-axis';
import type { CameraFile } from './camera/camera-file';
import { OrbitCamera, type CameraView } from './camera/orbit-camera';
import { lensShiftOf, NO_INSETS } from './camera/view-insets';
import { pickPoint } from './camera/pick-point';
import { createViewerState, type FreeRect, type ViewerEvents, type ViewerState } from './session/viewer-state';
import { DEFAULT_SETTINGS, hexToRgb, type ViewerSettings } from './session/viewer-settings';
import type { OffscreenPicture } from './frame/offscreen-render';
import type { SplatFrameOptions } from './frame/splat-frame';
import type { LoadLimits } from '../io/load-limits';
import { deviceLoadLimits } from '../render/renderer-limits';
import { SyncCpuOrder, type CpuOrderSource } from '../sort/cpu-order-source';
import { saveSplats, type SavedSplats, type ViewSelection } from './session/splat-selection';
import { savedSceneName, writableFormat } from '../io/formats/save-formats';
import { saveLosses, WORLD_NOT_SAVED } from '../io/formats/save-losses';
import type { SplatCloud } from '../scene/splat-cloud';
import type { FrameCamera } from '../render/frame-uniforms';
import type { WorldSession } from './world/world-session';
import { worldOptionsFor } from './world/world-options';
import type { WorldOpening } from './world/world-opening';

export type { OpenOptions, SceneLoader, WorldOpener } from './session/scene-openings';

export interface ViewerOptions<S> {
  load: SceneLoader<S>;
  /** How a world is opened (none: the viewer opens scenes only). */
  openWorld?: WorldOpener<S>;
  /** The CPU sort of the CPU sort modes (default: a synchronous one). */
  cpuSort?: () => CpuOrderSource;
  /** Passed to the frame (e.g. its accumulation target). */
  frame?: SplatFrameOptions;
  /** What a scene may cost (default: what this device's buffers hold and hostMemoryBytes lets a load hold). */
  limits?: LoadLimits;
  /**
   * The machine's memory in bytes (navigator.deviceMemory in the browser,
   * os.totalmem() in Node), which bounds what a load may hold; default
   * DEFAULT_HOST_MEMORY_BYTES.
   */
  hostMemoryBytes?: number;
}

/** A Viewer whatever it opens: for views that never open a source themselves. */
export type AnyViewer = Viewer<never>;

export class Viewer<S> {
  readonly settings: ViewerSettings = { ...DEFAULT_SETTINGS };
  readonly rig = new CameraRig();
  readonly state: ViewerState = createViewerState(() => this.rig.fly.speed);
  readonly limits: LoadLimits;
  private readonly events = createNanoEvents<ViewerEvents>();
  private readonly openings: SceneOpenings<S>;
  private readonly session: SceneSession;
  private readonly frames: ViewerFrames;
  /** The window's size in CSS pixels (framing, picks). */
  private readonly window = { width: 1, height: 1 };
  static async create<S>(device: GPUDevice, format: GPUTextureFormat, options: ViewerOptions<S>): Promise<Viewer<S>> {
    const core = await FrameEngine.create(device, format, options.cpuSort ?? (() => new SyncCpuOrder()), options.frame);
    return new Viewer(core, format, options);
  }

  private constructor(readonly core: FrameEngine, readonly format: GPUTextureFormat, options: ViewerOptions<S>) {
    this.limits = options.limits ?? deviceLoadLimits(core.device, options.hostMemoryBytes);
    this.session = new SceneSession(core, this.rig, this.settings, this.state, this.events);
    this.openings = new SceneOpenings(core.device, options.load, options.openWorld, this.limits, this.session, this.settings, this.state, this.events);
    this.frames = new ViewerFrames(core, format, this.settings, this.state, this.events, () => this.state.scene?.antiAliasing, () => this.session.shownWorld);
    core.reads.onTimings = (times) => this.events.emit('timings', times);
    core.reads.onDifference = (m, view) => {
      // Published at once, not at the next frame: on a slow adapter that is seconds later. A count of a view left since is stale.
      if (view !== this.settings.view) return;
      this.state.difference = m;
      this.events.emit('difference', m);
    };
  }

  on<E extends keyof ViewerEvents>(event: E, listener: ViewerEvents[E]): Unsubscribe {
    return this.events.on(event, listener);
  }

  /** The world on screen, if one is (null: a scene, or nothing). */
  get world(): WorldSession | null {
    return this.session.shownWorld;
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
  open(source: S, options: OpenOptions): Promise<LoadOutcome> {
    return this.openings.open(source, options);
  }

  /** Cancels the load in progress, if any: the scene before it comes back. */
  cancel(): void {
    this.openings.cancel();
  }

  /**
   * A world in place of what is on screen once its index is read: framed
   * on its box, its chunks streamed as the camera needs them, under the
   * budget setting. Resolves to what became of the opening.
   */
  openWorld(opening: WorldOpening, options: OpenOptions): Promise<LoadOutcome> {
    return this.openings.openWorld(opening, options);
  }

  /** Reports that `name` could not be opened (a load's failure, or a source refused before any load). */
  fail(name: string, error: unknown): void {
    this.openings.fail(name, error);
  }

  /** The world budget setting changed: the world on screen draws under the new one from the next frame. */
  worldBudgetChanged(): void {
    this.session.shownWorld?.setBudget(worldOptionsFor(this.core.device, this.settings.worldBudget).budget);
  }

  /** Makes what the sort difference view needs; frames show the picture until it is done. */
  prepareDifferenceView(): Promise<void> {
    return this.core.frame.prepareDifferenceView();
  }

  /**
   * The window the scene is shown in (CSS pixels), and the part of it no
   * overlay covers (CSS pixels from its top left corner; the whole window
   * by default): the scene is framed in that part, centred in it. When
   * either changes, the view follows (CameraRig.refit).
   */
  setWindow(width: number, height: number, free?: FreeRect): void {
    const w = (this.window.width = Math.max(1, width));
    const h = (this.window.height = Math.max(1, height));
    const insets = insetsOfFreeRect(w, h, free);
    this.state.freeRect = free ? { ...free } : { x: 0, y: 0, width: w, height: h };
    const facts = this.state.scene;
    if (this.rig.setWindow(w, h, insets) && facts) {
      this.rig.refit(facts.bounds, this.session.framingUp());
      this.events.emit('camera');
    }
  }

  /** The controls moved the camera: a scene that grows leaves the view alone from now on. */
  cameraMoved(): void {
    this.rig.moved = true;
    this.showUpAxis();
  }

  /** Back to the view the scene opened with (R). */
  resetCamera(): void {
    goHome(this.camera);
    this.showUpAxis();
    this.events.emit('camera');
  }

  /** Fits the scene into the window from where the camera looks now (F); the home view stays. */
  frameScene(): void {
    this.rig.frameFromHere(this.state.scene?.bounds);
    this.events.emit('camera');
  }

  /** The up axis chosen in the panel (settings.upAxis): the scene framed anew with it. */
  upAxisChosen(): void {
    const axis = this.settings.upAxis;
    if (axis === 'levelled') return; // the level action sets it
    this.session.setUp({ axis, source: 'chosen in the panel', why: undefined, unsure: false });
    const facts = this.state.scene;
    if (facts) this.rig.frameHome(facts.bounds, axis);
    this.events.emit('camera');
  }

  /** Makes what is up on screen the scene's up (a scene captured at a slant). */
  level(): void {
    this.camera.level();
    this.rig.moved = true;
    this.session.setUp({ axis: upAxisOf(this.camera.up) ?? 'levelled', source: 'levelled from a view', why: undefined, unsure: false });
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
    if (this.settings.upAxis !== axis) this.session.setUp({ ...this.state.up, axis });
  }

  /**
   * Orbits the splat surface under (x, y), CSS pixels from the window's
   * corner, as the last frame showed it; says so where there is none.
   */
  pick(x: number, y: number): [number, number, number] | null {
    const params = this.frames.last;
    const cloud = this.session.pickCloud;
    if (!cloud || this.state.frames === 0) return null;
    const scaleX = params.width / this.window.width, scaleY = params.height / this.window.height;
    const found = pickPoint(cloud, { ...params, shiftNdc: params.projection[8]!, shiftNdcY: params.projection[9]! }, x * scaleX, y * scaleY);
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
    const report = this.frames.draw(this.rig.shown, target, width, height);
    this.rig.shown.getView(this.state.view);
    Object.assign(this.state.insets, this.rig.shown.insets);
    return report;
  }

  /**
   * Draws the scene from `camera` (a camera file: its size, view and
   * look) offscreen, with the settings as they are, and reads it back.
   * The render command, the benchmarks and the tests draw this way.
   */
  render(camera: CameraFile): Promise<OffscreenPicture> {
    return this.frames.render(camera);
  }

  /**
   * For a world on screen: chooses for `camera` until everything it asks
   * for has arrived (or failed, or finds no room), so that a picture
   * rendered next is as fine as the budget allows. Nothing to do for a scene.
   */
  async settleWorld(camera: CameraFile, signal?: AbortSignal): Promise<void> {
    const world = this.session.shownWorld;
    if (!world) return;
    for (;;) {
      world.updateCamera(camera);
      if (world.settled) return;
      signal?.throwIfAborted();
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
  }

  /**
   * The view on screen drawn again at width × height (a screenshot), as
   * RGBA rows: framed as the screen frames it (the lens shift that centres
   * the part the overlays leave free), or, for 'scene', from the same
   * camera with the view axis through the picture's centre, as if nothing
   * covered the window.
   */
  capture(width: number, height: number, framing: 'scene' | 'screen' = 'scene'): Promise<Uint8Array> {
    if (framing === 'screen') return this.frames.capture(this.rig.shown, width, height);
    const centred = new OrbitCamera().copy(this.rig.shown);
    centred.setInsets(NO_INSETS);
    return this.frames.capture(centred, width, height);
  }

  /** The lens shift the controls' camera frames with now (view-insets.ts): what a camera file of the screen keeps. */
  lensShift(): [number, number] {
    return lensShiftOf(this.camera.insets);
  }

  /** The view R (reset) goes to now: the home pose, framed in the part of the window the overlays leave free. */
  homeView(): CameraView {
    return homeView(this.camera);
  }

  /** The camera file of the scene's home view at width × height, as the viewer opens it without overlays. */
  homeCamera(width: number, height: number): CameraFile {
    const background = hexToRgb(this.settings.background, [0, 0, 0]);
    const look = { width, height, background, shDegree: this.settings.shDegree, mode: this.settings.cameraMode };
    return homeCameraFile(this.camera, this.state.scene?.bounds, this.session.framingUp(), look);
  }

  /** The camera and look of the last frame drawn (its matrices include the lens shift the overlays ask for): what "in view" saves. */
  get lastFrame(): Readonly<FrameCamera> {
    return this.frames.last;
  }

  /**
   * The scene on screen as a file of the format `formatId` (a writable
   * one: save-formats.ts), named after the scene, holding the splats
   * `selection` keeps: all, those in the view last drawn, or those in a box.
   * Throws, saying why, while a scene loads, without one (a world
   * included), or when the selection keeps none.
   */
  async saveScene(formatId: string, selection: ViewSelection): Promise<SavedSplats & { name: string }> {
    const format = writableFormat(formatId);
    const cloud = this.savedCloud();
    if (selection.keep === 'in-view' && this.state.frames === 0) throw new Error('No view has been drawn yet');
    const saved = await saveSplats(cloud, format, selection.keep === 'in-view' ? { keep: 'in-view', frame: this.frames.last } : selection);
    return { ...saved, name: savedSceneName(this.state.sceneName, format) };
  }

  /** What saving the scene on screen as `formatId` would lose (save-losses.ts); throws as saveScene does when there is nothing to save. */
  saveLosses(formatId: string): string[] {
    return saveLosses(this.savedCloud(), writableFormat(formatId));
  }

  /** The scene a save writes; throws, saying why, when there is none. */
  private savedCloud(): SplatCloud {
    if (this.state.loading) throw new Error('A scene is loading: save once it has opened');
    if (this.session.shownWorld) throw new Error(WORLD_NOT_SAVED);
    const cloud = this.openings.openedCloud;
    if (!cloud) throw new Error('There is no scene to save');
    return cloud;
  }

  destroy(): void {
    this.openings.openedCloud = null;
    this.openings.cancel();
    this.session.destroy();
    this.core.destroy();
  }
}
