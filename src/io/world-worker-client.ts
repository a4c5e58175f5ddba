/**
 * A Streamed SOG world whose chunks are read and decoded by workers: the
 * page's Web Workers (world-worker.ts), or the Node tools' worker threads
 * (world-worker-node-client.ts starts them). The first worker sends the
 * index it read, the others open the world beside it, and each chunk goes
 * to the worker with the fewest reads waiting, packed as the pool holds it
 * (at the pool's SH degree once the world has told it: packAt), so that
 * the main thread touches none of its splats. Cancelling a read tells its
 * worker; closing the world ends the workers. The room of decoded bytes
 * (decode-room.ts) is one for all the workers, here: a read takes what it
 * asks for before it decodes, and gives it back when its last message
 * arrives (its chunk handed over, its error, or its cancel seen through).
 */
import type { ShDegree } from '../scene/splat-cloud';
import type { PackedSplats } from '../scene/splat-packing';
import { DecodeRoom, decodeRoomFor } from './decode-room';
import type { LoadLimits } from './load-limits';
import { parseLodMeta, type LodIndex } from './lod/lod-meta';
import type { LodOutline } from './lod/lod-outline';
import type { WorldSourceSpec, WorldWorkerRequest, WorldWorkerResponse } from './world-worker-core';
import { rebuildError } from './splat-loader';

export type { WorldSourceSpec };

/**
 * Workers that decode chunks. Two keep a chunk decoding while the next is
 * read, and let two decode side by side on machines with the cores,
 * without taking every core from the page (each holds its own index).
 */
export const WORLD_WORKERS = 2;

export interface WorkerWorld {
  readonly name: string;
  /** What this thread reads of the index (lod-outline.ts). */
  readonly outline: LodOutline;
  /**
   * The index, parsed from its text when first asked for: only a level
   * choice in this thread reads it (where its worker failed). The tree's
   * objects are never sent here (lod-outline.ts has the measure). A
   * getter: a spread of the world reads it, and parses the index.
   */
  readonly index: LodIndex;
  /** The index's text, for a choice worker to read (world-choice-runner.ts). */
  readonly indexText: string;
  readonly usedSplats: Uint32Array;
  /** A chunk's used splats, packed. */
  readChunk(file: number, signal?: AbortSignal): Promise<PackedRead>;
  /** The index's environment scene, packed whole, or null where it names none. */
  readEnvironment(signal?: AbortSignal): Promise<PackedRead | null>;
  /** Packs the reads asked for from now on at SH degree `shDegree` (the pool's); before, each at its own. */
  packAt(shDegree: ShDegree): void;
  /**
   * Gives a read's arrays back to the workers once its splats are on the
   * GPU: they are transferred (detached here) and the next chunks packed
   * into them (recycled-buffers.ts says why).
   */
  recycle(splats: PackedSplats): void;
  close(): void;
  readonly decodedIn: 'workers';
}

/** A read's splats, packed, and the bytes read for them (named `cloud` as a decoded chunk's are: world-session.ts takes either). */
export interface PackedRead {
  cloud: PackedSplats;
  bytes: number;
}

/**
 * The main thread's side of a world worker's channel: a Web Worker as it
 * is; Node's worker threads adapted (world-worker-node-client.ts).
 */
export interface WorldWorkerPort {
  onmessage: ((event: { data: WorldWorkerResponse }) => void) | null;
  onerror: ((event: { message: string; preventDefault(): void }) => void) | null;
  postMessage(request: WorldWorkerRequest, transfer?: Transferable[]): void;
  terminate(): void;
}

/** The page's world worker (a module Web Worker: world-worker.ts). */
function pageWorker(): WorldWorkerPort {
  return new Worker(new URL('./world-worker.ts', import.meta.url), { type: 'module' }) as unknown as WorldWorkerPort;
}

interface Pending {
  resolve: (chunk: PackedRead) => void;
  reject: (error: unknown) => void;
  /** The read's signal: a read cancelled while it waits for room stops waiting. */
  signal: AbortSignal | undefined;
}

class ChunkWorker {
  readonly pending = new Map<number, Pending>();
  /** What gives back the room each read holds. */
  private readonly held = new Map<number, () => void>();
  readonly opened: Promise<Extract<WorldWorkerResponse, { type: 'opened' }>>;

  constructor(private readonly worker: WorldWorkerPort, source: WorldSourceSpec, limits: LoadLimits, sendIndex: boolean, private readonly room: DecodeRoom) {
    this.opened = new Promise((resolve, reject) => {
      this.worker.onmessage = (event) => {
        const message = event.data;
        if (message.type === 'opened') resolve(message);
        else if (message.type === 'error' && message.id === null) reject(rebuildError(message.message, message.name));
        else this.answer(message);
      };
      this.worker.onerror = (event) => {
        event.preventDefault();
        const error = new Error(`the world's worker failed: ${event.message || 'could not start'}`);
        reject(error);
        for (const p of this.pending.values()) p.reject(error);
        this.pending.clear();
        this.freeAll();
      };
    });
    this.post({ type: 'open', source, limits, sendIndex });
  }

