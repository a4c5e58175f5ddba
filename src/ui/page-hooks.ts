/**
 * What the viewer page puts on `window` for automated checks: the viewer's
 * state (`__splatsort`; after a failed start, its error alone) and the
 * viewer itself (`__splatsortViewer`, to drive it with the public API).
 */
import type { SplatViewer, ViewerState } from '../lib/index';

declare global {
  interface Window {
    __splatsort?: Readonly<ViewerState>;
    __splatsortViewer?: SplatViewer;
  }
}
