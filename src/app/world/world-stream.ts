/**
 * The chunks of a Streamed SOG world on their way in and out
 * (docs/streamed-worlds-design.md, part 3): a bounded number of fetches in
 * flight, started in the order the choice (world-lod.ts) lists them and
 * cancelled as soon as the list no longer has them; arrivals kept under a
 * memory budget, the least recently drawn going first and never one drawn
 * in the latest frame; a chunk that fails, or whose read has not settled
 * after CHUNK_TIMEOUT_MS, is left out (its leaves keep their coarser
 * level) and named once. What a chunk is, and how it is
 * fetched and decoded, is the caller's (`ChunkSource`): here it is a
 * value with a size. DOM-free.
 */

export interface ChunkSource<T> {
  /**
   * Fetches and decodes chunk file `file`, then places it (on the GPU);
   * rejects with an AbortError once `signal` aborts. `readEnded`, called
   * once its bytes are read and decoded, stops the read's timeout: the
   * placing that follows waits for frames (world-uploads.ts), which a
   * hidden page does not draw, and a chunk must not be given up as stalled
   * for that.
   */
  load(file: number, signal: AbortSignal, readEnded: () => void): Promise<{ chunk: T; bytes: number }>;
  /** The memory a chunk holds while resident (its GPU buffers). */
  heldBytes(chunk: T): number;
  /**
   * What chunk `file` will hold once arrived, known before it is fetched
   * (a world's index says how many splats each chunk's runs use): room is
   * made for it, and kept while it is in flight, before its fetch starts.
   */
  expectedHeld(file: number): number;
  /** Called when a chunk leaves (evicted): free what it holds. */
  release(chunk: T): void;
}

/**
 * How long a chunk's read (its fetch and its decoding) may take before it
 * is given up and named as failed: 60 s. A chunk of splat-transform's
 * default 512K splats is about 6.5 MB at the 12.4 bytes a splat of the
 * worlds built here (docs/streamed-worlds-design.md), 52 s at 1 Mbit/s,
 * and decodes in a second or two; a read that has not settled by then is
 * a server, disk or mount that stalls or trickles, and holds a place in
 * flight (and the room made for it) that other chunks need.
 */
export const CHUNK_TIMEOUT_MS = 60_000;

/** Starts a timer that calls `fire` after `ms` milliseconds; returns what stops it. */
export type StartTimer = (ms: number, fire: () => void) => () => void;

/** The default StartTimer: setTimeout. */
export const startTimeout: StartTimer = (ms, fire) => {
  const timer = setTimeout(fire, ms);
  return () => clearTimeout(timer);
};

export interface StreamOptions {
  /** Fetches in flight at most. */
  maxInFlight: number;
  /** The memory resident chunks keep to (heldBytes summed), with those in flight (expectedHeld): past it, the least recently drawn go. */
  memoryBudget: number;
  /**
   * The most they may ever hold (default: the budget). Between the two,
   * only the most needed file is fetched, when nothing can go: the room
   * that lets a coarser level in while the finer ones it replaces are
   * still drawn (they would otherwise never stop being drawn).
   */
  memoryLimit?: number;
  /** How long a chunk's read may take before it is given up (default CHUNK_TIMEOUT_MS). */
  timeoutMs?: number;
  /** The clock that times reads out (default setTimeout; the tests give one they move by hand). */
  startTimer?: StartTimer;
}

/**
 * What a source's load rejects with when the chunk arrived but found no
 * room (it is not a failure of the chunk: it is asked for again later).
 */
export class ChunkNoRoomError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChunkNoRoomError';
  }
}

export interface StreamProgress {
  /** Chunks that arrived, and the bytes fetched for them, since the world opened. */
  chunksLoaded: number;
  bytesLoaded: number;
  resident: number;
  heldBytes: number;
  inFlight: number;
  evicted: number;
  cancelled: number;
  /** Chunk files that failed, with why. */
  failed: ReadonlyMap<number, string>;
}

interface InFlight {
  controller: AbortController;
  /** What it will hold (room kept for it). */
  expected: number;
  /** Stops its timeout. */
  stopTimer: () => void;
}

interface Resident<T> {
  chunk: T;
  held: number;
  /** The latest frame that drew it (the least recent goes first). */
  lastDrawn: number;
}

