/**
 * Where a world session's level choice runs: in its own thread, at once
 * (InlineChoice: the render command, the benchmarks and the tests, whose
 * pictures must not depend on timing), or in a worker (WorkerChoice: the
 * page, whose main thread a choice of 1.8-2.7 ms would take most of a
 * frame from; world-choice-worker-core.ts has the measure). Either way the
 * session asks for a choice when its view or what is resident changed,
 * and takes the newest one finished each frame: in a worker, the frame
 * after it was asked for, while the camera keeps moving. DOM-free but for
 * the page's worker, which the page's openings start (pageChoiceWorker).
 */
import type { LodIndex } from '../../io/lod/lod-meta';
import type { LodOutline } from '../../io/lod/lod-outline';
import type { LodChoice, LodChoiceOptions, WorldView } from './world-choice-types';
import { FILE_FAILED, FILE_RESIDENT, type ChoiceWorkerResponse, type ChosenMessage } from './world-choice-worker-core';
import type { ChoiceWorkerPort } from './world-choice-port';
import { createWorldView, worldChoice, type WorldChoice } from './world-lod';

export interface ChoiceRunner {
  /** The world's leaves. */
  readonly leaves: number;
  /** Asks for a choice from `view` (copied): replaces one asked for and not yet started. */
  ask(view: WorldView, options: LodChoiceOptions): void;
  /** The newest choice finished since the last call, or null; its lists are rewritten by the next choice taken. */
  take(): LodChoice | null;
  /** A choice asked for is not taken yet. */
  readonly busy: boolean;
  /** A choice finished out of turn (in a worker): take it at the next frame. */
  onReady: (() => void) | null;
  close(): void;
}

/** The choice in the caller's thread: take() returns what the last ask chose. */
export class InlineChoice implements ChoiceRunner {
  private readonly chooser: WorldChoice;
  private chosen: LodChoice | null = null;
  onReady: (() => void) | null = null;

  constructor(index: LodIndex) {
    this.chooser = worldChoice(index);
  }

  get leaves(): number {
    return this.chooser.leaves.length;
  }

  ask(view: WorldView, options: LodChoiceOptions): void {
    this.chosen = this.chooser.choose(view, options);
  }

  take(): LodChoice | null {
    const chosen = this.chosen;
    this.chosen = null;
    return chosen;
  }

  get busy(): boolean {
    return this.chosen !== null;
  }

  close(): void {}
}

/** What a choice in a worker needs of a world. */
export interface ChoiceWorld {
  /** Its leaves' runs, which this thread's choices list. */
  readonly outline: LodOutline;
  /** The index's text, which the worker reads; where absent, the worker is sent the index's objects. */
  readonly indexText?: string;
  /** The index: read only where the worker fails and the choice moves to this thread (a reader may parse it only then). */
  readonly index: LodIndex;
}

/**
 * The choice in a worker: one asked at a time, the newest view waiting
 * for the answer (views asked between are skipped: only the latest
 * matters). Where the worker fails (it cannot start, or a choice throws),
 * the choice moves to this thread for the rest of the world, and the
 * last choice asked for is made there.
 */
export class WorkerChoice implements ChoiceRunner {
  readonly leaves: number;
  /** The outline's levels: a worker's answer (leaf and level pairs) is read as run numbers laid out by them. */
  private readonly levels: number;
  /** The files' states sent with a choice; transferred to the worker and back with its answer, so a choice allocates none. */
  private files: Uint8Array;
  private readonly result: LodChoice;
  /** The view and options asked for last (the view copied), and whether they wait to be sent. */
  private readonly view = createWorldView();
  private options: LodChoiceOptions | null = null;
  private waiting = false;
  private inFlight = false;
  private answer: ChosenMessage | null = null;
  /** Where the choice went after the worker failed. */
  private inline: InlineChoice | null = null;
  /** What the choice made there at once threw: given to the next take, in the frame, where the viewer reports it. */
  private failure: unknown = null;
  onReady: (() => void) | null = null;

