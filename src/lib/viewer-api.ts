/**
 * What a page gets from `createViewer`: the viewer's methods, its events
 * and the options it is made with. Types only; embedded-viewer.ts is the
 * viewer behind them.
 */
import type { Unsubscribe } from 'nanoevents';
import type {
  CameraPose, FrameRenderer, FrameReport, GpuFacts, GpuTimes, HeatMapCount, LoadOutcome, LoadProgress, SaveSelection, SavedScene, SplatOrder,
  SceneFacts, ScreenFilter, ScreenFilterInUse, UpAxis, UpChoice, ViewerMessage, ViewerSettings, ViewerState,
} from './public-types';
import type { SavedView, SplatViews } from './views-api';

export type { Unsubscribe } from 'nanoevents';

/**
 * What a viewer opens: an address (absolute, or relative to the page), a
 * file, the files of one scene (a SOG meta.json with its images), a file's
 * bytes, or what was dropped on the page (a drop event's `dataTransfer`:
 * its files, or a folder, which may hold a Streamed SOG world).
 */
export type SceneInput = string | URL | File | File[] | ArrayBuffer | DataTransfer;

/** Settings to change; each one left out stays as it is. */
export type ViewerSettingsInput = Partial<ViewerSettings>;

/** How a scene is opened. */
export interface LoadOptions {
  /** Its name in messages (default: the file's, or the address's last part). */
  name?: string;
  /** The view to show it from (default: framed from a little above, its bulk filling the free part of the canvas). */
  camera?: CameraPose | null;
  /** Which way is up where the page knows it, and how to name where that came from (default: guessed from the splats, else −y). */
  up?: { axis: UpAxis; source: string; why: string | undefined };
  /**
   * This scene stands in for one that failed (a page's default scene for
   * a link that could not be opened): the failure's message may stay up
   * (the `loaded` event says so); state.lastError clears all the same.
   */
  keepError?: boolean;
}

export interface CreateViewerOptions {
  /** The scene to open first (with `ui`, the page's link `?url=` names another to open instead, this one standing in if it fails). */
  src?: SceneInput;
  /** Its name in messages (default: the file's or the address's last part). */
  name?: string;
  /** Which way is up in `src`, where the page knows it (default: guessed from the splats, else −y). */
  up?: LoadOptions['up'];
  settings?: ViewerSettingsInput;
  /** A device of the page's own to draw with (default: the page's shared one). */
  device?: GPUDevice;
  /** The camera controls (drag, wheel, keys, double-click); default true. Off, the camera moves only as the page sets it. */
  controls?: boolean;
  /**
   * Where the controls' keys are heard: 'canvas' (while it has the
   * focus; the default without `ui`), or 'page' (anywhere on the page but
   * in a text field: a page that is the viewer; the default with `ui`).
   */
  keys?: 'canvas' | 'page';
  /**
   * The page's panel: settings, stats, help, messages, drag and drop and
   * the view kept in the address bar, loaded when asked for (a module of
   * its own). It takes over the container's element and the window's keys:
   * for a page that is the viewer.
   */
  ui?: boolean;
}

