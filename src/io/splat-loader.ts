/**
 * Main-thread API for loading splat scenes: reads files, hands bytes or URLs
 * to the load worker and resolves with the parsed SplatCloud. DOM-free.
 */
import type { SplatCloud } from '../scene/splat-cloud';
import type { LoadRequest, LoadResponse } from './load-worker';
import { SplatFormatError } from './ply';

export type LoadStage = 'download' | 'parse' | 'read';
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

/** Reads a File into memory, reporting 'read' progress as the stream arrives. */
async function readFile(file: File, onProgress: LoadProgress | undefined): Promise<ArrayBuffer> {
  if (!onProgress || typeof file.stream !== 'function') return file.arrayBuffer();
  const data = new Uint8Array(file.size);
  const reader = file.stream().getReader();
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    data.set(value, length);
    length += value.byteLength;
    onProgress({ stage: 'read', fraction: file.size > 0 ? length / file.size : 1 });
  }
  return data.buffer;
}

export class SplatLoader {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  /**
   * Loads a scene. Strings and URLs are fetched by the worker (relative ones
   * resolve against the page). An ArrayBuffer is transferred to the worker,
   * so the caller's buffer is detached afterwards.
   */
  async load(source: File | URL | string | ArrayBuffer, onProgress?: LoadProgress): Promise<SplatCloud> {
    const id = this.nextId++;
    let request: LoadRequest;
    if (source instanceof ArrayBuffer) {
      request = { id, buffer: source, name: 'buffer' };
    } else if (typeof source === 'string' || source instanceof URL) {
      // The worker's own URL would be the base for relative paths; use the page's.
      const base = (globalThis as { location?: { href: string } }).location?.href;
      request = { id, url: new URL(source, base).href };
    } else {
      request = { id, buffer: await readFile(source, onProgress), name: source.name };
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
