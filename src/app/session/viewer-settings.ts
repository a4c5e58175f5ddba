/**
 * What the user asks of the viewer: the settings the panel edits, the view
 * links and camera files carry, and the Viewer reads every frame. DOM-free.
 */
import type { UpAxis } from '../camera/up-axis';
import type { SortMode } from '../frame/order/order-policy';
import type { KeyBitsSetting } from '../frame/key-bits-policy';
import type { FrameView } from '../frame/splat-frame';
import type { CameraMode } from '../camera/fly-motion';
import type { AntiAliasingSetting } from '../../scene/anti-aliasing';
import { DEFAULT_ORDER_SETTING, DEFAULT_RENDERER_SETTING, type OrderSetting, type RendererSetting } from '../../render/frame-renderer';

export interface ViewerSettings {
  sortMode: SortMode;
  /** 'auto': the fewest bits whose ordering error stays under the threshold (src/app/frame/key-bits-policy.ts). */
  keyBits: KeyBitsSetting;
  /** Highest SH band to evaluate; the scene's own degree caps it. */
  shDegree: number;
  splatScale: number;
  /** CSS hex colour, e.g. '#101318'. */
  background: string;
  /** Keep drawing the last order: no keys, no sort, no uploads (the splats are still projected for the camera). */
  freezeOrder: boolean;
  /** Measure the drawn order's ordering error every frame it can (a pass each). */
  measureOrder: boolean;
  /**
   * The picture, the sort difference view (the frame drawn again in the
   * exact order, and a heat map of where the two differ), or the per-pixel
   * order view (the tile renderer's frame in both orders, and the heat map
   * of where they differ). Until what the view needs is made, frames show
   * the picture.
   */
  view: FrameView;
  /** Which renderer draws the splats, or 'auto': both timed on each new scene and frame size, the faster kept (src/app/frame/renderer-policy.ts). */
  renderer: RendererSetting;
  /**
   * How each pixel's splats are ordered; 'per-pixel' draws with tiles
   * whatever `renderer` says (src/render/frame-renderer.ts); 'auto' per
   * pixel where auto's renderer chose tiles and the per-pixel frame costs
   * at most 1.10× (src/app/frame/pixel-order-policy.ts).
   */
  order: OrderSetting;
  /** The screen filter: as the file says (auto), the reference's classic one (off), or anti-aliased (on). */
  antiAliasing: AntiAliasingSetting;
  /** Turn the camera about the target, AUTO_ROTATE_DEG_PER_S. */
  autoRotate: boolean;
  /** The drawn camera glides to where the controls move it (src/app/camera/camera-damping.ts), or jumps. */
  smoothCamera: boolean;
  /** Orbit around a point, or fly through the scene (C switches). */
  cameraMode: CameraMode;
  /**
   * The scene's up direction. Captured INRIA scenes point y down; the
   * default scene has y up. Set on every load, changeable by hand.
   */
  upAxis: UpAxis | 'levelled';
  /** A world's splat budget: the most splats a frame draws ('auto': what the device fits, worldBudgetFor). */
  worldBudget: number | 'auto';
}

export const DEFAULT_SETTINGS: Readonly<ViewerSettings> = {
  sortMode: 'gpu',
  keyBits: 'auto',
  shDegree: 3,
  splatScale: 1,
  background: '#101318',
  freezeOrder: false,
  measureOrder: false,
  view: 'picture',
  renderer: DEFAULT_RENDERER_SETTING,
  order: DEFAULT_ORDER_SETTING,
  antiAliasing: 'auto',
  autoRotate: false,
  cameraMode: 'orbit',
  smoothCamera: true,
  upAxis: '+y',
  worldBudget: 'auto',
};

/** '#rrggbb' → 0..1 channels in `out`; the canvas format is not sRGB, so they show as that CSS colour. */
export function hexToRgb(hex: string, out: [number, number, number]): [number, number, number] {
  const value = Number.parseInt(hex.slice(1), 16) || 0;
  out[0] = ((value >> 16) & 255) / 255;
  out[1] = ((value >> 8) & 255) / 255;
  out[2] = (value & 255) / 255;
  return out;
}

/** 0..1 channels → '#rrggbb'. */
export function rgbToHex(rgb: readonly [number, number, number]): string {
  return `#${rgb.map((c) => Math.round(Math.min(1, Math.max(0, c)) * 255).toString(16).padStart(2, '0')).join('')}`;
}
