/**
 * The page's world choice worker, a module Web Worker
 * (world-choice-runner.ts starts one a world): world-choice-worker-core.ts
 * is what it does.
 */
import { serveChoice, type ChoiceWorkerScope } from './world-choice-worker-core';

// The project's lib set is DOM, not WebWorker: the worker global scope is taken as the part used.
serveChoice(self as unknown as ChoiceWorkerScope);
