/**
 * The page's world openings: a world's chunks read and decoded by Web
 * Workers (src/io/world-worker-client.ts), so streaming does not stall the
 * frames, and its levels chosen in another (world-choice-runner.ts). The
 * render command and the benchmarks read them in Node worker threads
 * (src/app/node-viewer.ts, openWorldPath); the render command chooses in
 * its own thread, the world benchmark's path in a worker thread as here
 * (world-choice-node-port.ts).
 */
import { isWorldIndexName } from '../../io/lod/world-name';
import type { FolderEntry } from '../../io/web-scene-sources';
import { openWorldInWorkers } from '../../io/world-worker-client';
import type { WorldOpening } from './world-opening';
import { pageChoiceWorker } from './world-choice-port';
import type { WorldChunks } from './world-session-types';

/** The world's level choice in a worker of its own, beside the chunks' (world-choice-runner.ts says why). */
function choosingInAWorker<T extends WorldChunks>(files: T): T & WorldChunks {
  return Object.assign(files, { choiceWorker: pageChoiceWorker });
}

/** The opening of the world at a URL (relative ones against the page), or null when the URL names no world index. */
export function worldAtUrlInWorkers(source: File[] | string): WorldOpening | null {
  if (typeof source !== 'string' || !isWorldIndexName(source)) return null;
  // A worker resolves relative URLs against its own: the page's are made absolute here.
  const url = new URL(source, (globalThis as { location?: { href: string } }).location?.href).href;
  return (options) => openWorldInWorkers({ url }, options).then(choosingInAWorker);
}

/** The opening of a dropped folder's world. */
export function worldOfFolderInWorkers(entries: FolderEntry[]): WorldOpening {
  return (options) => openWorldInWorkers({ entries }, options).then(choosingInAWorker);
}
