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
import { startWorkerThread } from './node-worker-thread';
import type { WorldWorkerPort } from './world-worker-client';
import type { WorldWorkerRequest, WorldWorkerResponse } from './world-worker-core';

const SCRIPT = new URL('./world-worker-node.mjs', import.meta.url);

/** What starts a world's worker thread, or null where its script was not built beside this module. */
export function nodeWorldWorkers(): (() => WorldWorkerPort) | null {
  return existsSync(fileURLToPath(SCRIPT)) ? startWorker : null;
}

function startWorker(): WorldWorkerPort {
  const worker = startWorkerThread(SCRIPT);
  // A world left open never holds the process: its threads end with it.
  worker.unref();
  const port: WorldWorkerPort = {
    onmessage: null,
    onerror: null,
    postMessage: (request: WorldWorkerRequest) => worker.postMessage(request),
    // Asked to end rather than terminated (world-worker-node.ts says why).
    terminate: () => worker.postMessage({ type: 'close' } satisfies WorldWorkerRequest),
  };
  worker.on('message', (data: WorldWorkerResponse) => port.onmessage?.({ data }));
  worker.on('error', (error: Error) => port.onerror?.({ message: error.message, preventDefault() {} }));
  return port;
}
