/**
 * An open Streamed SOG world (docs/streamed-worlds-design.md): the index's
 * leaves, the level choice (world-lod.ts; in a worker where the files
 * bring one: world-choice-runner.ts), the chunk stream
 * (world-stream.ts) and the GPU page pool (src/scene/splat-pool.ts) held
 * together. Each frame the caller gives the camera; the session chooses
 * what to draw (only when the camera or what is resident changed), moves
 * fetches and evictions along, and marks the chosen runs drawn in the
 * pool, whose scene the frame draws like any other. DOM-free: the viewer,
 * the render command, the tests and the world benchmark share it.
 */
import type { CameraFile } from '../camera/camera-file';
import { createWorldView, frustumView, sameWorldView, worldView, type LodChoice, type WorldCamera, type WorldView } from './world-lod';
import { InlineChoice, WorkerChoice, type ChoiceRunner } from './world-choice-runner';
import { ChunkNoRoomError, ChunkStream, type StreamProgress } from './world-stream';
import { FailureNotices } from './world-failures';
import { LevelFades } from './world-fades';
import { runLeaf, spelledRuns, type SpelledRun } from './world-run-table';
import { DrawnFiles } from './world-drawn-files';
import { chunkBudget, WorldEnvironment } from './world-environment';
import { FADE_ROOM_SHARE, POOL_BUDGET_SHARE, poolCapacity, UPLOAD_BYTES_A_FRAME, WORLD_DEFAULTS, worldStagingBytes, type WorldSessionOptions } from './world-options';
import { UploadPacer } from './world-uploads';
import { PoolRuns } from './world-pool-runs';
import { DEFAULT_PAGE_SPLATS, SplatPool, type PooledChunk } from '../../scene/splat-pool';
import { chunkLayout, storageBufferLimit, type GpuSplats } from '../../scene/gpu-splats';
import type { ShDegree } from '../../scene/splat-cloud';
import { isPacked } from '../../scene/splat-packing';
import type { WorldChunks, WorldFrameFacts, WorldState } from './world-session-types';
import type { FrameSource } from '../frame/frame-source';

export type { WorldChunks, WorldFrameFacts, WorldState } from './world-session-types';

export class WorldSession implements FrameSource {
  /** A world's splats are not on the CPU: its frames sort on the GPU, every frame. */
  readonly positions = null;
  private readonly chooser: ChoiceRunner;
  private readonly resident = (file: number): boolean => this.stream.isResident(file);
  private readonly failed = (file: number): boolean => this.stream.hasFailed(file);
  /** Why the environment could not be read (null: it was, or is being read, or there is none). */
  private environmentFailure: string | null = null;
  /** Says the failures (onFailed). */
  private readonly failures = new FailureNotices(() => this.failedChunks, () => this.stream.inFlightCount, (news) => this.onFailed?.(news));
  private readonly stream: ChunkStream<PooledChunk>;
  private pool: SplatPool | null = null;
  /** The view chosen for last (null: choose again), and the one the next update fills (swapped when they differ). */
  private lastView: WorldView | null = null;
  private nextView = createWorldView();
  private spareView = createWorldView();
  private seenVersion = -1;
  private choice: LodChoice | null = null;
  private readonly facts: WorldFrameFacts = { drawnSplats: 0, wantedSplats: 0, thresholdPx: 0, leftOut: 0, waiting: 0, fading: 0, fadingSplats: 0, fadesCutShort: 0 };
  private readonly fades: LevelFades;
  /** The runs marked drawn in the pool, joined where they lie end to end. */
  private readonly poolRuns = new PoolRuns();
  /** An outgoing level whose chunk the stream gave up is not drawn (the choice's runs are resident). */
  private readonly chunkOf = (file: number): PooledChunk | undefined => this.stream.chunk(file);
  /** Reused by each choice: the files it draws, and those drawn only finer than wanted. */
  private readonly drawnFiles: DrawnFiles;
  private closed = false;
  /** Aborts the environment's read when the world closes. */
  private readonly closing = new AbortController();
  private readonly environment: WorldEnvironment;
  /** The stream has a choice to follow, in the world's own task (scheduled by update). */
  private streamPending = false;

  /** The time in ms that level fades follow (a benchmark or a test gives its own). */
  now: () => number = () => performance.now();
  /** The chunks' pages written a frame's room at a time. */
  private readonly uploads: UploadPacer;

  /** A chunk arrived, or failed (draw again). */
  onChange: (() => void) | null = null;
  /**
   * Chunks failed: those not said before, each named once as failedChunks
   * names it, together (world-failures.ts says when); their leaves are
   * drawn from the levels that loaded.
   */
  onFailed: ((failed: readonly string[]) => void) | null = null;

