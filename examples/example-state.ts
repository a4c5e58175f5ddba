/**
 * What the example pages keep on `window` for the browser tests
 * (tests/e2e/package.test.ts) to read and drive: the viewers they made and
 * what those said, the element's events, the engine page's frames.
 */
import type { createViewer, SplatViewer } from 'splatsort';

export interface ViewersExample {
  viewers: SplatViewer[];
  loaded: number;
  errors: string[];
  /** The package's createViewer, for tests that make and free more viewers. */
  createViewer: typeof createViewer;
}

export interface EngineExample {
  frames: number;
  splats: number;
  error: string | null;
  /** Where the page's triangle's middle falls, in CSS pixels of the canvas. */
  trianglePixel: [number, number] | null;
}

declare global {
  interface Window {
    splatsortExample?: ViewersExample;
    splatsortElementEvents?: { type: string; detail: unknown }[];
    splatsortEngineExample?: EngineExample;
  }
}
