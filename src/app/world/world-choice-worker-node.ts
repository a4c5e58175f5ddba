/**
 * A world's level choice as a Node worker thread, for the world benchmark's
 * path (world-choice-node-port.ts starts it), as the page chooses in a Web
 * Worker: world-choice-worker-core.ts is what it does. Built beside the
 * tools that start it (bench/vite.config.ts).
 */
import { threadScope } from '../../io/node-worker-thread';
import { serveChoice, type ChoiceWorkerRequest, type ChoiceWorkerResponse } from './world-choice-worker-core';

const scope = threadScope<ChoiceWorkerRequest, ChoiceWorkerResponse>('world-choice-worker-node');
serveChoice(scope, () => scope.close());