export class ChunkStream<T> {
  private readonly resident = new Map<number, Resident<T>>();
  private readonly inFlight = new Map<number, InFlight>();
  private readonly failed = new Map<number, string>();
  private wanted: readonly number[] = [];
  private readonly spare = new Set<number>();
  private frame = 0;
  private held = 0;
  private counts = { chunksLoaded: 0, bytesLoaded: 0, evicted: 0, cancelled: 0 };
  private closed = false;
  /** Counts arrivals, evictions and failures: what is resident, or can be, changed since a caller last saw this value. */
  version = 0;

  /** Called with each chunk as it arrives (the caller may redraw), and with each failure. */
  onArrive: ((file: number) => void) | null = null;
  onFail: ((file: number, reason: string) => void) | null = null;

  constructor(
    private readonly source: ChunkSource<T>,
    private readonly options: StreamOptions,
  ) {}

  /**
   * One frame's news: the files the choice wants, most needed first, and the
   * files it draws. Cancels fetches no longer wanted, marks the drawn files
   * used, and starts the wanted ones that fit in flight. `spare`: drawn
   * files that only stand in, finer, for levels not resident: when even
   * the limit leaves no room for the most needed file, they go (their
   * leaves show nothing until it lands; without this they would hold the
   * room their own replacement needs for ever).
   */
  update(wanted: readonly number[], drawn: Iterable<number>, spare: Iterable<number> = []): void {
    this.spare.clear();
    for (const file of spare) this.spare.add(file);
    this.frame++;
    this.wanted = wanted;
    for (const file of drawn) {
      const r = this.resident.get(file);
      if (r) r.lastDrawn = this.frame;
    }
    // A few fetches in flight (maxInFlight) looked up in the list: no set made or refilled each frame
    // (a set of the wanted files took 0.70-0.77 MB over the world benchmark's path, sampled).
    for (const [file, { controller }] of this.inFlight) {
      if (wanted.includes(file)) continue;
      this.settle(file);
      controller.abort();
      this.counts.cancelled++;
    }
    // Back under the budget once what passed it is no longer drawn.
    this.makeRoom(0);
    this.startFetches();
  }

  isResident(file: number): boolean {
    return this.resident.has(file);
  }

  /** Whether chunk file `file` failed (it is not asked for again). */
  hasFailed(file: number): boolean {
    return this.failed.has(file);
  }

  chunk(file: number): T | undefined {
    return this.resident.get(file)?.chunk;
  }

  /** Chunks that arrived and their bytes (without the allocation of `progress`: read every frame). */
  get loaded(): { readonly chunksLoaded: number; readonly bytesLoaded: number } {
    return this.counts;
  }

  get inFlightCount(): number {
    return this.inFlight.size;
  }

  get progress(): StreamProgress {
    return { ...this.counts, resident: this.resident.size, heldBytes: this.held, inFlight: this.inFlight.size, failed: this.failed };
  }

  /** Cancels every fetch and releases every chunk. */
  close(): void {
    this.closed = true;
    for (const [file, { controller }] of this.inFlight) {
      this.settle(file);
      controller.abort();
    }
    for (const r of this.resident.values()) this.source.release(r.chunk);
    this.resident.clear();
    this.held = 0;
  }

  /** Changes the fetches in flight at most (from the next fetch on). */
  setMaxInFlight(n: number): void {
    this.options.maxInFlight = n;
  }

  /** Changes the memory budget and limit (from the next update or fetch on). */
  setMemoryBudget(budget: number, limit = budget): void {
    this.options.memoryBudget = budget;
    this.options.memoryLimit = limit;
  }

  private startFetches(): void {
    let first = true;
    for (const file of this.wanted) {
      if (this.closed || this.inFlight.size >= this.options.maxInFlight) return;
      if (this.resident.has(file) || this.inFlight.has(file) || this.failed.has(file)) continue;
      const expected = this.source.expectedHeld(file);
      const fits = this.makeRoom(expected) || (first && this.inFlight.size === 0 && this.roomUnderLimit(expected));
      first = false;
      // The most needed file waits for room rather than letting less needed ones take it.
      if (!fits) return;
      const controller = new AbortController();
      const stopTimer = (this.options.startTimer ?? startTimeout)(this.options.timeoutMs ?? CHUNK_TIMEOUT_MS, () => this.timedOut(file, controller));
      this.inFlight.set(file, { controller, expected, stopTimer });
      this.source.load(file, controller.signal, stopTimer).then(
        ({ chunk, bytes }) => this.arrived(file, controller, chunk, bytes),
        (error: unknown) => this.failedWith(file, controller, error),
      );
    }
  }

