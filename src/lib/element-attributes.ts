/**
 * What the `<splat-viewer>` element's text attributes mean (element.ts):
 * a budget and a camera pose. DOM-free, so tested alone.
 */
import type { CameraPose } from './public-types';

/** A splat budget attribute: 'auto', or a count with an optional k or M ("4M", "500k", "250000"); null when it is none of these. */
export function parseBudget(text: string): 'auto' | number | null {
  const value = text.trim();
  if (value.toLowerCase() === 'auto') return 'auto';
  const match = /^(\d+(?:\.\d+)?)\s*([kKmM]?)$/.exec(value);
  if (!match) return null;
  const scale = { '': 1, k: 1e3, K: 1e3, m: 1e6, M: 1e6 }[match[2] as '' | 'k' | 'K' | 'm' | 'M'];
  const count = Math.round(Number(match[1]) * scale);
  return count > 0 ? count : null;
}

/** A camera attribute's pose, or null where it names none. */
export function poseOf(text: string | null): CameraPose | null {
  if (!text) return null;
  try {
    const pose = JSON.parse(text) as Partial<CameraPose>;
    const triple = (v: unknown) => Array.isArray(v) && v.length === 3 && v.every((x) => typeof x === 'number' && Number.isFinite(x));
    if (!triple(pose.eye) || !triple(pose.target)) return null;
    return { eye: pose.eye!, target: pose.target!, up: triple(pose.up) ? pose.up! : [0, 1, 0], fovyDeg: typeof pose.fovyDeg === 'number' ? pose.fovyDeg : 60 };
  } catch {
    return null;
  }
}

