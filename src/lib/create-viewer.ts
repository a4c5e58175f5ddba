/**
 * A viewer in someone else's page: `createViewer(container, options)` puts a
 * canvas in the container (sized to it, as the container is resized), opens
 * the scene the options name, and draws it while it is in view, with the
 * camera controls a viewer has (orbit, pan, zoom, fly, double-click to
 * orbit a point). It is the Viewer (src/app/viewer.ts) with what needs the
 * DOM: the canvas, the frame loop (frame-loop.ts), the controls
 * (camera-input.ts), scenes loaded in a worker and the CPU sort in
 * another. Every viewer of a page that brings no device of its own shares
 * one (shared-device.ts), and its compiled pipelines.
 *
 * destroy() frees what the viewer made: its GPU buffers and textures, its
 * workers, its observers, and every listener it added.
 */
import { createNanoEvents, type Unsubscribe } from 'nanoevents';
import { Viewer, type AnyViewer } from '../app/viewer';
import type { FrameReport } from '../app/frame/frame-engine';
import type { LoadOutcome } from '../app/session/scene-loads';
import type { ViewerState } from '../app/session/viewer-state';
import { createCameraView, type CameraView } from '../app/camera/orbit-camera';
import { worldAtUrlInWorkers } from '../app/world/world-opening-web';
import type { FrameRenderer, RendererSetting, SplatOrder } from '../render/frame-renderer';
import type { LoadProgressReport } from '../io/splat-loader';
import { SplatLoader } from '../io/splat-loader';
import { lastPathSegment } from '../io/path-name';
import { CpuOrderClient } from '../sort/cpu-order-client';
import { CameraInput } from './camera-input';
import { encodePng } from './capture';
import { FrameLoop } from './frame-loop';
import { hostMemoryBytes, sharedGpuContext } from './shared-device';

/** What a viewer opens: an address, a file, the files of one scene (a SOG meta.json with its images), or a file's bytes. */
export type SceneInput = string | URL | File | File[] | ArrayBuffer;

/** The settings a page sets; each one left out keeps the viewer's default. */
export interface ViewerSettingsInput {
  /** 'auto' (the faster on this device, timed), 'quads' or 'tiles'. */
  renderer?: RendererSetting;
  /** 'centre-depth', or 'per-pixel' (no popping; drawn by tiles). */
  order?: SplatOrder;
  /** The sort's key width: 'auto', or 16, 24 or 32 bits. */
  keyBits?: 'auto' | 16 | 24 | 32;
  /** The most splats a world draws a frame: 'auto' (4M, 1M on small GPUs) or a number. */
  budget?: 'auto' | number;
  /** The background, as #rrggbb. */
  background?: string;
}

export interface CreateViewerOptions {
  /** The scene to open first. */
  src?: SceneInput;
  /** Its name in messages (default: the file's or the address's last part). */
  name?: string;
  settings?: ViewerSettingsInput;
  /** A device of the page's own to draw with (default: the page's shared one). */
  device?: GPUDevice;
  /** The camera controls (drag, wheel, keys, double-click); default true. Off, the camera moves only as the page sets it. */
  controls?: boolean;
}

/** A camera pose: where the eye is, what it looks at, which way is up, and the vertical field of view. */
export type CameraPose = CameraView;

/** The events of a viewer, and what each listener is given. */
export interface SplatViewerEvents {
  /** A load's progress. */
  loadprogress: (progress: LoadProgressReport) => void;
  /** A scene opened (its name). */
  loaded: (name: string) => void;
  /** A scene could not be opened (its name, and why). */
  error: (failure: { name: string; reason: string }) => void;
  /** The camera moved (the controls, a pose set, a scene framed). */
  camerachange: () => void;
  /** A frame was drawn: what it did. */
  frame: (report: FrameReport) => void;
  /** The renderer drawing the frames changed (auto chose, or the setting did). */
  rendererchange: (renderer: FrameRenderer) => void;
}