  private arrived(file: number, controller: AbortController, chunk: T, bytes: number): void {
    // A fetch cancelled (or closed) after its bytes were in: not wanted any more.
    if (this.inFlight.get(file)?.controller !== controller) {
      this.source.release(chunk);
      return;
    }
    this.settle(file);
    const held = this.source.heldBytes(chunk);
    // Counted as drawn in the latest frame: kept until the choice has seen it.
    this.resident.set(file, { chunk, held, lastDrawn: this.frame });
    this.held += held;
    this.counts.chunksLoaded++;
    this.counts.bytesLoaded += bytes;
    this.version++;
    this.evictOver(file);
    this.onArrive?.(file);
    this.startFetches();
  }

  private failedWith(file: number, controller: AbortController, error: unknown): void {
    if (this.inFlight.get(file)?.controller !== controller) return; // cancelled or given up: said already
    this.settle(file);
    if (error instanceof ChunkNoRoomError) return; // asked for again by a later update
    this.fail(file, error instanceof Error ? error.message : String(error));
  }

  /** A read that has not settled in time: cancelled, and failed (its late arrival is released, its error ignored). */
  private timedOut(file: number, controller: AbortController): void {
    if (this.inFlight.get(file)?.controller !== controller) return;
    this.settle(file);
    const seconds = (this.options.timeoutMs ?? CHUNK_TIMEOUT_MS) / 1000;
    const reason = `given up after ${seconds.toLocaleString('en-US')} s: its read had not finished (a server or disk that stalls or trickles)`;
    controller.abort(new DOMException(reason, 'TimeoutError'));
    this.fail(file, reason);
  }

  private fail(file: number, reason: string): void {
    this.failed.set(file, reason);
    // The choice asks for another level in its place.
    this.version++;
    this.onFail?.(file, reason);
    this.startFetches();
  }

  /** No longer in flight: its room and its place are free, its timer stopped. */
  private settle(file: number): void {
    this.inFlight.get(file)?.stopTimer();
    this.inFlight.delete(file);
  }

  /**
   * Evicts the least recently drawn chunks (never one drawn in the latest
   * frame, nor `keep`) until what is resident, and what is in flight will
   * be, leaves `room` under the budget. False when it cannot.
   */
  private makeRoom(room: number, keep = -1): boolean {
    const over = () => this.held + this.reserved() + room > this.options.memoryBudget;
    if (!over()) return true;
    const candidates = [...this.resident].filter(([file, r]) => file !== keep && r.lastDrawn < this.frame).sort((a, b) => a[1].lastDrawn - b[1].lastDrawn);
    for (const [file, r] of candidates) {
      if (!over()) return true;
      this.evict(file, r);
    }
    return !over();
  }

  /** Whether `room` fits under the limit, evicting spare drawn files (least recently drawn first) if it must. */
  private roomUnderLimit(room: number): boolean {
    const limit = this.options.memoryLimit ?? this.options.memoryBudget;
    if (this.held + room <= limit) return true;
    const spare = [...this.resident].filter(([file]) => this.spare.has(file)).sort((a, b) => a[1].lastDrawn - b[1].lastDrawn);
    for (const [file, r] of spare) {
      if (this.held + room <= limit) break;
      this.evict(file, r);
    }
    return this.held + room <= limit;
  }

  private evict(file: number, r: Resident<T>): void {
    this.resident.delete(file);
    this.held -= r.held;
    this.counts.evicted++;
    this.version++;
    this.source.release(r.chunk);
  }

  /** What the fetches in flight will hold. */
  private reserved(): number {
    let sum = 0;
    for (const { expected } of this.inFlight.values()) sum += expected;
    return sum;
  }

  /**
   * After an arrival: evicts as makeRoom does. Where what is drawn alone
   * passes the budget the arrival is kept all the same: the choice asked
   * for it, and its splat budget is what bounds the drawn chunks.
   */
  private evictOver(arrived: number): void {
    this.makeRoom(0, arrived);
  }
}
