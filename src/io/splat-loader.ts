/**
 * Main-thread API for loading splat scenes: hands files, URLs or bytes to a
 * load worker, which streams and parses them, and resolves with the parsed
 * SplatCloud and any warnings about the file; a file decoded as it arrives
 * also gives the scene so far while it loads (onPreview). Each load runs in a worker of
 * its own, so cancelling one (its AbortSignal) terminates that worker: the
 * decoding stops, the download is aborted with it, and its memory is freed
 * at once. DOM-free.
 */
import type { LoadRequest, LoadResponse } from './load-worker';
import type { LoadedScene, LoadOptions, LoadProgress, LoadProgressReport, LoadStage } from './scene-source';
import { SplatFormatError } from './format-error';
import { DEFAULT_LOAD_LIMITS, SplatLimitError } from './load-limits';
import { ScenePreview } from './scene-preview';

export type { LoadedScene, LoadOptions, LoadProgress, LoadProgressReport, LoadStage };

/** Rebuilds a worker's error on this side, keeping the format errors recognisable. */
export function rebuildError(message: string, name: string): Error {
  if (name === 'SplatLimitError') return new SplatLimitError(message);
  if (name === 'SplatFormatError') return new SplatFormatError(message);
  const error = new Error(message);
  error.name = name;
  return error;
}

/** The reason a signal gives, or an AbortError like fetch's. */
function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The load was cancelled', 'AbortError');
}

export class SplatLoader {
  private nextId = 1;
  /** Workers of the loads in flight, for dispose(). */
  private readonly running = new Set<() => void>();

  /**
   * Loads a scene. Strings and URLs are fetched by the worker (relative ones
   * resolve against the page). A File is read by the worker as a stream;
   * several Files are a SOG meta.json with its images. An ArrayBuffer is
   * transferred to the worker, so the caller's buffer is detached afterwards.
   */
  load(source: File | File[] | URL | string | ArrayBuffer, options: LoadOptions = {}): Promise<LoadedScene> {
    const { signal, onProgress, onPreview } = options;
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const id = this.nextId++;
    const common = { id, limits: options.limits ?? DEFAULT_LOAD_LIMITS, preview: onPreview !== undefined };
    let request: LoadRequest;
    if (source instanceof ArrayBuffer) {
      request = { ...common, buffer: source, name: 'buffer' };
    } else if (typeof source === 'string' || source instanceof URL) {
      // The worker's own URL would be the base for relative paths; use the page's.
      const base = (globalThis as { location?: { href: string } }).location?.href;
      request = { ...common, url: new URL(source, base).href };
    } else {
      request = Array.isArray(source) ? { ...common, files: source } : { ...common, file: source };
    }

    return new Promise<LoadedScene>((resolve, reject) => {
      // This exact form lets vite find and bundle the worker module.
      const worker = new Worker(new URL('./load-worker.ts', import.meta.url), { type: 'module' });
      let preview: ScenePreview | null = new ScenePreview();
      // Whichever way the load ends, nothing of it stays: the worker (its
      // decoded arrays, its download, which terminating it aborts) and the
      // page's copy of the scene so far go at once, not when this load's
      // closures happen to be collected.
      const settle = (outcome: () => void) => {
        worker.terminate();
        worker.onmessage = null;
        worker.onerror = null;
        preview = null;
        signal?.removeEventListener('abort', onAbort);
        this.running.delete(stop);
        outcome();
      };
      const stop = () => settle(() => reject(new Error('SplatLoader was disposed before the load finished')));
      const onAbort = () => settle(() => reject(abortReason(signal!)));
      worker.onmessage = (event: MessageEvent<LoadResponse>) => {
        const message = event.data;
        if (message.type === 'progress') onProgress?.({ stage: message.stage, fraction: message.fraction });
        else if (message.type === 'preview') {
          if (preview) onPreview?.(preview.add(message.part));
        }
        else if (message.type === 'done') settle(() => resolve({ cloud: message.cloud, warnings: message.warnings, bytes: message.bytes }));
        else settle(() => reject(rebuildError(message.message, message.name)));
      };
      worker.onerror = (event: ErrorEvent) => {
        // The worker script itself failed (e.g. did not load).
        event.preventDefault();
        settle(() => reject(new Error(`Splat load worker failed: ${event.message || 'could not start'}`)));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.running.add(stop);
      worker.postMessage(request, 'buffer' in request ? [request.buffer] : []);
    });
  }

  /** Stops every load in flight; they reject. */
  dispose(): void {
    for (const stop of [...this.running]) stop();
  }
}