export interface SplatViewer {
  /** The viewer's state: the scene, the load, the last frame's figures (read-only; updated in place). */
  readonly state: Readonly<ViewerState>;
  /** The canvas the viewer draws into (inside the container). */
  readonly canvas: HTMLCanvasElement;
  /** Opens a scene in place of the one shown, which stays until the new one can be drawn. */
  load(source: SceneInput, options?: { name?: string }): Promise<LoadOutcome>;
  /** Cancels the load in progress: the scene before it stays. */
  cancel(): void;
  /**
   * The camera: its pose now, a pose to show at once, and a pose to move
   * to over `seconds` (eased; resolves on arrival, or when another move,
   * the controls or destroy() take over).
   */
  readonly camera: { get(): CameraPose; set(pose: CameraPose): void; flyTo(pose: CameraPose, options?: { seconds?: number }): Promise<void> };
  /** Fits the scene into the view from where the camera looks now. */
  frameScene(): void;
  /** Back to the view the scene opened with. */
  resetCamera(): void;
  /** Changes settings from the next frame on. */
  setSettings(settings: ViewerSettingsInput): void;
  /** The scene on screen as a file of a writable format ('ply', 'splat', 'spz', 'glb'), named after the scene; throws while a scene loads or without one. */
  save(format: string): Promise<{ name: string; blob: Blob; splats: number }>;
  /** The view drawn again at width × height (default: the canvas's), as a PNG. */
  capture(size?: { width: number; height: number }): Promise<Blob>;
  on<E extends keyof SplatViewerEvents>(event: E, listener: SplatViewerEvents[E]): Unsubscribe;
  /** Frees everything the viewer made; a load in flight is cancelled. The viewer cannot be used after. */
  destroy(): void;
}

/** Makes a viewer in `container` (which it fills), opening `options.src` if given. */
export async function createViewer(container: HTMLElement, options: CreateViewerOptions = {}): Promise<SplatViewer> {
  const device = options.device ?? (await sharedGpuContext()).device;
  const format = navigator.gpu.getPreferredCanvasFormat();
  const loader = new SplatLoader();
  const viewer = await Viewer.create<File[] | string>(device, format, {
    load: (source, o) => loader.load(source, o),
    openWorld: worldAtUrlInWorkers,
    cpuSort: () => new CpuOrderClient(),
    hostMemoryBytes: hostMemoryBytes(),
  });
  const embedded = new EmbeddedViewer(container, viewer, loader, format, options.controls ?? true);
  embedded.setSettings(options.settings ?? {});
  if (options.src !== undefined) void embedded.load(options.src, { name: options.name });
  return embedded;
}

class EmbeddedViewer implements SplatViewer {
  readonly canvas: HTMLCanvasElement;
  private readonly events = createNanoEvents<SplatViewerEvents>();
  private readonly loop: FrameLoop;
  private readonly input: CameraInput | null;
  private readonly sizes: ResizeObserver;
  private readonly unbind: Unsubscribe[];
  private renderer: FrameRenderer | null = null;
  private destroyed = false;
  /** A move of the camera under way (camera.flyTo), its start set by the first frame after it was asked for. */
  private flight: { from: CameraPose; to: CameraPose; seconds: number; start: number; arrived: () => void } | null = null;

