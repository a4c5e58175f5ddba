/**
 * A world's chunks decoded in Node worker threads (world-worker-node.ts),
 * for the render command and the benchmarks, as the page decodes them in
 * Web Workers: the frames' thread then only copies packed bytes to the GPU,
 * so a benchmark's wall time a frame means what the page's does. The
 * thread's script is built beside the tools (bench/vite.config.ts); run
 * from the sources (the tests), there is none, and the world is read on
 * the calling thread (nodeWorldWorkers gives null).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { nodeWorkerPort, startWorkerThread } from './node-worker-thread';
import type { WorldWorkerPort } from './world-worker-client';
import type { WorldWorkerRequest, WorldWorkerResponse } from './world-worker-core';

const SCRIPT = new URL('./world-worker-node.mjs', import.meta.url);

/** What starts a world's worker thread, or null where its script was not built beside this module. */
export function nodeWorldWorkers(): (() => WorldWorkerPort) | null {
  return existsSync(fileURLToPath(SCRIPT)) ? () => nodeWorkerPort<WorldWorkerRequest, WorldWorkerResponse>(startWorkerThread(SCRIPT), { type: 'close' }) : null;
}
