/**
 * The page's world worker, a module Web Worker (world-worker-client.ts
 * starts two): world-worker-core.ts is what it does; it reads a world by
 * URL or from a dropped folder's files.
 */
import { serveWorld, type WorkerScope } from './world-worker-core';
import { folderSource, urlSource } from './web-scene-sources';

export type { WorldSourceSpec, WorldWorkerRequest, WorldWorkerResponse } from './world-worker-core';

// The project's lib set is DOM, not WebWorker: the worker global scope is taken as the part used.
serveWorld(self as unknown as WorkerScope, (spec) => ('url' in spec ? urlSource(spec.url) : 'entries' in spec ? folderSource(spec.entries) : null));
