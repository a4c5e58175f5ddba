/**
 * A Streamed SOG world whose chunks are read and decoded by Web Workers
 * (world-worker.ts), for the page: the first worker sends the index it
 * read, the others open the world beside it, and each chunk goes to the
 * worker with the fewest reads waiting. Cancelling a read tells its
 * worker; closing the world ends the workers.
 */
import type { SplatCloud } from '../scene/splat-cloud';
import type { LoadLimits } from './load-limits';
import type { LodIndex } from './lod/lod-meta';
import type { WorldSourceSpec, WorldWorkerRequest, WorldWorkerResponse } from './world-worker';
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
  readonly index: LodIndex;
  readonly usedSplats: Uint32Array;
  readChunk(file: number, signal?: AbortSignal): Promise<{ cloud: SplatCloud; bytes: number }>;
  close(): void;
}

interface Pending {
  resolve: (chunk: { cloud: SplatCloud; bytes: number }) => void;
  reject: (error: unknown) => void;
}

class ChunkWorker {
  readonly pending = new Map<number, Pending>();
  private readonly worker = new Worker(new URL('./world-worker.ts', import.meta.url), { type: 'module' });
  readonly opened: Promise<Extract<WorldWorkerResponse, { type: 'opened' }>>;

  constructor(source: WorldSourceSpec, limits: LoadLimits, sendIndex: boolean) {
    this.opened = new Promise((resolve, reject) => {
      this.worker.onmessage = (event: MessageEvent<WorldWorkerResponse>) => {
        const message = event.data;
        if (message.type === 'opened') resolve(message);
        else if (message.type === 'error' && message.id === null) reject(rebuildError(message.message, message.name));
        else this.answer(message);
      };
      this.worker.onerror = (event: ErrorEvent) => {
        event.preventDefault();
        const error = new Error(`the world's worker failed: ${event.message || 'could not start'}`);
        reject(error);
        for (const p of this.pending.values()) p.reject(error);
        this.pending.clear();
      };
    });
    this.post({ type: 'open', source, limits, sendIndex });
  }

  post(request: WorldWorkerRequest): void {
    this.worker.postMessage(request);
  }

  private answer(message: WorldWorkerResponse): void {
    if (message.type === 'opened' || message.id === null) return;
    const pending = this.pending.get(message.id);
    if (!pending) return;
    this.pending.delete(message.id);
    if (message.type === 'chunk') pending.resolve({ cloud: message.cloud, bytes: message.bytes });
    else pending.reject(rebuildError(message.message, message.name));
  }

  terminate(): void {
    this.worker.terminate();
    const closed = new DOMException('the world was closed', 'AbortError');
    for (const p of this.pending.values()) p.reject(closed);
    this.pending.clear();
  }
}

/** Opens the world at `source` in WORLD_WORKERS workers; rejects (and ends them) if it cannot be opened or `signal` aborts. */
export async function openWorldInWorkers(source: WorldSourceSpec, options: { limits: LoadLimits; signal?: AbortSignal }): Promise<WorkerWorld> {
  const workers = Array.from({ length: WORLD_WORKERS }, (_, w) => new ChunkWorker(source, options.limits, w === 0));
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
  return {
    name: first.name,
    index: first.index!,
    usedSplats: first.usedSplats!,
    close,
    readChunk(file, signal) {
      const worker = workers.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
      const id = nextId++;
      return new Promise((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        worker.pending.set(id, { resolve, reject });
        signal?.addEventListener('abort', () => {
          if (!worker.pending.delete(id)) return;
          worker.post({ type: 'cancel', id });
          reject(signal.reason);
        }, { once: true });
        worker.post({ type: 'read', id, file });
      });
    },
  };
}
