/**
 * The data a viewer publishes and takes, as plain types: its state, its
 * settings, what a frame did, what a scene is. They name no class of the
 * viewer's insides, so a page's code (and the API reference) sees only
 * these; create-viewer.ts hands out the viewer's own objects under them,
 * and the compiler holds the two in step.
 */

/** A point or a direction in scene units: x, y, z. */
export type Vec3 = [number, number, number];

/** A camera pose: where the eye is, what it looks at, which way is up, and the vertical field of view in degrees. */
export interface CameraPose {
  eye: Vec3;
  target: Vec3;
  up: Vec3;
  fovyDeg: number;
}

/** A box in scene coordinates. */
export interface Bounds {
  min: Vec3;
  max: Vec3;
}

/** A rectangle in CSS pixels from the canvas's top left corner. */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Shares of the canvas on each side that the framing leaves out (0: none). */
export interface ViewInsets {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** A scene axis as up: the default scene has +y, captured scenes (COLMAP, INRIA trainers) −y. */
export type UpAxis = '+y' | '-y' | '+z' | '-z' | '+x' | '-x';

/** Orbit around a point, or fly through the scene (W A S D). */
export type CameraMode = 'orbit' | 'fly';

/** What sorts the splats each frame: the GPU radix sort, or a CPU sort in a worker (32-bit radix, or a 16-bit counting sort). */
export type SortMode = 'gpu' | 'cpu-radix' | 'cpu-counting16';

/** A renderer: every splat a blended quad, back to front; or a compute pass per 16×16 tile, front to back. */
export type FrameRenderer = 'quads' | 'tiles';

/** The renderer asked for, or 'auto': both timed on each new scene and canvas size, the faster kept. */
export type RendererSetting = FrameRenderer | 'auto';

/**
 * How a pixel's splats are ordered: by their centres' depth, one order for
 * the whole frame; or per pixel, by each one's own depth along the pixel's
 * ray (no popping; only tiles draw it).
 */
export type SplatOrder = 'centre-depth' | 'per-pixel';

/**
 * The order asked for, or 'auto': where tiles draw (the renderer's auto
 * measure chose them), both orders are timed and the per-pixel order kept
 * when its frame takes at most 1.10× the centre-depth one.
 */
export type OrderSetting = SplatOrder | 'auto';

/**
 * What the frames show: the picture, or a heat map of where it differs
 * from another: 'difference' against the exact order, 'pixel-order' the
 * per-pixel order against the centre-depth order.
 */
export type FrameView = 'picture' | 'difference' | 'pixel-order';

/** The screen filter asked for: as the file says (auto), the reference rasterizer's classic one (off), or anti-aliased (on). */
export type AntiAliasingSetting = 'auto' | 'off' | 'on';

/** What the viewer is asked to do: `SplatViewer.settings`, changed with `SplatViewer.setSettings`. */
export interface ViewerSettings {
  sortMode: SortMode;
  /** The sort's key width: 'auto' (the fewest bits whose ordering error stays small), or 16, 24 or 32. */
  keyBits: 'auto' | number;
  /** The highest spherical-harmonics band drawn (0–3); the scene's own degree caps it. */
  shDegree: number;
  /** Every splat's size times this. */
  splatScale: number;
  /** The background, as #rrggbb. */
  background: string;
  /** Keep drawing the last order: no keys, no sort, no uploads (the splats are still projected for the camera). */
  freezeOrder: boolean;
  /** Measure the drawn order's ordering error every frame it can (a pass each; state.orderError). */
  measureOrder: boolean;
  /** The picture or a heat map (frames show the picture until what the heat map needs is made: `SplatViewer.heatMapReady`). */
  view: FrameView;
  renderer: RendererSetting;
  order: OrderSetting;
  antiAliasing: AntiAliasingSetting;
  /** Turn the camera about its target, slowly. */
  autoRotate: boolean;
  /** The camera glides to where the controls move it, or jumps. */
  smoothCamera: boolean;
  cameraMode: CameraMode;
  /** The scene's up; 'levelled': whatever was up on screen when the view was levelled (`SplatViewer.level`). Set anew by each scene opened. */
  upAxis: UpAxis | 'levelled';
  /** The most splats a frame of a world (a Streamed SOG lod-meta.json) draws: 'auto' (4M, 1M on small GPUs) or a number. */
  worldBudget: 'auto' | number;
}

/** A screen filter: the variance added to every projected splat, and whether its opacity is scaled to keep its integral. */
export interface ScreenFilter {
  /** px², added to both axes of every projected covariance. */
  variance: number;
  /** The opacity scaled by sqrt(det before / det after). */
  compensate: boolean;
}

/** What a scene's file says of its anti-aliasing ('auto' follows it). */
export interface SceneAntiAliasing {
  filter: ScreenFilter;
  /** Where the file says so, e.g. 'SPZ flag "antialiased"'. */
  source: string;
}

/** The screen filter the frames are drawn with, and why. */
export interface ScreenFilterInUse extends ScreenFilter {
  /** In a sentence: e.g. "0.3 px² + opacity compensation". */
  description: string;
  /** Where it comes from: 'forced' (the setting), 'from …' (the scene's file, or a streamed world, drawn anti-aliased), or 'the file records none'. */
  why: string;
  /** The scene's file names it, or it is a streamed world's (the setting is 'auto'). */
  fromFile: boolean;
  /** What chose it: the setting ('setting'), the scene's file ('file'), a streamed world being shown ('world'), or nothing (the classic filter: 'default'). */
  chosenBy: 'setting' | 'file' | 'world' | 'default';
}

/** What is known of the scene on screen. */
export interface SceneFacts {
  /** Its name, as the load was named. */
  name: string;
  splats: number;
  /** The splats are the part of the file loaded so far (the load goes on). */
  partial: boolean;
  /** The spherical-harmonics degree the file holds. */
  shDegree: number;
  /** Bytes of its file(s) read or downloaded; null where the load does not count them. */
  bytes: number | null;
  /** From the start of the load to the scene on screen, ms (null while it loads). */
  loadMs: number | null;
  /** The bulk of the splats (the middle 98 %), which the camera frames. */
  bounds: Bounds;
  antiAliasing: SceneAntiAliasing | undefined;
}

/** Which way is up in the scene on screen, and where that came from. */
export interface UpChoice {
  axis: UpAxis | 'levelled';
  /** Short: 'guessed (a ground)', 'chosen in the panel', 'convention (−y)', … */
  source: string;
  /** A sentence saying why, where there is one. */
  why: string | undefined;
  /**
   * Nothing the file or its splats show settles which way is up (no ground,
   * no footing, no recorded axes), so the scene may be upside down:
   * the page's panel then offers to turn it over (SplatViewer.flipUp).
   */
  unsure: boolean;
}

/** A load's stage and how far it is. */
export interface LoadProgress {
  stage: 'download' | 'read' | 'parse';
  /** 0..1 */
  fraction: number;
}

/** What became of a load: the scene opened; it failed (the 'error' event says why); it was cancelled; or a later load replaced it. */
export type LoadOutcome = 'opened' | 'failed' | 'cancelled' | 'superseded';

/** The renderer drawing, and for 'auto' where its choice stands. */
export interface RendererChoice {
  /** The renderer that drew the last frame. */
  renderer: FrameRenderer;
  /** 'set' by the setting; auto 'measuring' the two, 'chosen' the faster, or 'untimed' (no GPU timestamps: quads). */
  state: 'set' | 'measuring' | 'chosen' | 'untimed';
  /** Auto's median GPU render time of each renderer, ms (null: none yet). */
  medianMs: Record<FrameRenderer, number | null>;
}

/**
 * The order drawn and why. 'set': the setting names it. Auto: 'waiting'
 * (the renderer's measure runs, or the per-pixel raster is being made),
 * 'quads' (quads draw, which order by centre depth only), 'renderer-set'
 * (the renderer is set, so nothing is measured: centre depth), 'measuring'
 * (both orders drawn in turn), 'chosen' (per pixel where its frame took at
 * most 1.10× the centre-depth one), 'untimed' (no GPU times: centre depth).
 */
export interface SplatOrderChoice {
  order: SplatOrder;
  state: 'set' | 'waiting' | 'quads' | 'renderer-set' | 'measuring' | 'chosen' | 'untimed';
  /** Auto's median GPU frame time (project, sort and render) of each order, ms (null: none yet). */
  medianMs: Record<SplatOrder, number | null>;
}

/** How far the drawn order was from the exact one. */
export interface OrderError {
  /** Adjacent pairs of the order whose splats were both drawn. */
  pairs: number;
  /** Pairs drawn nearer-first. */
  inverted: number;
  /** inverted / pairs (0 when there are no pairs). */
  invertedFraction: number;
  /** Inversions by more than one 16-bit key step of the visible depth range. */
  beyond: number;
  /** The largest inversion, as a share of the visible depth range. */
  largest: number;
  /** The key width the order was sorted with. */
  keyBits: number;
}

/** What a heat map view counted: the pixels where its two pictures differ. */
export interface HeatMapCount {
  /** Pixels of the frame. */
  pixelCount: number;
  /** Pixels where some channel differs by one 8-bit level or more. */
  pixels: number;
  /** pixels / pixelCount. */
  fraction: number;
  /** The largest difference of any channel, in levels (0..255). */
  largest: number;
  /** The mean of each differing pixel's largest channel difference. */
  mean: number;
}

/** A world on screen: what the last frame drew of it, and how its chunks stand. */
export interface WorldState {
  /** The most splats a frame draws. */
  budget: number;
  drawnSplats: number;
  /** The level-of-detail error the budget allowed, pixels. */
  thresholdPx: number;
  chunks: number;
  chunksLoaded: number;
  bytesLoaded: number;
  /** Chunk files the last frame drew (loaded), and those it still asks for: the view needs both. */
  chunksReady: number;
  chunksWanted: number;
  /** Chunks being read. */
  inFlight: number;
  /** GPU memory the world's splats hold. */
  gpuBytes: number;
  /** Nothing is on its way: the picture is as fine as the budget and memory allow. */
  settled: boolean;
}

/** The viewer's state, updated in place as it changes (read it; the events say when). */
export interface ViewerState {
  /** Frames submitted. */
  frames: number;
  /** The first frame with a scene has been drawn. */
  ready: boolean;
  /** The scene on screen (the part so far while one loads), or null. */
  scene: SceneFacts | null;
  /** The scene's name and splat count ('' and 0 without one). */
  sceneName: string;
  splats: number;
  /** A load is in progress, and how far it is. */
  loading: boolean;
  load: { name: string; progress: LoadProgress | null } | null;
  /** Why the last load failed (or the GPU reported an error), until a scene opens. */
  lastError: string | null;
  /** Warnings about the scene on screen (extra bytes, oversized splats, …). */
  warnings: string[];
  up: UpChoice;
  /** The order drawn last, named: 'GPU radix', 'CPU 32-bit radix', … */
  activeSort: string;
  renderer: RendererChoice;
  /** The order the last frame's pixels were blended in (per-pixel only where tiles drew it). */
  order: SplatOrder;
  /** Why that order: as set, or auto's measure and the times behind it. */
  orderChoice: SplatOrderChoice;
  /** The key width of the order on screen. */
  keyBits: number;
  /** The last ordering error measured (auto key bits, or settings.measureOrder). */
  orderError: OrderError | null;
  /** The last count of the heat map view on screen (null outside one, or before its first count). */
  difference: HeatMapCount | null;
  /** The camera of the last frame drawn. */
  view: CameraPose;
  /** The part of the canvas no overlay covers (`SplatViewer.setOverlays`): the scene is framed there. */
  freeRect: Rect;
  /** The last frame's lens shift: the shares of the canvas it framed around (they glide to freeRect's). */
  insets: ViewInsets;
  /** Fly mode's speed, scene units a second (without Shift). */
  readonly flySpeed: number;
  /** The point the last double-click found (null: none there); undefined before any. */
  picked?: Vec3 | null;
  /** The world on screen (null: a scene, or nothing). */
  world: WorldState | null;
}

/** GPU times of a frame's passes, ms (null: not timed: no timestamp queries). */
export interface GpuTimes {
  /** Cull, project and key the visible splats. */
  project: number | null;
  sort: number | null;
  render: number | null;
}

/** What drew a frame's order. */
export interface OrderUsed {
  /** 'gpu-sort' this frame, 'uploaded' from the CPU sort, 'frozen' (settings.freezeOrder), or 'none' (no scene). */
  source: 'none' | 'gpu-sort' | 'uploaded' | 'frozen';
  /** Named, as the panel shows it. */
  label: string;
  /** A CPU sort is asked for but its first order has not arrived: the GPU sorts meanwhile. */
  waiting: boolean;
}

/** What a frame did. */
export interface FrameReport {
  /** The order it drew. */
  choice: Readonly<OrderUsed>;
  /** The key width the order was sorted with. */
  keyBits: number;
  /** Frames between the camera the order was sorted for and this one (0: sorted this frame). */
  orderAge: number;
  /** A CPU order arrived this frame: its sort's time, ms. */
  cpuSortMs: number | null;
  renderer: Readonly<RendererChoice>;
  /** The order its pixels were blended in. */
  order: SplatOrder;
  /** Why that order: as set, or auto's measure. */
  orderChoice: Readonly<SplatOrderChoice>;
}

/** A message for the person looking at the viewer: 'error' stays until dismissed, 'notice' goes by itself. */
export interface ViewerMessage {
  title: string;
  text: string;
  tone: 'error' | 'notice';
}

/** A format a scene can be saved as. */
export interface SaveFormat {
  /** What `SplatViewer.save` takes. */
  id: string;
  /** Its name, e.g. 'INRIA PLY'. */
  label: string;
  /** Its file name extension, with the dot. */
  extension: string;
  /** What of a scene the format keeps, in a sentence. */
  keeps: string;
}

/** Which splats a save keeps: all, those in the view last drawn, or those whose centre is inside a box. */
export type SaveSelection = { keep: 'all' } | { keep: 'in-view' } | { keep: 'box'; box: Bounds };

/** A scene saved: its file's name and bytes, and the splats it holds of the scene's. */
export interface SavedScene {
  name: string;
  blob: Blob;
  splats: number;
  /** The scene's splats. */
  of: number;
}

/** The GPU a viewer draws with. */
export interface GpuFacts {
  /** The adapter, named (e.g. "nvidia-h100-80gb-hbm3 (vulkan)"; '' when the browser does not say). */
  adapter: string;
  /** GPU timestamps: the pass times (`gputimes`) and auto's renderer choice need them. */
  timestamps: boolean;
}

/** A control of the viewer and what it does, for a help overlay: ['Left drag', 'Orbit …']. */
export type ControlHelp = readonly [control: string, action: string];

/** A view as a page's address keeps it (`readViewLink`, `SplatViewer.writeViewLink`). */
export interface ViewLink {
  /** The camera, or null when the address names none. */
  camera: CameraPose | null;
  cameraMode: CameraMode;
  renderer: RendererSetting;
  order: OrderSetting;
  /** What of the address could not be read (left at its default), e.g. { what: 'the view', reason: … }. */
  problems: { what: string; reason: string }[];
}
