/**
 * How the viewer opens a Streamed SOG world from what it is given: a link
 * (`?url=…/lod-meta.json`) or any scene source whose main file is the
 * index (a dropped folder's). The index is read when the opening runs; the
 * chunks later, as the camera needs them (world-session.ts). DOM-free.
 */
import { isWorldIndexName, openWorld } from '../io/lod/world-files';
import type { SceneSource } from '../io/scene-source';
import { urlSource } from '../io/web-scene-sources';
import type { WorldChunks } from './world-session';
import type { LoadLimits } from '../io/load-limits';

/** Reads a world's index (rejecting with an AbortError once `signal` aborts). */
export type WorldOpening = (options: { signal: AbortSignal; limits: LoadLimits }) => Promise<WorldChunks>;

/** The opening of the world at a URL, or null when the URL names no world index (a scene: loaded as one). */
export function worldAtUrl(source: File[] | string): WorldOpening | null {
  if (typeof source !== 'string' || !isWorldIndexName(source)) return null;
  return (options) => openWorld(urlSource(source), options);
}

/** The opening of the world whose index is `source`'s main file. */
export function worldOfSource(source: SceneSource): WorldOpening {
  return (options) => openWorld(source, options);
}
