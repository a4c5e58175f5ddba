/**
 * A world's environment (the index's `environment`: a SOG scene of sky
 * and far background that splat-transform writes apart from the chunks,
 * from the splats tagged level -1). It has no levels and no place in the
 * tree, so it is read once when the world opens and drawn whole, every
 * frame, beside the chosen runs: the session (world-session.ts) gives it
 * pages of the pool before any chunk, and its splats count against the
 * frame's budget (see `chunkBudget`). DOM-free.
 */
import type { ShDegree } from '../../scene/splat-cloud';
import type { PoolSplats } from '../../scene/splat-packing';
import type { PooledRun, SplatPool } from '../../scene/splat-pool';
import { CHUNK_TIMEOUT_MS, startTimeout, type StartTimer } from './world-stream';

/** How the environment is read: a world's files (WorldChunks.readEnvironment). */
export type ReadEnvironment = (signal: AbortSignal) => Promise<{ cloud: PoolSplats; bytes: number } | null>;

export class WorldEnvironment {
  /** Settles once the read has (arrived, failed, or there is none): the pool waits for it, to be sized with it. */
  readonly read: Promise<void>;
  private cloud: PoolSplats | null = null;
  private count = 0;
  /** Its run in the pool once placed, drawn every frame. */
  private placed: PooledRun | null = null;
  private reading: boolean;
  /** Bytes read for it. */
  bytes = 0;

  /**
   * Starts reading through `readEnvironment` (none: a world without one)
   * until `signal` aborts; `arrived` is called once its splats can be
   * placed, `failed` with why it cannot be read (the world draws on
   * without it). A read not settled after CHUNK_TIMEOUT_MS is given up as
   * a chunk's is: the first chunk waits for it, and it started first, so
   * a stalled environment holds the world back no longer than a stalled
   * chunk would.
   */
  constructor(
    readEnvironment: ReadEnvironment | null,
    signal: AbortSignal,
    arrived: () => void,
    private readonly failed: (why: string) => void,
    startTimer: StartTimer = startTimeout,
  ) {
    this.reading = readEnvironment !== null;
    const reading = new AbortController();
    const stop = () => reading.abort(signal.reason);
    signal.addEventListener('abort', stop, { once: true });
    let done = (): void => {};
    let cancelTimer = (): void => {};
    this.read = new Promise<void>((resolve) => (done = resolve));
    /** Ends the read once, whichever comes first: its result, its failure, or the timer. */
    const settle = (why: string | null, read: { cloud: PoolSplats; bytes: number } | null): void => {
      if (!this.reading) return;
      this.reading = false;
      cancelTimer();
      signal.removeEventListener('abort', stop);
      if (why !== null) {
        // Unless the world closed, which needs no word.
        if (!signal.aborted) failed(why);
      } else if (read) {
        this.cloud = read.cloud;
        this.count = read.cloud.count;
        this.bytes = read.bytes;
        arrived();
      }
      done();
    };
    if (!readEnvironment) done();
    else {
      cancelTimer = startTimer(CHUNK_TIMEOUT_MS, () => {
        reading.abort(new DOMException('the environment was given up', 'TimeoutError'));
        settle(`not read after ${CHUNK_TIMEOUT_MS / 1000} s`, null);
      });
      readEnvironment(reading.signal).then(
        (read) => settle(null, read),
        (error: unknown) => settle(error instanceof Error ? error.message : String(error), null),
      );
    }
  }

  /** Its read is still on its way. */
  get pending(): boolean {
    return this.reading;
  }

  /** The SH degree of its splats while they wait for a pool (null: none wait). */
  get waitingShDegree(): ShDegree | null {
    return this.cloud?.shDegree ?? null;
  }

  /** Its splats (0 until it arrived). */
  get splats(): number {
    return this.count;
  }

  /** Writes its run in the pool into `into` (drawn every frame); false until it is placed. */
  copyRun(into: PooledRun): boolean {
    const run = this.placed;
    if (!run) return false;
    into.chunk = run.chunk;
    into.offset = run.offset;
    into.count = run.count;
    return true;
  }

  /** Splats drawn every frame: its own once it is in the pool. */
  get drawn(): number {
    return this.placed?.count ?? 0;
  }

  /**
   * Writes its splats into `pool` once it has arrived (once; the pool is
   * sized with room for them). Where the pool cannot hold them, says so
   * (`failed`) and the world is drawn without it.
   */
  place(pool: SplatPool): void {
    const cloud = this.cloud;
    if (!cloud) return;
    // Its splats go to the GPU or nowhere: the cloud is not kept.
    this.cloud = null;
    const chunk = pool.add(cloud);
    if (chunk) this.placed = { chunk, offset: 0, count: chunk.count };
    else this.failed(`no room in the pool for the environment's ${cloud.count.toLocaleString('en-US')} splats`);
  }
}

/**
 * The splats the chosen runs may take under `budget` beside an
 * environment of `environment` splats drawn every frame. The environment
 * counts against the budget: the budget bounds a frame's cost (the
 * projector, the sort and the raster are sized by it), and the
 * environment's splats are projected, sorted and blended every frame like
 * any chunk's. An environment as large as the budget leaves the chunks
 * none: it is still drawn whole (the frame is sized to hold it).
 */
export function chunkBudget(budget: number, environment: number): number {
  return Math.max(0, budget - environment);
}
