/**
 * A world's level choice in a Node worker thread
 * (world-choice-worker-node.ts), for the world benchmark's path, so that
 * its frames' thread does what the page's main thread does and no more:
 * the page chooses in a Web Worker (world-opening-web.ts). The render
 * command and the tests choose in their own thread, so that a picture
 * never depends on when a choice arrived (world-choice-runner.ts). The
 * thread's script is built beside the tools (bench/vite.config.ts); run
 * from the sources there is none (nodeChoiceWorker gives null).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { nodeWorkerPort, startWorkerThread } from '../../io/node-worker-thread';
import type { ChoiceWorkerPort } from './world-choice-port';
import type { ChoiceWorkerRequest, ChoiceWorkerResponse } from './world-choice-worker-core';

const SCRIPT = new URL('./world-choice-worker-node.mjs', import.meta.url);

/** What starts a choice's worker thread, or null where its script was not built beside this module. */
export function nodeChoiceWorker(): (() => ChoiceWorkerPort) | null {
  return existsSync(fileURLToPath(SCRIPT)) ? () => nodeWorkerPort<ChoiceWorkerRequest, ChoiceWorkerResponse>(startWorkerThread(SCRIPT), { type: 'close' }) : null;
}
