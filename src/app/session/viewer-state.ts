/**
 * What the Viewer publishes: a snapshot of its state, updated in place
 * (the page reads it, the browser tests read it as `window.__splatsort`),
 * and the events that say when something a view shows has changed. The
 * Viewer never calls the page; the page subscribes. DOM-free.
 */
import type { CameraView } from '../camera/orbit-camera';
import type { ViewInsets } from '../camera/view-insets';
import { createCameraView } from '../camera/orbit-camera';
import { NO_INSETS } from '../camera/view-insets';
import type { UpAxis } from '../camera/up-axis';
import type { LoadOutcome } from './scene-loads';
import type { FrameTimings } from '../frame/splat-frame';
import { createRendererChoice, type RendererChoice } from '../frame/renderer-policy';
import { createSplatOrderChoice, type SplatOrderChoice } from '../frame/pixel-order-policy';
import { DEFAULT_SPLAT_ORDER, type SplatOrder } from '../../render/frame-renderer';
import type { OrderErrorMeasure } from '../../render/order-error-pass';
import type { DifferenceMeasure } from '../../render/splat-resolve';
import type { Bounds, SplatCloud } from '../../scene/splat-cloud';
import type { SceneAntiAliasing } from '../../scene/anti-aliasing';
import type { LoadProgressReport } from '../../io/splat-loader';

/** What the panel's scene rows say about the scene on screen. */
export interface SceneFacts {
  /** The file's name, as the load was named. */
  name: string;
  splats: number;
  /** The splats are the part of the file loaded so far (the load goes on). */
  partial: boolean;
  /** The SH degree the file holds. */
  shDegree: number;
  /** Bytes of its file(s) read or downloaded; null where the load does not count them. */
  bytes: number | null;
  /** From the start of the load to the scene on screen (null while it loads). */
  loadMs: number | null;
  /** The bulk of the splats (the framing bounds), for the extent. */
  bounds: Bounds;
  /** What the file says of its anti-aliasing (the 'auto' setting follows it). */
  antiAliasing: SceneAntiAliasing | undefined;
}

/** Which way is up in the scene on screen, and where that came from. */
export interface UpChoice {
  axis: UpAxis | 'levelled';
  /** Short: 'guessed (a ground)', 'the link', 'chosen in the panel', ... */
  source: string;
  /** A sentence for a tooltip, where there is one. */
  why: string | undefined;
  /** Nothing the file or its splats show settles it: the scene may be upside down. */
  unsure: boolean;
}

import type { FreeRect } from '../camera/free-rect';
export type { FreeRect } from '../camera/free-rect';

export interface ViewerState {
  /** Frames submitted. */
  frames: number;
  /** The first frame with a scene has been drawn (the GPU finished it). */
  ready: boolean;
  /** The scene on screen (a preview's part so far while it loads), or null. */
  scene: SceneFacts | null;
  /** The scene's name and splat count ('' and 0 without one). */
  sceneName: string;
  splats: number;
  /** A load is in progress, and how far it is. */
  loading: boolean;
  load: { name: string; progress: LoadProgressReport | null } | null;
  /**
   * Why the last load failed (or the GPU reported an error), until a scene
   * opens: a scene that opens clears it, even where the page leaves the
   * error's message up for the user to dismiss (the default scene standing
   * in for a link that failed).
   */
  lastError: string | null;
  /** Warnings about the scene on screen (extra bytes, oversized splats, ...). */
  warnings: string[];
  up: UpChoice;
  /** The order drawn last, as the panel names it. */
  activeSort: string;
  /** The renderer of the last frame drawn, and for auto where its choice stands and the two median times behind it. */
  renderer: RendererChoice;
  /** The order the last frame's pixels were blended in (per-pixel only where tiles drew it). */
  order: SplatOrder;
  /** Why that order: as set, or auto's measure and the two median frame times behind it. */
  orderChoice: SplatOrderChoice;
  /** The key width of the order on screen. */
  keyBits: number;
  /** The last ordering error measured (auto, or the measure setting), with the key width it was measured at. */
  orderError: (OrderErrorMeasure & { keyBits: number }) | null;
  /** What the heat map view on screen (the sort difference, the per-pixel order) counted last (null outside one, or before its first count). */
  difference: DifferenceMeasure | null;
  /** The camera of the last frame drawn. */
  view: CameraView;
  /** The part of the window no overlay covers, CSS pixels (the page's; the whole window by default). */
  freeRect: FreeRect;
  /** The last frame's lens shift: the shares of the window it framed around (they glide to freeRect's). */
  insets: ViewInsets;
  /** Fly mode's speed (scene units per second, without Shift). */
  readonly flySpeed: number;
  /** The point the last pick found (null: none there), undefined before any. */
  picked?: [number, number, number] | null;
  /** The world on screen (null: a scene, or nothing): what the last frame drew of it, and how its chunks stand. */
  world: WorldState | null;
}

import type { WorldState } from '../world/world-session';
export type { WorldState } from '../world/world-session';

export function createViewerState(flySpeed: () => number): ViewerState {
  const state = {
    frames: 0, ready: false, scene: null, sceneName: '', splats: 0, loading: false, load: null, lastError: null, warnings: [],
    up: { axis: '+y', source: '—', why: undefined, unsure: false }, activeSort: '', renderer: createRendererChoice(), order: DEFAULT_SPLAT_ORDER, orderChoice: createSplatOrderChoice(), keyBits: 32, orderError: null, difference: null, view: createCameraView(),
    freeRect: { x: 0, y: 0, width: 1, height: 1 }, insets: { ...NO_INSETS }, world: null,
  } as Omit<ViewerState, 'flySpeed'>;
  // Read live: the wheel sets the speed without a frame to publish it.
  return Object.defineProperty(state, 'flySpeed', { get: flySpeed, enumerable: true }) as ViewerState;
}

/** A message for the person looking at the viewer, beside the load errors. */
export interface ViewerMessage {
  title: string;
  text: string;
  /** 'error' stays until dismissed; 'notice' goes by itself. */
  tone: 'error' | 'notice';
}

export interface ViewerEvents {
  /** A load started. */
  loadStart(name: string): void;
  progress(report: LoadProgressReport): void;
  /** The load in progress ended, unless a later one replaced it. */
  loadEnd(outcome: LoadOutcome): void;
  /**
   * The scene on screen changed: a scene opened, the part of one loading
   * grew, or the scene before a load that did not complete came back.
   */
  scene(facts: SceneFacts | null, how: 'opened' | 'preview' | 'restored'): void;
  /**
   * A scene opened (after its 'scene' event). `cloud` is the whole scene
   * as decoded (the Viewer keeps only what it needs of it); `keepError`:
   * the last load error's message stays up (the default scene standing in
   * for a link), though the state's lastError is cleared.
   */
  opened(info: { name: string; cloud: SplatCloud; warnings: readonly string[]; keepError: boolean }): void;
  /** A load failed, or a source could not be opened at all. */
  failed(info: { name: string; reason: string }): void;
  /** The up axis or where it came from changed. */
  up(choice: UpChoice): void;
  /** The Viewer moved the controls' camera itself (framing, reset, level, a pick, a view set). */
  camera(): void;
  message(message: ViewerMessage): void;
  /** GPU times of a frame's passes (not every frame's). */
  timings(times: FrameTimings): void;
  /** A count of the heat map view on screen (the sort difference, the per-pixel order), read. */
  difference(m: DifferenceMeasure): void;
  /** The first frame with a scene is done. */
  ready(): void;
}