  constructor(
    private readonly device: GPUDevice,
    readonly files: WorldChunks,
    private options: WorldSessionOptions = WORLD_DEFAULTS,
  ) {
    this.chooser = files.choiceWorker ? new WorkerChoice(files, files.choiceWorker()) : new InlineChoice(files.index);
    this.chooser.onReady = () => this.onChange?.();
    this.uploads = new UploadPacer(options.uploadBytesAFrame ?? UPLOAD_BYTES_A_FRAME);
    this.fades = new LevelFades(files.outline, options.fadeMs);
    this.drawnFiles = new DrawnFiles(files.outline.filenames.length);
    this.stream = new ChunkStream<PooledChunk>(
      {
        load: (file, signal, readEnded) => this.load(file, signal, readEnded),
        heldBytes: (chunk) => chunk.pages.length,
        // Pages, not bytes: the pool's unit (its SH degree, hence bytes a page, is known at the first arrival).
        expectedHeld: (file) => this.pagesFor(files.usedSplats[file] ?? 0),
        release: (chunk) => this.pool?.remove(chunk),
      },
      // Until the first chunk makes the pool, the fetches in flight bound what arrives.
      // One at a time until then: decoding is the CPU's, and chunks decoded side by side all land late.
      { maxInFlight: 1, memoryBudget: Infinity },
    );
    // After the first chunk has landed, or failed, the usual number in flight.
    this.stream.onArrive = () => {
      this.stream.setMaxInFlight(this.options.maxInFlight);
      this.failures.readEnded();
      this.onChange?.();
    };
    this.stream.onFail = () => {
      this.stream.setMaxInFlight(this.options.maxInFlight);
      this.failures.chunkFailed();
      this.poolForEnvironment();
      this.onChange?.();
    };
    this.environment = new WorldEnvironment(
      files.readEnvironment?.bind(files) ?? null,
      this.closing.signal,
      () => {
        // Placed now where the pool is made, else when it is (makePool); drawn from the next choice on.
        if (this.pool) this.environment.place(this.pool);
        else this.poolForEnvironment();
        this.lastView = null;
        this.onChange?.();
      },
      (why) => {
        this.environmentFailure = `environment ${files.outline.environment}: ${why}`;
        this.failures.chunkFailed();
        this.onChange?.();
      },
    );
  }

  /** Draws at most `budget` splats from the next update on. */
  setBudget(budget: number): void {
    if (budget === this.options.budget) return;
    this.options = { ...this.options, budget };
    this.lastView = null;
  }

  /** Asks for at most `thresholdPx` pixels of error from the next update on. */
  setThreshold(thresholdPx: number): void {
    if (thresholdPx === this.options.thresholdPx) return;
    this.options = { ...this.options, thresholdPx };
    this.lastView = null;
  }

  /** Milliseconds this thread has spent writing chunk pages to the GPU since the world opened (world-uploads.ts). */
  get uploadWriteMs(): number { return this.uploads.writeMs; }

  /** The scene the frame draws: the pool (null until the first chunk arrived). */
  get scene(): GpuSplats | null {
    return this.pool?.scene ?? null;
  }

  /** The most splats a frame may draw (the setting). */
  get budget(): number {
    return this.options.budget;
  }

  /**
   * The most splats a frame draws: what the projector and the sort are
   * sized for. The budget (an environment past it is drawn whole), and
   * beside it the room for the outgoing levels of fades (FADE_ROOM_SHARE).
   */
  get maxDrawn(): number {
    const most = Math.max(this.options.budget, this.environment.drawn) + this.fadeRoom;
    return Math.min(most, this.pool?.scene.count ?? most);
  }

  /** Splats the outgoing levels of fades may draw beside the budget. */
  private get fadeRoom(): number {
    return this.options.fadeMs > 0 ? Math.ceil(FADE_ROOM_SHARE * this.options.budget) : 0;
  }

  /** Writes the panel's figures into `out` (every frame: nothing allocated). */
  describe(out: WorldState): void {
    out.budget = this.options.budget;
    out.drawnSplats = this.facts.drawnSplats;
    out.thresholdPx = this.facts.thresholdPx;
    out.chunks = this.files.outline.filenames.length;
    out.chunksLoaded = this.stream.loaded.chunksLoaded;
    out.bytesLoaded = this.stream.loaded.bytesLoaded + this.environment.bytes;
    out.chunksReady = this.drawnFiles.size;
    out.chunksWanted = this.choice?.fetch.length ?? 0;
    out.inFlight = this.stream.inFlightCount;
    out.gpuBytes = this.pool?.bytes ?? 0;
    out.settled = this.settled;
  }

  get progress(): StreamProgress & { chunks: number; gpuBytes: number } {
    return { ...this.stream.progress, chunks: this.files.outline.filenames.length, gpuBytes: this.pool?.bytes ?? 0 };
  }

