/**
 * A world's worker as a Node worker thread, for the render command and the
 * benchmarks (world-worker-node-client.ts starts two): world-worker-core.ts
 * is what it does; it reads a world from its index's path, each file
 * checked as the Node tools check every file they read
 * (node-scene-source.ts). Built beside the tools that start it
 * (bench/vite.config.ts).
 */
import { serveWorld, type WorldWorkerRequest, type WorldWorkerResponse } from './world-worker-core';
import { nodeFileSource } from './node-scene-source';
import { threadScope } from './node-worker-thread';

const scope = threadScope<WorldWorkerRequest, WorldWorkerResponse>('world-worker-node');
// Closing the port lets the thread end once its work in hand is done (node-worker-thread.ts says why it is not terminated).
serveWorld(scope, (spec) => ('path' in spec ? nodeFileSource(spec.path) : null), () => scope.close());