  constructor(
    private readonly container: HTMLElement,
    private readonly viewer: Viewer<File[] | string>,
    private readonly loader: SplatLoader,
    format: GPUTextureFormat,
    controls: boolean,
  ) {
    const canvas = (this.canvas = document.createElement('canvas'));
    canvas.className = 'splatsort-canvas';
    canvas.tabIndex = 0;
    canvas.setAttribute('aria-label', 'Splat scene');
    Object.assign(canvas.style, { display: 'block', width: '100%', height: '100%', outline: 'none' });
    container.append(canvas);
    const context = canvas.getContext('webgpu');
    if (!context) throw new Error('the canvas has no WebGPU context');
    context.configure({ device: viewer.core.device, format, alphaMode: 'opaque' });
    this.loop = new FrameLoop(viewer as AnyViewer, canvas, context, { drawn: (report, now) => this.drawn(report, now) });
    this.input = controls
      ? new CameraInput(canvas, viewer.camera, {
        fly: viewer.rig.fly,
        bounds: () => viewer.state.scene?.bounds,
        keys: canvas,
        onChange: () => {
          this.land();
          viewer.cameraMoved();
        },
        onPick: (x, y) => void viewer.pick(x, y),
      })
      : null;
    this.sizes = new ResizeObserver(() => this.resized());
    this.sizes.observe(container);
    this.resized();
    const events = this.events;
    this.unbind = [
      viewer.on('progress', (p) => events.emit('loadprogress', p)),
      viewer.on('opened', (opened) => events.emit('loaded', opened.name)),
      viewer.on('failed', (failure) => events.emit('error', failure)),
      viewer.on('camera', () => events.emit('camerachange')),
    ];
  }

  get state(): Readonly<ViewerState> {
    return this.viewer.state;
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

  load(source: SceneInput, options: { name?: string } = {}): Promise<LoadOutcome> {
    const { opened, name } = sourceOf(source);
    return this.viewer.open(opened, { name: options.name ?? name });
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

  setSettings(settings: ViewerSettingsInput): void {
    const s = this.viewer.settings;
    if (settings.renderer !== undefined) s.renderer = settings.renderer;
    if (settings.order !== undefined) s.order = settings.order;
    if (settings.keyBits !== undefined) s.keyBits = settings.keyBits;
    if (settings.background !== undefined) s.background = settings.background;
    if (settings.budget !== undefined) {
      s.worldBudget = settings.budget;
      this.viewer.worldBudgetChanged();
    }
  }

  async save(format: string): Promise<{ name: string; blob: Blob; splats: number }> {
    const saved = await this.viewer.saveScene(format, { keep: 'all' });
    return { name: saved.name, blob: new Blob([saved.bytes as Uint8Array<ArrayBuffer>]), splats: saved.splats };
  }

  async capture(size?: { width: number; height: number }): Promise<Blob> {
    const width = size?.width ?? this.canvas.width;
    const height = size?.height ?? this.canvas.height;
    return encodePng(await this.viewer.capture(width, height), width, height);
  }

  on<E extends keyof SplatViewerEvents>(event: E, listener: SplatViewerEvents[E]): Unsubscribe {
    return this.events.on(event, listener);
  }

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.land();
    this.loop.stop();
    this.sizes.disconnect();
    this.input?.dispose();
    for (const unbind of this.unbind) unbind();
    this.events.events = {};
    this.viewer.destroy();
    this.loader.dispose();
    this.canvas.remove();
  }

  private drawn(report: FrameReport, now: number): void {
    this.fly(now);
    this.events.emit('frame', report);
    const renderer = report.renderer.renderer;
    if (renderer !== this.renderer) {
      this.renderer = renderer;
      this.events.emit('rendererchange', renderer);
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

  /** The container's size: the picture in device pixels, the framing in CSS pixels. */
  private resized(): void {
    const { clientWidth, clientHeight } = this.container;
    const ratio = window.devicePixelRatio || 1;
    this.viewer.setWindow(clientWidth, clientHeight);
    this.loop.resize(Math.round(clientWidth * ratio), Math.round(clientHeight * ratio));
  }
}

/** What the Viewer opens for a scene input, and its name. */
function sourceOf(source: SceneInput): { opened: File[] | string; name: string } {
  if (typeof source === 'string' || source instanceof URL) {
    const url = String(source);
    return { opened: url, name: lastPathSegment(url) || url };
  }
  if (source instanceof ArrayBuffer) return { opened: [new File([source], 'scene')], name: 'scene' };
  const files = Array.isArray(source) ? source : [source];
  return { opened: files, name: files[0]?.name ?? 'scene' };
}