  /** Each chunk file that failed, with why, naming it once: "chunk 0_1/meta.json: …" (and the environment, where it failed). */
  get failedChunks(): string[] {
    const out: string[] = this.environmentFailure === null ? [] : [this.environmentFailure];
    for (const [file, reason] of this.stream.progress.failed) {
      const name = `chunk ${this.files.outline.filenames[file]}`;
      // A chunk's reader names the chunk in its errors already (world-files.ts); the stream's own reasons do not.
      out.push(reason.startsWith(`${name}: `) ? reason : `${name}: ${reason}`);
    }
    return out;
  }

  /** The last update's choice (its lists are the chooser's, overwritten by the next update). */
  get frame(): WorldFrameFacts {
    return this.facts;
  }

  /** The runs the last update's choice draws, spelled out: made on each call, for a test or a tool to read, not a frame. */
  get drawnRuns(): SpelledRun[] {
    return spelledRuns(this.files.outline, this.choice?.draw ?? []);
  }

  /**
   * True when nothing is on its way and nothing more can start: the last
   * choice has all it asked for, or what it lacks failed or finds no room.
   * The picture will not change until the camera moves.
   */
  get settled(): boolean {
    return this.chunksSettled && !this.fades.active;
  }

  /** Nothing is on its way and nothing more can start (settled, but for level fades still under way). */
  get chunksSettled(): boolean {
    return this.choice !== null && !this.chooser.busy && !this.streamPending && this.stream.inFlightCount === 0 && this.seenVersion === this.stream.version && !this.environment.pending;
  }

  /**
   * Chooses for a camera file (the render command, the benchmarks) and
   * moves the stream along at once: fetches start before this returns.
   */
  updateCamera(camera: CameraFile): WorldFrameFacts {
    this.nextFrame();
    const chose = this.updateView(worldView(camera));
    this.followFades(chose);
    if (chose || this.streamPending) this.moveStream();
    return this.facts;
  }

  /**
   * A frame's update (FrameSource): chooses for its camera (when it or what
   * is resident changed since the last call) and marks the chosen runs
   * drawn. The fetches and evictions that follow are the world's own: they
   * run in a task of their own once the frame is recorded, not inside it.
   */
  update(frame: WorldCamera): WorldFrameFacts {
    this.nextFrame();
    const chose = this.updateView(frustumView(frame, this.nextView));
    this.followFades(chose);
    if (chose && !this.streamPending) {
      this.streamPending = true;
      queueMicrotask(this.moveStream);
    }
    return this.facts;
  }

  /** A frame begins: the pages written since the last go to the GPU before it draws them (one submit: staging-blocks.ts), and the uploads get its room (world-uploads.ts). */
  private nextFrame(): void {
    this.pool?.staging.flush();
    this.uploads.nextFrame();
  }

  /** The stream follows the last choice: fetches what it lacks, evicts what it no longer draws. */
  private readonly moveStream = (): void => {
    this.streamPending = false;
    const choice = this.choice;
    if (this.closed || !choice) return;
    this.stream.update(choice.fetch, this.drawnFiles.drawn, this.drawnFiles.spare);
  };

  /** Asks for a choice from `view` if anything changed, and takes the newest one finished (in a worker: a frame later); true if it took one. */
  private updateView(view: WorldView): boolean {
    if (this.closed) return false;
    if (!this.lastView || !sameWorldView(view, this.lastView) || this.seenVersion !== this.stream.version) {
      if (view === this.nextView) {
        // Kept as the last view; the next update fills the other one.
        [this.nextView, this.spareView] = [this.spareView, this.nextView];
      }
      this.lastView = view;
      this.seenVersion = this.stream.version;
      // The budget, not maxDrawn: the room beside it is the outgoing levels' alone (followFades).
      this.chooser.ask(view, { thresholdPx: this.options.thresholdPx, budget: chunkBudget(this.options.budget, this.environment.drawn), budgetPolicy: this.options.budgetPolicy, resident: this.resident, failed: this.failed });
    }
    const choice = this.chooser.take();
    if (!choice) return false;
    this.choice = choice;
    const drawnFiles = this.drawnFiles;
    drawnFiles.clear();
    let waiting = 0;
    const { levels, runFiles } = this.files.outline;
    for (let i = 0; i < choice.draw.length; i++) {
      const run = choice.draw[i]!;
      const leaf = runLeaf(run, levels);
      const level = run - leaf * levels;
      const wanted = choice.wanted[leaf]!;
      if (level !== wanted) waiting++;
      // Files drawn only finer than wanted (standing in for a coarser level on its way): spare.
      drawnFiles.add(runFiles[run]!, level < wanted);
    }
    const facts = this.facts;
    facts.drawnSplats = choice.drawnSplats + this.environment.drawn;
    facts.fading = 0;
    facts.fadingSplats = 0;
    facts.wantedSplats = choice.wantedSplats + this.environment.drawn;
    facts.thresholdPx = choice.thresholdPx;
    facts.leftOut = choice.leftOut;
    facts.waiting = waiting;
    return true;
  }

