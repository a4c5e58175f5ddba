/**
 * The page's world choice worker, started: kept apart from the choice's
 * code (world-choice-runner.ts), which a page downloads with its first
 * world, so that the page's openings (world-opening-web.ts) can name it.
 */
import type { ChoiceWorkerRequest, ChoiceWorkerResponse } from './world-choice-worker-core';

/** The main thread's side of a choice worker's channel (a Web Worker as it is). */
export interface ChoiceWorkerPort {
  onmessage: ((event: { data: ChoiceWorkerResponse }) => void) | null;
  onerror: ((event: { message: string; preventDefault(): void }) => void) | null;
  postMessage(request: ChoiceWorkerRequest, transfer?: Transferable[]): void;
  terminate(): void;
}

/** The page's choice worker (a module Web Worker: world-choice-worker.ts). */
export function pageChoiceWorker(): ChoiceWorkerPort {
  return new Worker(new URL('./world-choice-worker.ts', import.meta.url), { type: 'module' }) as unknown as ChoiceWorkerPort;
}
