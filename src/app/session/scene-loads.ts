/**
 * The viewer's policy for scene loads, DOM-free: one load at a time. A new
 * load cancels the one in progress, and only the newest load may change
 * what the user sees: a load that was replaced or cancelled never shows its
 * scene, its error, its progress or any more of its preview (the scene so
 * far), whatever order the answers come back in. The loading itself (a worker, a stream) is handed in as a function
 * that honours an AbortSignal.
 */

/** What became of a load: shown, refused with a message, cancelled, or replaced by a later load. */
export type LoadOutcome = 'opened' | 'failed' | 'cancelled' | 'superseded';

export interface LoadHandlers<T, P, V> {
  /** Progress of this load; called only while it is the current one. */
  progress?: (progress: P) => void;
  /** The scene so far, for loads that give it; called only while this is the current load. */
  preview?: (preview: V) => void;
  /** Shows what the load produced; called only if it is still the current load. Throwing makes the load fail. */
  show: (result: T) => void;
  /** Shows why the load failed; called only if it is still the current load. */
  fail: (error: unknown) => void;
}

/** The loader: loads `source`, reports progress, and rejects with an AbortError once `signal` aborts. */
export type LoadFunction<S, T, P, V> = (
  source: S,
  options: { signal: AbortSignal; onProgress: (progress: P) => void; onPreview?: (preview: V) => void },
) => Promise<T>;

/** True for the rejection of a load that was cancelled. */
export function isAbort(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'AbortError';
}

/** Loads of sources S giving results T, with progress reports P and previews V. */
export class SceneLoads<S, T, P, V = never> {
  private token = 0;
  private current: AbortController | null = null;

  constructor(private readonly load: LoadFunction<S, T, P, V>) {}

  /** A load is in progress. */
  get loading(): boolean {
    return this.current !== null;
  }

  /** Starts a load, cancelling the one in progress; resolves to what became of it. */
  async run(source: S, handlers: LoadHandlers<T, P, V>): Promise<LoadOutcome> {
    const token = ++this.token;
    this.current?.abort();
    const controller = new AbortController();
    this.current = controller;
    const isCurrent = () => token === this.token && !controller.signal.aborted;
    try {
      const result = await this.load(source, {
        signal: controller.signal,
        onProgress: (progress) => {
          if (isCurrent()) handlers.progress?.(progress);
        },
        onPreview: handlers.preview && ((preview) => {
          if (isCurrent()) handlers.preview?.(preview);
        }),
      });
      if (!isCurrent()) return this.ended(token);
      handlers.show(result);
      return 'opened';
    } catch (error) {
      if (!isCurrent() || isAbort(error)) return this.ended(token);
      handlers.fail(error);
      return 'failed';
    } finally {
      if (token === this.token) this.current = null;
    }
  }

  /** Cancels the load in progress, if any; what is on screen stays. */
  cancel(): void {
    this.current?.abort();
  }

  /** A load that did not finish as the current one: cancelled if nothing replaced it, else superseded. */
  private ended(token: number): LoadOutcome {
    return token === this.token ? 'cancelled' : 'superseded';
  }
}
