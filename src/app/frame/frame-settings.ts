/**
 * What the viewer core is asked of each frame and what it reports back,
 * and the decisions that follow from the settings alone: which renderer
 * setting applies, which views are heat maps. DOM-free, no GPU.
 */
import type { FrameView } from './splat-frame';
import type { OrderChoice, SortMode } from './order/order-policy';
import type { KeyBitsSetting } from './key-bits-policy';
import type { RendererChoice } from './renderer-policy';
import type { SplatOrderChoice } from './pixel-order-policy';
import { DEFAULT_SPLAT_ORDER, rendererSettingFor, type OrderSetting, type RendererSetting, type SplatOrder } from '../../render/frame-renderer';

/** What the user asks of a frame. */
export interface FrameSettings {
  sortMode: SortMode;
  keyBits: KeyBitsSetting;
  freezeOrder: boolean;
  /** Measure the ordering error of every frame it can (a pass each); auto measures on its own. */
  measureOrder: boolean;
  /**
   * The picture, the sort difference view (the frame drawn again in the
   * exact order, and a heat map of where the two differ) or the per-pixel
   * order view (the tile renderer's frame in both orders, and the same
   * heat map). Until the view's second sort or the tile renderer is made,
   * frames show the picture. Default 'picture'.
   */
  view?: FrameView;
  /** The renderer, or 'auto': both timed on a new scene or frame size, the faster kept (src/app/frame/renderer-policy.ts). */
  renderer: RendererSetting;
  /**
   * Default 'centre-depth'; 'per-pixel' draws with tiles whatever
   * `renderer` says (rendererSettingOf); 'auto' the per-pixel order where
   * auto's renderer chose tiles and it costs little (pixel-order-policy.ts).
   */
  order?: OrderSetting;
}

/** What a frame did. */
export interface FrameReport {
  choice: Readonly<OrderChoice>;
  /** The key width the order was made with (of the frozen order, when frozen). */
  keyBits: number;
  /** Frames between the camera the order was sorted for and this one (0: sorted this frame). */
  orderAge: number;
  /** A CPU order arrived and was uploaded this frame: its sort time. */
  cpuSortMs: number | null;
  /** The renderer that drew the frame, and for auto where its choice stands and the times behind it. */
  renderer: Readonly<RendererChoice>;
  /** The order its pixels were blended in: per-pixel only where the setting (or auto) asks for it and tiles drew the frame. */
  order: SplatOrder;
  /** Why that order: as set, or auto's measure and the times behind it. */
  orderChoice: Readonly<SplatOrderChoice>;
}

/**
 * The renderer setting a frame of `settings` showing `view` is drawn
 * under: tiles for the per-pixel order and for the per-pixel order view,
 * which only the tile renderer draws (so neither starts auto's measure).
 */
export function rendererSettingOf(settings: Readonly<FrameSettings>, view: FrameView = settings.view ?? 'picture'): RendererSetting {
  return view === 'pixel-order' ? 'tiles' : rendererSettingFor(settings.renderer, settings.order ?? DEFAULT_SPLAT_ORDER);
}

/** Whether a frame of these settings blends per pixel (the order, or the per-pixel order view): the tile renderer's per-pixel raster is then needed. */
export function wantsPerPixel(settings: Readonly<FrameSettings>, view: FrameView = settings.view ?? 'picture'): boolean {
  return view === 'pixel-order' || settings.order === 'per-pixel';
}

/** The views that show a heat map of where two pictures differ and count its pixels (a DifferenceMeasure): all but the picture. */
export function isHeatMap(view: FrameView): boolean {
  return view !== 'picture';
}