/** The events of a viewer, and what each listener is given. */
export interface SplatViewerEvents {
  /** A load started (its name). */
  loadstart: (name: string) => void;
  /** A load's progress. */
  loadprogress: (progress: LoadProgress) => void;
  /** The load in progress ended, unless a later one replaced it. */
  loadend: (outcome: LoadOutcome) => void;
  /** A scene opened: its name, the warnings about it, and whether it stands in for a load that failed (`LoadOptions.keepError`). */
  loaded: (name: string, details: { warnings: readonly string[]; keepError: boolean }) => void;
  /** A scene could not be opened (its name, and why). */
  error: (failure: { name: string; reason: string }) => void;
  /** The scene on screen changed: one opened, the part of one loading grew ('preview'), or the one before a load that did not complete came back. */
  scenechange: (scene: SceneFacts | null, how: 'opened' | 'preview' | 'restored') => void;
  /** The scene's up axis, or where it came from, changed. */
  upchange: (up: UpChoice) => void;
  /** The camera moved (the controls, a pose set, a scene framed, auto-rotate). */
  camerachange: () => void;
  /** Settings changed: by setSettings, or by the viewer itself (a scene's up axis and SH degree, the camera mode a camera file names). */
  settingschange: (changed: readonly (keyof ViewerSettings)[]) => void;
  /** Something to tell the person looking (nothing to orbit where they double-clicked). */
  message: (message: ViewerMessage) => void;
  /** The named views changed: one added, removed or moved, a file opened, the view last gone to, a tour started or ended (viewer.views). */
  viewschange: (views: readonly SavedView[]) => void;
  /** A frame is about to be recorded. */
  beforeframe: () => void;
  /** A frame was drawn: what it did, and its animation frame's time (ms). */
  frame: (report: FrameReport, time: number) => void;
  /** The renderer drawing the frames changed (auto chose, or the setting did). */
  rendererchange: (renderer: FrameRenderer) => void;
  /** The order the pixels are blended in changed (auto chose, or the setting did): state.orderChoice says why. */
  orderchange: (order: SplatOrder) => void;
  /** GPU times of a frame's passes (not every frame's). */
  gputimes: (times: GpuTimes) => void;
  /** The heat map view on screen (settings.view) counted its pixels. */
  heatmapcount: (count: HeatMapCount) => void;
  /** The first frame with a scene is done. */
  ready: () => void;
  /** WebGPU reported an error (the first 20), or the device was lost (`lost`: the viewer draws no more). */
  gpuerror: (error: { message: string; lost: boolean }) => void;
}

/**
 * How a picture of the view is framed. 'scene': from the camera on screen
 * with its view centred in the picture, as if nothing covered the canvas
 * (the scene where the canvas's middle is, not beside the panel).
 * 'screen': as the canvas shows it, the view centred in the part of the
 * canvas that the panel and other overlays (setOverlays) leave free.
 */
export type CaptureFraming = 'scene' | 'screen';

/** What capture and capturePixels draw. */
export interface CaptureOptions {
  /** The picture's width in pixels (default: the canvas's). */
  width?: number;
  /** The picture's height in pixels (default: the canvas's). */
  height?: number;
  /** How the picture is framed (default 'scene'). */
  framing?: CaptureFraming;
}

/** The camera of the last frame drawn: its matrices (column-major; the projection with the lens shift that frames the free part of the canvas). */
export interface DrawnCamera {
  view: ArrayLike<number>;
  projection: ArrayLike<number>;
  eye: ArrayLike<number>;
  /** Vertical field of view, radians. */
  fovY: number;
  /** Device pixels. */
  width: number;
  height: number;
  /** The SH bands drawn and the splats' scale. */
  shDegree: number;
  splatScale: number;
  /** The screen filter drawn with (the reference's 0.3 px² without one). */
  screenFilter?: ScreenFilter;
}

/** What a scene may cost here (the GPU's buffers, the machine's memory). */
export interface LoadLimits {
  /** The most splats of SH degree 0, 1, 2 and 3 a scene may have. */
  maxSplats: readonly [number, number, number, number];
  /** The most bytes held for one file, or one stream decompressed from it. */
  maxBytes: number;
  /** Where the machine's memory bounds a load: its memory, the bytes a load may hold of it, and the splats those allow. */
  memory?: { hostBytes: number; budgetBytes: number; maxSplats: readonly [number, number, number, number] };
}