  post(request: WorldWorkerRequest, transfer?: Transferable[]): void {
    this.worker.postMessage(request, transfer);
  }

  private answer(message: WorldWorkerResponse): void {
    if (message.type === 'opened' || message.id === null) return;
    const { id } = message;
    if (message.type === 'room') return this.giveRoom(id, message.bytes);
    const pending = this.pending.get(id);
    this.pending.delete(id);
    if (message.type === 'chunk') pending?.resolve({ cloud: message.packed, bytes: message.bytes });
    else if (message.type === 'error') pending?.reject(rebuildError(message.message, message.name));
    // The read's last message: its chunk is handed over (and uploaded as it lands), or it ended without one.
    this.held.get(id)?.();
    this.held.delete(id);
  }

  /** Read `id` asks for room: answered once it is given, or refused (a read cancelled meanwhile gets no answer: it has stopped). */
  private giveRoom(id: number, bytes: number): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.room.take(bytes, pending.signal).then(
      (giveBack) => {
        if (!this.pending.has(id)) return giveBack();
        this.held.set(id, giveBack);
        this.post({ type: 'room', id, refused: null });
      },
      (error: unknown) => {
        if (this.pending.has(id)) this.post({ type: 'room', id, refused: error instanceof Error ? error.message : String(error) });
      },
    );
  }

  private freeAll(): void {
    for (const giveBack of this.held.values()) giveBack();
    this.held.clear();
  }

  terminate(): void {
    this.worker.terminate();
    const closed = new DOMException('the world was closed', 'AbortError');
    for (const p of this.pending.values()) p.reject(closed);
    this.pending.clear();
    this.freeAll();
  }
}

/**
 * Opens the world at `source` in WORLD_WORKERS workers (`start` starts one:
 * the page's Web Worker unless told otherwise); rejects (and ends them) if
 * it cannot be opened or `signal` aborts.
 */
export async function openWorldInWorkers(source: WorldSourceSpec, options: { limits: LoadLimits; signal?: AbortSignal }, start: () => WorldWorkerPort = pageWorker): Promise<WorkerWorld> {
  const room = new DecodeRoom(decodeRoomFor(options.limits, true));
  const workers = Array.from({ length: WORLD_WORKERS }, (_, w) => new ChunkWorker(start(), source, options.limits, w === 0, room));
  const close = () => workers.forEach((w) => w.terminate());
  const aborted = new Promise<never>((_, reject) => {
    if (options.signal?.aborted) reject(options.signal.reason);
    options.signal?.addEventListener('abort', () => reject(options.signal!.reason), { once: true });
  });
  let first: Awaited<ChunkWorker['opened']>;
  try {
    [first] = await Promise.race([Promise.all(workers.map((w) => w.opened)), aborted]);
  } catch (error) {
    close();
    throw error;
  }
  let nextId = 1;
  let shDegree: ShDegree | null = null;
  // A chunk, or the environment, from the worker with the fewest reads waiting.
  const read = (file: number | 'environment', signal?: AbortSignal): Promise<PackedRead> => {
    const worker = workers.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
    const id = nextId++;
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      worker.pending.set(id, { resolve, reject, signal });
      signal?.addEventListener('abort', () => {
        if (!worker.pending.delete(id)) return;
        worker.post({ type: 'cancel', id });
        reject(signal.reason);
      }, { once: true });
      worker.post({ type: 'read', id, file, shDegree });
    });
  };
  let nextRecycled = 0;
  const outline = first.outline!;
  const indexText = first.indexText!;
  let index: LodIndex | null = null;
  return {
    name: first.name,
    outline,
    get index() {
      // The text the worker read and checked: it parses here the same.
      return (index ??= parseLodMeta(indexText, first.name));
    },
    indexText,
    usedSplats: first.usedSplats!,
    close,
    decodedIn: 'workers',
    readChunk: read,
    readEnvironment: async (signal) => (outline.environment === null ? null : read('environment', signal)),
    packAt: (degree) => {
      shDegree = degree;
    },
    recycle: (splats) => {
      const buffers = [splats.records.buffer, splats.sh.buffer].filter((b) => b.byteLength > 0);
      if (buffers.length === 0) return;
      // In turn, so each worker has buffers to pack into.
      workers[nextRecycled++ % workers.length]!.post({ type: 'recycle', buffers }, buffers);
    },
  };
}
