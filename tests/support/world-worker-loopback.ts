/**
 * A world's worker (src/io/world-worker-core.ts) served in the calling
 * thread, as openWorldInWorkers' `start` takes one: each message cloned
 * as a thread's are (structuredClone, with what it transfers), and both
 * sides' objects kept for a test to look at: the requests as the worker
 * received them, and its answers as it sent them (before the clone).
 */
import { nodeFileSource } from '../../src/io/node-scene-source';
import type { WorldWorkerPort } from '../../src/io/world-worker-client';
import { serveWorld, type WorkerScope, type WorldWorkerRequest, type WorldWorkerResponse } from '../../src/io/world-worker-core';

export interface LoopbackWorker {
  port: WorldWorkerPort;
  /** The requests as the worker received them. */
  received: WorldWorkerRequest[];
  /** The worker's messages as it sent them, with what each transferred. */
  sent: { message: WorldWorkerResponse; transfer: Transferable[] }[];
}

/** A worker reading worlds from disk (`{ path }` sources), served in this thread. */
export function loopbackWorker(): LoopbackWorker {
  const received: WorldWorkerRequest[] = [];
  const sent: LoopbackWorker['sent'] = [];
  const scope: WorkerScope = {
    onmessage: null,
    postMessage: (message, transfer = []) => {
      sent.push({ message, transfer });
      const data = structuredClone(message, { transfer });
      queueMicrotask(() => port.onmessage?.({ data }));
    },
  };
  const port: WorldWorkerPort = {
    onmessage: null,
    onerror: null,
    postMessage: (request, transfer = []) => {
      const data = structuredClone(request, { transfer });
      received.push(data);
      queueMicrotask(() => scope.onmessage?.({ data }));
    },
    terminate: () => {},
  };
  serveWorld(scope, (spec) => ('path' in spec ? nodeFileSource(spec.path) : null));
  return { port, received, sent };
}