  /**
   * The worker reads the index's text where `world` has it: this thread
   * copies a string rather than serialize the index's objects one by one:
   * for a world of 20,480 leaves (Node, v8.serialize, 2 cores) 171-191 ms
   * of this thread, a long task when the world opens, where its 7.4 MB of
   * text took 1-21 ms. This thread reads the runs in the outline; the index
   * itself is read only if the choice moves here.
   */
  constructor(private readonly world: ChoiceWorld, private readonly worker: ChoiceWorkerPort) {
    const { outline } = world;
    this.leaves = outline.leaves;
    this.levels = outline.levels;
    this.files = new Uint8Array(outline.filenames.length);
    this.result = { draw: [], drawnSplats: 0, wanted: new Int32Array(this.leaves), wantedSplats: 0, thresholdPx: 0, leftOut: 0, fetch: [] };
    worker.onmessage = (event) => this.answered(event.data);
    worker.onerror = (event) => {
      event.preventDefault();
      this.failOver();
    };
    worker.postMessage(world.indexText === undefined ? { type: 'open', index: world.index } : { type: 'open', text: world.indexText });
  }

  ask(view: WorldView, options: LodChoiceOptions): void {
    if (this.inline) return this.inline.ask(view, options);
    const copy = this.view;
    copy.eye[0] = view.eye[0]!;
    copy.eye[1] = view.eye[1]!;
    copy.eye[2] = view.eye[2]!;
    copy.planes.set(view.planes);
    copy.pixelsPerUnit = view.pixelsPerUnit;
    copy.screenPixels = view.screenPixels;
    this.options = options;
    this.waiting = true;
    if (!this.inFlight) this.send();
  }

  take(): LodChoice | null {
    if (this.failure !== null) {
      const failure = this.failure;
      this.failure = null;
      throw failure;
    }
    if (this.inline) return this.inline.take();
    const answer = this.answer;
    if (!answer) return null;
    this.answer = null;
    const result = this.result;
    result.draw.length = answer.draw.length / 2;
    for (let i = 0; i < result.draw.length; i++) result.draw[i] = answer.draw[2 * i]! * this.levels + answer.draw[2 * i + 1]!;
    result.wanted.set(answer.wanted);
    result.fetch.length = answer.fetch.length;
    for (let i = 0; i < answer.fetch.length; i++) result.fetch[i] = answer.fetch[i]!;
    result.drawnSplats = answer.drawnSplats;
    result.wantedSplats = answer.wantedSplats;
    result.thresholdPx = answer.thresholdPx;
    result.leftOut = answer.leftOut;
    return result;
  }

  get busy(): boolean {
    return this.inline ? this.inline.busy : this.waiting || this.inFlight || this.answer !== null;
  }

  close(): void {
    this.worker.terminate();
    this.inline?.close();
  }

  /** Sends the choice asked for last, with the files' states now (fresher than when it was asked). */
  private send(): void {
    const options = this.options!;
    // Detached only if an answer came back without it (a worker of another build): then made again.
    if (this.files.byteLength === 0) this.files = new Uint8Array(this.world.outline.filenames.length);
    const files = this.files;
    for (let f = 0; f < files.length; f++) files[f] = (options.resident(f) ? FILE_RESIDENT : 0) | (options.failed?.(f) ? FILE_FAILED : 0);
    const { thresholdPx, budget, budgetPolicy } = options;
    this.waiting = false;
    this.inFlight = true;
    this.worker.postMessage({ type: 'choose', view: this.view, options: { thresholdPx, budget, budgetPolicy }, files }, [files.buffer]);
  }

  private answered(message: ChoiceWorkerResponse): void {
    if (this.inline) return;
    if (message.files) this.files = message.files;
    if (message.type === 'error') return this.failOver();
    this.inFlight = false;
    this.answer = message;
    if (this.waiting) this.send();
    this.onReady?.();
  }

  private failOver(): void {
    if (this.inline) return;
    this.worker.terminate();
    this.inline = new InlineChoice(this.world.index);
    try {
      if (this.options) this.inline.ask(this.view, this.options);
    } catch (error) {
      // Not asked again until the view or the files change: with a still camera, only take() can say it.
      this.failure = error;
    }
    this.onReady?.();
  }
}
