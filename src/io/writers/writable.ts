/**
 * The check every writer makes before it writes a byte: the scene's values
 * are ones the readers accept (validate-splats.ts, the readers' own last
 * check: no NaN or infinity, no absurd magnitude), or the save is refused
 * with a message that names the format, the value and the splat. A scene
 * the viewer opened has passed that check already; one made in code, or
 * edited, may not have. DOM-free.
 */
import type { SplatCloud } from '../../scene/splat-cloud';
import { validateSplatCloud } from '../validate-splats';

/** Thrown for a scene a format cannot be written with; the message says what and where. */
export class UnwritableSceneError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnwritableSceneError';
  }
}

/** Throws UnwritableSceneError, naming the first bad splat, unless every value of `cloud` is one the readers accept. */
export function checkWritable(cloud: SplatCloud, label: string): void {
  try {
    validateSplatCloud(cloud);
  } catch (error) {
    // The validator speaks of "the file": here it is the scene about to be written.
    const text = (error as Error).message.replace(/^the file /, 'the scene ');
    throw new UnwritableSceneError(`Cannot save as ${label}: ${text}`);
  }
}

/** The magnitude of each splat's scale that the readers draw: the renderer squares it, so a negative one draws as its magnitude. */
export const drawnScale = (scale: number): number => Math.abs(scale);
