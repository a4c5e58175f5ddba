/**
 * The view in the page URL: `eye`, `target`, `up` (three comma-separated
 * numbers each), `fovy` (degrees) and `mode=fly` in fly mode, beside `url`
 * (the scene), `renderer` where it is not auto and `order` where it is not
 * auto (centre-depth or per-pixel). Numbers keep 15 significant digits, so
 * a view read back from the URL gives the same f32 view and projection
 * matrices as the view that wrote it.
 */
import { CAMERA_MODES, type CameraMode } from './fly-motion';
import type { CameraView } from './orbit-camera';
import { DEFAULT_ORDER_SETTING, DEFAULT_RENDERER_SETTING, ORDER_SETTINGS, RENDERER_SETTINGS, type OrderSetting, type RendererSetting } from '../../render/frame-renderer';

const KEYS = ['eye', 'target', 'up', 'fovy'] as const;

export function writeViewParams(view: CameraView, params: URLSearchParams, mode: CameraMode = 'orbit'): void {
  params.set('eye', view.eye.map(shareableNumber).join(','));
  params.set('target', view.target.map(shareableNumber).join(','));
  params.set('up', view.up.map(shareableNumber).join(','));
  params.set('fovy', String(shareableNumber(view.fovyDeg)));
  // Orbit is what a link without `mode` opens in: links of orbit views stay as they were.
  if (mode === 'orbit') params.delete('mode');
  else params.set('mode', mode);
}

/** The camera mode a link names: orbit when it names none; throws for one it does not know. */
export function readViewMode(params: URLSearchParams): CameraMode {
  const mode = params.get('mode');
  if (mode === null) return 'orbit';
  if (!(CAMERA_MODES as readonly string[]).includes(mode)) throw new Error(`the link's "mode" must be ${CAMERA_MODES.join(' or ')}, got "${mode}"`);
  return mode as CameraMode;
}

/** Keeps the renderer setting in the link; the default (auto) is left out, so links without one stay as they were. */
export function writeRendererParam(setting: RendererSetting, params: URLSearchParams): void {
  writeChoiceParam('renderer', setting, DEFAULT_RENDERER_SETTING, params);
}

/** The renderer setting a link names: the default when it names none; throws for one it does not know. */
export function readRendererParam(params: URLSearchParams): RendererSetting {
  return readChoiceParam('renderer', RENDERER_SETTINGS, DEFAULT_RENDERER_SETTING, params);
}

/** Keeps the splat order in the link; the viewer's default (auto) is left out. */
export function writeOrderParam(order: OrderSetting, params: URLSearchParams): void {
  writeChoiceParam('order', order, DEFAULT_ORDER_SETTING, params);
}

/** The splat order a link names: the viewer's default (auto) when it names none; throws for one it does not know. */
export function readOrderParam(params: URLSearchParams): OrderSetting {
  return readChoiceParam('order', ORDER_SETTINGS, DEFAULT_ORDER_SETTING, params);
}

/** A setting of a few named values in the link, under `key`, left out where it is the default. */
function writeChoiceParam<T extends string>(key: string, value: T, fallback: T, params: URLSearchParams): void {
  if (value === fallback) params.delete(key);
  else params.set(key, value);
}

function readChoiceParam<T extends string>(key: string, values: readonly T[], fallback: T, params: URLSearchParams): T {
  const value = params.get(key);
  if (value === null) return fallback;
  if (!(values as readonly string[]).includes(value)) throw new Error(`the link's "${key}" must be one of ${values.join(', ')}, got "${value}"`);
  return value as T;
}

/**
 * 15 significant digits: far below f32 precision (the view the GPU gets is
 * unchanged) while keeping links and camera files readable (60, not
 * 59.99999999999999).
 */
export function shareableNumber(v: number): number {
  return Number.parseFloat(v.toPrecision(15));
}

/** The view in `params`, or null if none is there; throws with a clear message if one is there but malformed. */
export function readViewParams(params: URLSearchParams): CameraView | null {
  if (!KEYS.some((k) => params.has(k))) return null;
  const vector = (key: string): [number, number, number] => {
    const text = params.get(key);
    const parts = text?.split(',').map(Number);
    if (!parts || parts.length !== 3 || !parts.every(Number.isFinite)) {
      throw new Error(`the link's "${key}" must be three numbers separated by commas, got "${text ?? ''}"`);
    }
    return [parts[0]!, parts[1]!, parts[2]!];
  };
  const fovy = Number(params.get('fovy') ?? '60');
  if (!(fovy > 0 && fovy < 180)) throw new Error(`the link's "fovy" must be an angle between 0 and 180 degrees, got "${params.get('fovy')}"`);
  const view: CameraView = { eye: vector('eye'), target: vector('target'), up: params.has('up') ? vector('up') : [0, 1, 0], fovyDeg: fovy };
  if (view.eye.every((v, i) => v === view.target[i])) throw new Error('the link\'s "eye" and "target" are the same point');
  return view;
}
