/**
 * A world's worker as a Node worker thread, for the render command and the
 * benchmarks (world-worker-node-client.ts starts two): world-worker-core.ts
 * is what it does; it reads a world from its index's path, each file
 * checked as the Node tools check every file they read
 * (node-scene-source.ts). Built beside the tools that start it
 * (bench/vite.config.ts).
 */
import { parentPort } from 'node:worker_threads';
import { serveWorld, type WorkerScope, type WorldWorkerRequest } from './world-worker-core';
import { nodeFileSource } from './node-scene-source';

if (!parentPort) throw new Error('world-worker-node runs as a worker thread');
const port = parentPort;
let handler: WorkerScope['onmessage'] = null;
port.on('message', (data: WorldWorkerRequest) => handler?.({ data }));
const scope: WorkerScope = {
  get onmessage() {
    return handler;
  },
  set onmessage(next) {
    handler = next;
  },
  postMessage: (message, transfer) => port.postMessage(message, transfer as ArrayBuffer[] | undefined),
};
// Closing the port lets the thread end once its work in hand is done: terminated mid-compile, a
// worker thread aborted the whole of Node 20 (world-displacements-write.ts met it).
serveWorld(scope, (spec) => ('path' in spec ? nodeFileSource(spec.path) : null), () => port.close());
