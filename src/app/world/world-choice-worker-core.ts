/**
 * A world's level choice (world-choice.ts) in a worker of its own, so that
 * the page's main thread does not spend a frame's time on it: on a world
 * of 20,480 leaves under a budget that binds, a choice takes 1.8-2.7 ms
 * (bench/world-choice.ts, `--made 160x128 --budget 4000000`, Node on a
 * 2-core machine), most of the 4 ms a frame's main thread may take.
 * What the worker does, wherever it runs (the page's Web Worker:
 * world-choice-worker.ts; the Node benchmark's worker thread:
 * world-choice-worker-node.ts; the tests call it in their own thread).
 * Protocol, one choice asked at a time (world-choice-runner.ts waits for
 * the answer before it asks again):
 *   in:  { type: 'open', index } or { type: 'open', text } (the index's
 *        text, read here as the world's workers read it), then
 *        { type: 'choose', view, options,
 *        files } (files: per chunk file, bit 1 resident, bit 2 failed), and
 *        { type: 'close' } (Node's threads: ended once idle; the page's
 *        workers are terminated)
 *   out: per choose, { type: 'chosen', … } (the choice: draw as leaf and
 *        level pairs, its arrays transferred) or { type: 'error', message };
 *        either hands the request's `files` back (transferred both ways,
 *        so that the asking thread reuses one buffer).
 * DOM-free.
 */
import { parseLodMeta, type LodIndex } from '../../io/lod/lod-meta';
import type { BudgetPolicy, WorldView } from './world-choice-types';
import { worldChoice, type WorldChoice } from './world-lod';
import { runLeaf, runLevel } from './world-run-table';

/** A file's state in a choose request's `files`: on the GPU. */
export const FILE_RESIDENT = 1;
/** A file's state in a choose request's `files`: failed (not asked for again). */
export const FILE_FAILED = 2;

/** The options of a choice that are values (the files' states travel as `files`). */
export interface ChoiceAsk {
  thresholdPx: number;
  budget: number;
  budgetPolicy?: BudgetPolicy;
}

export type ChoiceWorkerRequest =
  | { type: 'open'; index: LodIndex }
  | { type: 'open'; text: string }
  | { type: 'choose'; view: WorldView; options: ChoiceAsk; files: Uint8Array }
  | { type: 'close' };

/** A choice as it travels: what LodChoice holds, its draw list as leaf and level pairs. */
export interface ChosenMessage {
  type: 'chosen';
  /** Leaf, level of each run drawn, in the choice's order. */
  draw: Int32Array;
  wanted: Int32Array;
  fetch: Int32Array;
  drawnSplats: number;
  wantedSplats: number;
  thresholdPx: number;
  leftOut: number;
  /** The request's files' states, handed back. */
  files?: Uint8Array;
}

export type ChoiceWorkerResponse = ChosenMessage | { type: 'error'; message: string; files?: Uint8Array };

/** The part of a worker's side of its channel used here. */
export interface ChoiceWorkerScope {
  onmessage: ((event: { data: ChoiceWorkerRequest }) => void) | null;
  postMessage(message: ChoiceWorkerResponse, transfer?: Transferable[]): void;
}

/** Answers the requests `scope` receives; `end` ends the worker once idle when asked to close. */
export function serveChoice(scope: ChoiceWorkerScope, end: () => void = () => {}): void {
  let chooser: WorldChoice | null = null;
  /** Why the index sent could not be read (said at each choice asked). */
  let unread: string | null = null;
  let files: Uint8Array = new Uint8Array(0);
  const resident = (file: number): boolean => ((files[file] ?? 0) & FILE_RESIDENT) !== 0;
  const failed = (file: number): boolean => ((files[file] ?? 0) & FILE_FAILED) !== 0;
  scope.onmessage = (event) => {
    const request = event.data;
    if (request.type === 'open') {
      try {
        chooser = worldChoice('text' in request ? parseLodMeta(request.text) : request.index);
        unread = null;
      } catch (error) {
        // The world's workers read the same text with the same limits, so this should not happen; if it does,
        // each choice answers why, and the asking thread chooses from then on (world-choice-runner.ts).
        chooser = null;
        unread = error instanceof Error ? error.message : String(error);
      }
      return;
    }
    if (request.type === 'close') return end();
    try {
      if (!chooser) throw new Error(unread === null ? "the world's choice was asked for before its index was sent" : `the world's index could not be read: ${unread}`);
      files = request.files;
      const choice = chooser.choose(request.view, { ...request.options, resident, failed });
      const draw = new Int32Array(2 * choice.draw.length);
      const { levels } = chooser;
      choice.draw.forEach((run, i) => {
        draw[2 * i] = runLeaf(run, levels);
        draw[2 * i + 1] = runLevel(run, levels);
      });
      const wanted = choice.wanted.slice();
      const fetch = Int32Array.from(choice.fetch);
      const { drawnSplats, wantedSplats, thresholdPx, leftOut } = choice;
      scope.postMessage({ type: 'chosen', draw, wanted, fetch, drawnSplats, wantedSplats, thresholdPx, leftOut, files }, [draw.buffer, wanted.buffer, fetch.buffer, files.buffer]);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const back = request.files?.byteLength ? request.files : undefined;
      scope.postMessage(back ? { type: 'error', message, files: back } : { type: 'error', message }, back ? [back.buffer] : []);
    }
  };
}
