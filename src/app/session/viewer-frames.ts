/**
 * How the Viewer draws: a frame on screen from the drawn camera, a picture
 * offscreen from a camera file (the render command, the benchmarks), or
 * the view on screen again at another size (a screenshot), each with the
 * settings as they are; and what each frame publishes into the Viewer's
 * state. DOM-free. The frame on screen allocates nothing once warm.
 */
import { vec3 } from 'gl-matrix';
import type { FrameEngine, FrameReport } from '../frame/frame-engine';
import type { OrbitCamera } from '../camera/orbit-camera';
import { cameraMatrices, type CameraFile } from '../camera/camera-file';
import { drawOffscreen, type OffscreenPicture } from '../frame/offscreen-render';
import { hexToRgb, type ViewerSettings } from './viewer-settings';
import type { Emitter } from 'nanoevents';
import type { ViewerEvents, ViewerState } from './viewer-state';
import { copyFrameCamera, createFrameCamera, type FrameCamera } from '../../render/frame-uniforms';
import { FRAME_RENDERERS } from '../../render/frame-renderer';
import type { WorldSession } from '../world/world-session';
import { screenFilterFor, type SceneAntiAliasing } from '../../scene/anti-aliasing';
import { AUTO_MAX_FRAMES } from '../frame/renderer-policy';
import { unbound } from '../../gpu/unbound';
import { storageWritable } from '../../render/output-target';

export class ViewerFrames {
  /** The camera and look of the last frame drawn (a pick reads the view it showed): written here alone. */
  readonly last: FrameCamera = createFrameCamera();
  /**
   * The camera and look of the picture being drawn offscreen (a screenshot,
   * the render command): its own, as frames on screen go on drawing while
   * it waits for the GPU, and a picture drawn again (drawAgain) must be the
   * same view, not the screen's.
   */
  private readonly offscreen: FrameCamera = createFrameCamera();
  /** The canvas's texture this frame; it is configured to be written by compute where its format allows (EmbeddedViewer, outputUsage). */
  private readonly target = { view: unbound<GPUTextureView>(), background: [0, 0, 0] as [number, number, number], writable: false };
  private readyPending = false;
  private cpuErrorShown = false;
  private differenceErrorShown = false;
  private painterFailureShown = false;
  /** The scene whose frames were last said to leave splats out (said once a loaded scene). */
  private noticeScene: object | null = null;

  constructor(
    private readonly core: FrameEngine,
    private readonly format: GPUTextureFormat,
    private readonly settings: ViewerSettings,
    private readonly state: ViewerState,
    private readonly events: Emitter<ViewerEvents>,
    /** What the scene on screen says of its anti-aliasing (the 'auto' setting follows it). */
    private readonly sceneAntiAliasing: () => SceneAntiAliasing | undefined,
    /** The world on screen, whose figures each frame publishes (null: a scene). */
    private readonly world: () => WorldSession | null,
  ) {
    this.target.writable = storageWritable(core.device, format);
  }

  /** Records and submits one frame of `camera` into `target` (width × height device pixels). */
  draw(camera: OrbitCamera, target: GPUTextureView, width: number, height: number): FrameReport {
    this.fromCamera(this.last, camera, width, height);
    this.target.view = target;
    hexToRgb(this.settings.background, this.target.background);
    const report = this.core.drawFrame(this.target, this.last, this.settings);
    this.publish(report);
    return report;
  }

  /**
   * The scene from a camera file (its size, view and look), offscreen, read
   * back. With the renderer on auto, drawn again until auto has timed both
   * renderers at this size and keeps one (each frame is read back, so each
   * is timed: some fifteen frames), and the picture is the kept renderer's.
   */
  async render(camera: CameraFile): Promise<OffscreenPicture> {
    const p = this.offscreen;
    cameraMatrices(camera, p.view, p.projection);
    vec3.set(p.eye, ...camera.eye);
    p.fovY = (camera.fovy_deg * Math.PI) / 180;
    this.look(p, camera.width, camera.height);
    p.shDegree = Math.min(camera.sh_degree, p.shDegree);
    const background: [number, number, number] = [...camera.background];
    let picture = await drawOffscreen(this.core, this.format, p, background, this.settings);
    for (let n = 0; measuring(picture.report) && n < 2 * AUTO_MAX_FRAMES; n++) {
      picture = await drawOffscreen(this.core, this.format, p, background, this.settings);
    }
    // The render command's picture is the last frame it drew.
    copyFrameCamera(this.last, p);
    this.publish(picture.report);
    return picture;
  }

