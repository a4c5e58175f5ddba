/**
 * The chunks of a Streamed SOG world on their way in and out
 * (docs/streamed-worlds-design.md, part 3): a bounded number of fetches in
 * flight, started in the order the choice (world-lod.ts) lists them and
 * cancelled as soon as the list no longer has them; arrivals kept under a
 * memory budget, the least recently drawn going first and never one drawn
 * in the latest frame; a chunk that fails is left out (its leaves keep
 * their coarser level) and named once. What a chunk is, and how it is
 * fetched and decoded, is the caller's (`ChunkSource`): here it is a
 * value with a size. DOM-free.
 */

export interface ChunkSource<T> {
  /** Fetches and decodes chunk file `file`; rejects with an AbortError once `signal` aborts. */
  load(file: number, signal: AbortSignal): Promise<{ chunk: T; bytes: number }>;
  /** The memory a chunk holds while resident (its GPU buffers). */
  heldBytes(chunk: T): number;
  /** Called when a chunk leaves (evicted): free what it holds. */
  release(chunk: T): void;
}

export interface StreamOptions {
  /** Fetches in flight at most. */
  maxInFlight: number;
  /** The most memory resident chunks hold (heldBytes summed). */
  memoryBudget: number;
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

interface Resident<T> {
  chunk: T;
  held: number;
  /** The latest frame that drew it (the least recent goes first). */
  lastDrawn: number;
}

export class ChunkStream<T> {
  private readonly resident = new Map<number, Resident<T>>();
  private readonly inFlight = new Map<number, AbortController>();
  private readonly failed = new Map<number, string>();
  private wanted: readonly number[] = [];
  private frame = 0;
  private held = 0;
  private counts = { chunksLoaded: 0, bytesLoaded: 0, evicted: 0, cancelled: 0 };
  private closed = false;

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
   * used, and starts the wanted ones that fit in flight.
   */
  update(wanted: readonly number[], drawn: Iterable<number>): void {
    this.frame++;
    this.wanted = wanted;
    for (const file of drawn) {
      const r = this.resident.get(file);
      if (r) r.lastDrawn = this.frame;
    }
    const keep = new Set(wanted);
    for (const [file, controller] of this.inFlight) {
      if (keep.has(file)) continue;
      controller.abort();
      this.inFlight.delete(file);
      this.counts.cancelled++;
    }
    this.startFetches();
  }

  isResident(file: number): boolean {
    return this.resident.has(file);
  }

  chunk(file: number): T | undefined {
    return this.resident.get(file)?.chunk;
  }

  get progress(): StreamProgress {
    return { ...this.counts, resident: this.resident.size, heldBytes: this.held, inFlight: this.inFlight.size, failed: this.failed };
  }

  /** Cancels every fetch and releases every chunk. */
  close(): void {
    this.closed = true;
    for (const controller of this.inFlight.values()) controller.abort();
    this.inFlight.clear();
    for (const r of this.resident.values()) this.source.release(r.chunk);
    this.resident.clear();
    this.held = 0;
  }

  private startFetches(): void {
    for (const file of this.wanted) {
      if (this.closed || this.inFlight.size >= this.options.maxInFlight) return;
      if (this.resident.has(file) || this.inFlight.has(file) || this.failed.has(file)) continue;
      const controller = new AbortController();
      this.inFlight.set(file, controller);
      this.source.load(file, controller.signal).then(
        ({ chunk, bytes }) => this.arrived(file, controller, chunk, bytes),
        (error: unknown) => this.failedWith(file, controller, error),
      );
    }
  }

  private arrived(file: number, controller: AbortController, chunk: T, bytes: number): void {
    // A fetch cancelled (or closed) after its bytes were in: not wanted any more.
    if (this.inFlight.get(file) !== controller) {
      this.source.release(chunk);
      return;
    }
    this.inFlight.delete(file);
    const held = this.source.heldBytes(chunk);
    this.resident.set(file, { chunk, held, lastDrawn: 0 });
    this.held += held;
    this.counts.chunksLoaded++;
    this.counts.bytesLoaded += bytes;
    this.evictOver(file);
    this.onArrive?.(file);
    this.startFetches();
  }

  private failedWith(file: number, controller: AbortController, error: unknown): void {
    if (this.inFlight.get(file) !== controller) return; // cancelled: not a failure
    this.inFlight.delete(file);
    const reason = error instanceof Error ? error.message : String(error);
    this.failed.set(file, reason);
    this.onFail?.(file, reason);
    this.startFetches();
  }

  /**
   * Evicts the least recently drawn chunks (never `arrived`, never one drawn
   * in the latest frame) until under the budget. Where what is drawn alone
   * passes the budget the arrival is kept all the same: the choice asked for
   * it, and its splat budget is what bounds the drawn chunks.
   */
  private evictOver(arrived: number): void {
    if (this.held <= this.options.memoryBudget) return;
    const candidates = [...this.resident].filter(([file, r]) => file !== arrived && r.lastDrawn < this.frame).sort((a, b) => a[1].lastDrawn - b[1].lastDrawn);
    for (const [file, r] of candidates) {
      if (this.held <= this.options.memoryBudget) return;
      this.resident.delete(file);
      this.held -= r.held;
      this.counts.evicted++;
      this.source.release(r.chunk);
    }
  }
}