  /**
   * Marks drawn in the pool the runs the last choice draws, at their fades'
   * opacities, with the outgoing levels of the fades under way and the
   * environment: when the choice changed (`chose`), and while fades run,
   * whose opacities change with time alone.
   */
  private followFades(chose: boolean): void {
    const choice = this.choice;
    if (!choice || this.closed || (!chose && !this.fades.active)) return;
    const room = this.fadeRoom;
    const count = this.fades.update(choice.draw, this.now(), room);
    const faded = this.fades.runs;
    const { outline } = this.files;
    const facts = this.facts;
    facts.fadesCutShort += this.fades.cutShort;
    facts.fading = count - choice.draw.length;
    facts.fadingSplats = 0;
    for (let i = choice.draw.length; i < count; i++) {
      facts.fadingSplats += outline.runCounts[faded[i]!]!;
      // The outgoing levels stay resident while they fade: the stream keeps the files drawn.
      this.drawnFiles.add(outline.runFiles[faded[i]!]!, false);
    }
    facts.drawnSplats = choice.drawnSplats + this.environment.drawn + facts.fadingSplats;
    if (!this.pool) return;
    const n = this.poolRuns.fill(faded, this.fades.opacities, count, outline, this.chunkOf);
    const runs = this.poolRuns.records;
    const environment = runs[n]!;
    environment.opacity = 1;
    this.pool.setDrawn(runs, this.environment.copyRun(environment) ? n + 1 : n);
  }

  close(): void {
    this.closed = true;
    this.failures.close();
    this.closing.abort();
    this.chooser.close();
    this.uploads.close(new DOMException('the world was closed', 'AbortError'));
    this.stream.close();
    this.files.close?.();
    this.pool?.destroy();
    this.pool = null;
  }

  private async load(file: number, signal: AbortSignal, readEnded: () => void): Promise<{ chunk: PooledChunk; bytes: number }> {
    const { cloud, bytes } = await this.files.readChunk(file, signal);
    readEnded();
    // The pool is sized with the environment's room: the first chunk waits for it to be read.
    if (!this.pool) await this.environment.read;
    if (this.closed) throw new DOMException('the world was closed', 'AbortError');
    signal.throwIfAborted();
    const pool = (this.pool ??= this.makePool(cloud.shDegree));
    const chunk = pool.reserve(this.files.usedSplats[file] ?? cloud.count);
    if (!chunk) throw new ChunkNoRoomError(`no room in the pool for ${this.files.outline.filenames[file]}`);
    // Written or given up, the chunk's arrays go back to the reader, which packs the next chunks into them.
    await this.uploads.write(pool, chunk, cloud, signal).finally(() => isPacked(cloud) && this.files.recycle?.(cloud));
    return { chunk, bytes };
  }

  /**
   * Where chunks have failed and none is on its way before any made the
   * pool, the pool is made for the environment, which waits for it (when
   * the last fails, or when it arrives after them): a world whose chunks
   * all fail still draws its environment (at the environment's SH degree;
   * a chunk arriving later is written at it).
   */
  private poolForEnvironment(): void {
    const degree = this.environment.waitingShDegree;
    if (this.pool || this.closed || degree === null || this.stream.inFlightCount > 0 || this.stream.progress.failed.size === 0) return;
    this.pool = this.makePool(degree);
    this.lastView = null;
  }

  /** The pool, sized by the memory and the budget, at the SH degree of the first chunk (others are written at it). */
  private makePool(shDegree: ShDegree): SplatPool {
    const probe = chunkLayout(0, shDegree, Math.min(this.options.pool?.maxChunkBytes ?? Infinity, storageBufferLimit(this.device)));
    const capacity = poolCapacity(this.options, probe, storageBufferLimit(this.device), this.files.usedSplats, this.environment.splats);
    const pool = new SplatPool(this.device, capacity, shDegree, `World(${this.files.name})`, { ...this.options.pool, stagingBytes: worldStagingBytes(this.options) });
    this.files.packAt?.(shDegree);
    this.environment.place(pool);
    const chunkPages = pool.freePages;
    this.stream.setMemoryBudget(Math.floor(POOL_BUDGET_SHARE * chunkPages), chunkPages);
    return pool;
  }

  /** Pages a chunk of `splats` takes (before the pool is made: at the page size asked for). */
  private pagesFor(splats: number): number {
    return this.pool ? this.pool.pagesFor(splats) : Math.ceil(splats / (this.options.pool?.pageSplats ?? DEFAULT_PAGE_SPLATS));
  }
}
