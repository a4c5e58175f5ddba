/**
 * How a viewer opens a Streamed SOG world: any scene source whose main
 * file is the index (a file on disk for the render command; the page's
 * own openings read chunks in workers: world-opening-web.ts). The index is
 * read when the opening runs; the chunks later, as the camera needs them
 * (world-session.ts). DOM-free.
 */
import { openWorld } from '../../io/lod/world-files';
import type { SceneSource } from '../../io/source-bytes';
import type { WorldChunks } from './world-session';
import type { LoadLimits } from '../../io/load-limits';

/** Reads a world's index (rejecting with an AbortError once `signal` aborts). */
export type WorldOpening = (options: { signal: AbortSignal; limits: LoadLimits }) => Promise<WorldChunks>;

/** The opening of the world whose index is `source`'s main file. */
export function worldOfSource(source: SceneSource): WorldOpening {
  return (options) => openWorld(source, options);
}
