/**
 * Main-thread API for loading splat scenes: hands files, URLs or bytes to the
 * load worker, which streams and parses them, and resolves with the parsed
 * SplatCloud. DOM-free.
 */
import type { SplatCloud } from '../scene/splat-cloud';
import type { LoadRequest, LoadResponse, LoadStage } from './load-worker';
import { SplatFormatError } from './format-error';

export type { LoadStage };
export type LoadProgress = (p: { stage: LoadStage; fraction: number }) => void;
interface Pending {
  resolve: (cloud: SplatCloud) => void;
  reject: (error: Error) => void;
  onProgress: LoadProgress | undefined;
}

/** Rebuilds the worker's error on this side, keeping SplatFormatError recognisable. */
function toError(message: string, name: string): Error {
  if (name === 'SplatFormatError') return new SplatFormatError(message);
  const error = new Error(message);
  error.name = name;
  return error;
}

export class SplatLoader {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  /**
   * Loads a scene. Strings and URLs are fetched by the worker (relative ones
   * resolve against the page). A File is read by the worker as a stream;
   * several Files are a SOG meta.json with its images. An
   * ArrayBuffer is transferred to the worker, so the caller's buffer is
   * detached afterwards.
   */
  async load(source: File | File[] | URL | string | ArrayBuffer, onProgress?: LoadProgress): Promise<SplatCloud> {
    const id = this.nextId++;
    let request: LoadRequest;
    if (source instanceof ArrayBuffer) {
      request = { id, buffer: source, name: 'buffer' };
    } else if (typeof source === 'string' || source instanceof URL) {
      // The worker's own URL would be the base for relative paths; use the page's.
      const base = (globalThis as { location?: { href: string } }).location?.href;
      request = { id, url: new URL(source, base).href };
    } else {
      request = Array.isArray(source) ? { id, files: source } : { id, file: source };
    }
    const worker = this.ensureWorker();
    return new Promise<SplatCloud>((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onProgress });
      worker.postMessage(request, 'buffer' in request ? [request.buffer] : []);
    });
  }

  /** Stops the worker; loads still in flight reject. */
  dispose(): void {
    this.worker?.terminate();
    this.worker = undefined;
    this.failAll(new Error('SplatLoader was disposed before the load finished'));
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    // This exact form lets vite find and bundle the worker module.
    const worker = new Worker(new URL('./load-worker.ts', import.meta.url), { type: 'module' });
    worker.onmessage = (event: MessageEvent<LoadResponse>) => this.receive(event.data);
    worker.onerror = (event: ErrorEvent) => {
      // The worker script itself failed (e.g. did not load): nothing in flight can finish.
      event.preventDefault();
      this.worker?.terminate();
      this.worker = undefined;
      this.failAll(new Error(`Splat load worker failed: ${event.message || 'could not start'}`));
    };
    this.worker = worker;
    return worker;
  }

  private receive(message: LoadResponse): void {
    const pending = this.pending.get(message.id);
    if (!pending) return;
    if (message.type === 'progress') {
      pending.onProgress?.({ stage: message.stage, fraction: message.fraction });
      return;
    }
    this.pending.delete(message.id);
    if (message.type === 'done') pending.resolve(message.cloud);
    else pending.reject(toError(message.message, message.name));
  }

  private failAll(error: Error): void {
    const all = [...this.pending.values()];
    this.pending.clear();
    for (const p of all) p.reject(error);
  }
}