export interface SplatViewer {
  /** The viewer's state: the scene, the load, the last frame's figures (read-only; updated in place). */
  readonly state: Readonly<ViewerState>;
  /** The settings in force (read-only: change them with setSettings). */
  readonly settings: Readonly<ViewerSettings>;
  /** The canvas the viewer draws into (inside the container). */
  readonly canvas: HTMLCanvasElement;
  /** The GPU device it draws with. */
  readonly device: GPUDevice;
  /** The GPU, as the viewer knows it. */
  readonly gpu: GpuFacts;
  /** What a scene may cost here. */
  readonly limits: LoadLimits;
  /** Whether what the heat map view asked for (settings.view) is made; until then frames show the picture. */
  readonly heatMapReady: boolean;
  /** The screen filter the frames are drawn with (settings.antiAliasing, and for 'auto' what the scene's file says). */
  readonly screenFilter: ScreenFilterInUse;
  /** The camera of the last frame drawn. */
  readonly lastFrame: DrawnCamera;
  /** Opens a scene in place of the one shown, which stays until the new one can be drawn. */
  load(source: SceneInput, options?: LoadOptions): Promise<LoadOutcome>;
  /** Cancels the load in progress: the scene before it stays. */
  cancel(): void;
  /**
   * The camera: its pose now, a pose to show at once, and a pose to move
   * to over `seconds` (eased; resolves on arrival, or when another move,
   * the controls or destroy() take over).
   */
  readonly camera: { get(): CameraPose; set(pose: CameraPose): void; flyTo(pose: CameraPose, options?: { seconds?: number }): Promise<void> };
  /** Named views, their pins, a tour of them and the views file (views-api.ts). */
  readonly views: SplatViews;
  /** Fits the scene into the view from where the camera looks now. */
  frameScene(): void;
  /** Back to the view the scene opened with. */
  resetCamera(): void;
  /** The pose resetCamera goes to now. */
  homeView(): CameraPose;
  /** Makes what is up on screen the scene's up (a scene captured at a slant); settings.upAxis becomes 'levelled'. */
  level(): void;
  /** Turns the scene upside down: the up axis to its opposite, the scene framed anew (the I key). */
  flipUp(): void;
  /** Changes settings from the next frame on (an unknown value throws, saying which). */
  setSettings(settings: ViewerSettingsInput): void;
  /**
   * Elements of the page drawn over the canvas (a panel, a legend): the
   * scene is framed in the largest part of the canvas they leave
   * uncovered, measured again whenever one of them or the canvas changes
   * size. A hidden element covers nothing. Replaces those set before.
   */
  setOverlays(elements: readonly Element[]): void;
  /**
   * The scene on screen as a file of a writable format (SAVE_FORMATS),
   * named after the scene, holding the splats `selection` keeps (default:
   * all); throws, saying why, while a scene loads, without one, or when
   * the selection keeps none.
   */
  save(format: string, selection?: SaveSelection): Promise<SavedScene>;
  /**
   * What saving the scene on screen as `format` would lose beyond the
   * format's precision (SaveFormat.keeps), one sentence each, to say before
   * saving: SH bands the format does not store, an anti-aliasing filter it
   * cannot record, sizes past its range. Empty when nothing. Throws as
   * `save` does when there is nothing to save (a world among them).
   */
  saveLosses(format: string): string[];
  /**
   * The view drawn again at `options.width` × `options.height` (default:
   * the canvas's), as a PNG: framed on the scene (the view centred, as if
   * nothing covered the canvas) unless `options.framing` is 'screen'.
   * Throws a RangeError for a size that is not a whole number of pixels
   * from 1 to 8192.
   */
  capture(options?: CaptureOptions): Promise<Blob>;
  /** As capture, as RGBA rows, top row first. */
  capturePixels(options?: CaptureOptions): Promise<{ width: number; height: number; rgba: Uint8Array }>;
  /**
   * The view as a camera file (JSON: the canvas's size, the pose, the
   * background, SH degree, camera mode and lens shift), which
   * applyCameraFile and the render command read. Its lens shift is the
   * screen's (the render command then draws what the canvas shows, as
   * capture with framing 'screen'), or none with `options.framing` 'scene'.
   */
  cameraFile(options?: { framing?: CaptureFraming }): string;
  /** Shows a camera file's view, background, SH degree and camera mode (its lens shift is the render command's: the canvas keeps framing beside its overlays); throws, saying what is wrong, for a file that is not one. */
  applyCameraFile(text: string): void;
  /** Writes the view into an address's query (the camera, its mode, a renderer and order other than the defaults, and the named views: the address they came from, or themselves while few), as readViewLink and views.openLink read it. */
  writeViewLink(params: URLSearchParams): void;
  on<E extends keyof SplatViewerEvents>(event: E, listener: SplatViewerEvents[E]): Unsubscribe;
  /** Whether the viewer page's panel is shown (`ui: true`, or setUi). */
  readonly ui: boolean;
  /**
   * Shows or hides the viewer page's panel (settings, stats, help,
   * messages, drag and drop). The first time it is shown it is loaded (a
   * chunk of its own) and mounted on the viewer's container, as `ui: true`
   * does but opening no scene; hidden, it stays made (the U key shows it
   * again). destroy() frees it.
   */
  setUi(shown: boolean): Promise<void>;
  /** Frees everything the viewer made, its panel included; a load in flight is cancelled. The viewer cannot be used after. */
  destroy(): void;
}
