/**
 * The view in the page URL: `eye`, `target`, `up` (three comma-separated
 * numbers each) and `fovy` (degrees), beside `url` (the scene). Numbers keep
 * 15 significant digits, so a view read back from the URL gives the same
 * f32 view and projection matrices as the view that wrote it.
 */
import type { CameraView } from './orbit-camera';

const KEYS = ['eye', 'target', 'up', 'fovy'] as const;

export function writeViewParams(view: CameraView, params: URLSearchParams): void {
  params.set('eye', view.eye.map(shareableNumber).join(','));
  params.set('target', view.target.map(shareableNumber).join(','));
  params.set('up', view.up.map(shareableNumber).join(','));
  params.set('fovy', String(shareableNumber(view.fovyDeg)));
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