  /** `camera`'s view drawn offscreen at width × height (a screenshot), as RGBA rows. */
  async capture(camera: OrbitCamera, width: number, height: number): Promise<Uint8Array> {
    this.fromCamera(this.offscreen, camera, width, height);
    const background = hexToRgb(this.settings.background, [0, 0, 0]);
    // With the renderer on screen: a screenshot at another size is no frame of auto's measure.
    const settings = { ...this.settings, renderer: this.core.shownRenderer };
    return (await drawOffscreen(this.core, this.format, this.offscreen, background, settings)).rgba;
  }

  private fromCamera(p: FrameCamera, camera: OrbitCamera, width: number, height: number): void {
    camera.viewMatrix(p.view);
    camera.projectionMatrix(p.projection, width / height);
    camera.eye(p.eye);
    p.fovY = camera.fovY;
    this.look(p, width, height);
  }

  /** The frame parameters that do not come from the camera. */
  private look(p: FrameCamera, width: number, height: number): void {
    const s = this.settings;
    p.width = width;
    p.height = height;
    // The engine lowers it to the bands the scene has.
    p.shDegree = s.shDegree;
    p.splatScale = s.splatScale;
    p.screenFilter = screenFilterFor(s.antiAliasing, this.sceneAntiAliasing());
  }

  /** What a frame drawn tells the state, and what it has to say once. */
  private publish(report: FrameReport): void {
    const { state, core } = this;
    state.frames = core.frames;
    state.activeSort = report.choice.label;
    state.keyBits = report.keyBits;
    const renderer = state.renderer;
    renderer.renderer = report.renderer.renderer;
    renderer.state = report.renderer.state;
    Object.assign(renderer.medianMs, report.renderer.medianMs);
    state.orderError = core.orderError;
    state.order = report.order;
    const order = state.orderChoice;
    order.order = report.orderChoice.order;
    order.state = report.orderChoice.state;
    Object.assign(order.medianMs, report.orderChoice.medianMs);
    state.difference = core.reads.differenceView === this.settings.view ? core.reads.difference : null;
    const world = this.world();
    if (world) world.describe((state.world ??= { budget: 0, drawnSplats: 0, thresholdPx: 0, chunks: 0, chunksLoaded: 0, bytesLoaded: 0, chunksReady: 0, chunksWanted: 0, inFlight: 0, gpuBytes: 0, settled: false }));
    else state.world = null;
    const cpuError = core.cpuError;
    if (cpuError && !this.cpuErrorShown) {
      this.cpuErrorShown = true;
      this.events.emit('message', { title: 'The CPU sort failed', text: `${cpuError}. Drawing with the GPU sort instead.`, tone: 'error' });
    }
    for (const renderer of FRAME_RENDERERS) {
      const failure = core.frame.painters[renderer].failure;
      if (failure && !this.painterFailureShown) {
        this.painterFailureShown = true;
        this.events.emit('message', { title: 'Drawing with quads', text: failure, tone: 'error' });
      }
    }
    const notice = core.frame.painters[report.renderer.renderer].notice;
    // Said once the load is over (a preview's scene is left to its load), once a scene.
    if (notice && core.gpuScene && !state.loading && this.noticeScene !== core.gpuScene) {
      this.noticeScene = core.gpuScene;
      this.events.emit('message', { title: 'Drawing the nearest splats', text: `${notice.charAt(0).toUpperCase()}${notice.slice(1)}.`, tone: 'notice' });
    }
    const differenceError = core.frame.viewError;
    if (differenceError && !this.differenceErrorShown) {
      this.differenceErrorShown = true;
      this.events.emit('message', { title: 'This view is not available', text: differenceError, tone: 'error' });
    }
    // A world is ready once its first chunk is drawn.
    if (core.gpuScene && !this.readyPending) {
      this.readyPending = true;
      void core.device.queue.onSubmittedWorkDone().then(() => {
        state.ready = true;
        this.events.emit('ready');
      });
    }
  }
}

/** Auto's renderer or order is still drawing its candidates in turn: a single picture waits for the choice. */
function measuring({ renderer, orderChoice }: FrameReport): boolean {
  return renderer.state === 'measuring' || orderChoice.state === 'measuring';
}
