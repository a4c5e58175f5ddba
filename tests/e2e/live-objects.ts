/**
 * What a page holds alive, counted by wrappers put in the page before its
 * scripts run (page.addInitScript(countLiveObjects)): GPU buffers, textures
 * and query sets by label, workers, resize and intersection observers, and
 * event listeners still reachable; and the pipelines made so far. The
 * package's browser tests (package.test.ts) read it to see that viewers
 * leave nothing behind.
 */

/** What the wrappers count (installed by countLiveObjects before the page's scripts). */
export interface LiveCounts {
  /** The labels of the live GPU buffers, textures and query sets, sorted (a leak names itself). */
  buffers: string[];
  textures: string[];
  querySets: string[];
  workers: number;
  observers: number;
  /** Listeners on the window, the document, the elements in it and other live targets (not on elements taken out of it). */
  listeners: number;
  /** Pipelines made so far (they have no destroy: a pipeline made once per page is the cache working). */
  pipelinesMade: number;
}

declare global {
  interface Window {
    splatsortLive?: () => LiveCounts;
  }
}

/**
 * Runs in the page before its scripts: wraps what makes and frees GPU
 * buffers, textures and query sets, workers, resize and intersection
 * observers and event listeners, and keeps `window.splatsortLive()`, the
 * number of each alive now.
 */
export function countLiveObjects(): void {
  const live = { buffers: new Set<object>(), textures: new Set<object>(), querySets: new Set<object>(), workers: new Set<object>(), observers: new Set<object>() };
  let pipelinesMade = 0;
  const track = <K extends keyof typeof live>(kind: K, proto: object, make: string, free: string, on: object) => {
    const made = (on as Record<string, (...args: unknown[]) => object>)[make]!;
    (on as Record<string, unknown>)[make] = function (this: unknown, ...args: unknown[]) {
      const thing = made.apply(this, args);
      live[kind].add(thing);
      return thing;
    };
    const freed = (proto as Record<string, (...args: unknown[]) => unknown>)[free]!;
    (proto as Record<string, unknown>)[free] = function (this: object, ...args: unknown[]) {
      live[kind].delete(this);
      return freed.apply(this, args);
    };
  };
  track('buffers', GPUBuffer.prototype, 'createBuffer', 'destroy', GPUDevice.prototype);
  track('textures', GPUTexture.prototype, 'createTexture', 'destroy', GPUDevice.prototype);
  track('querySets', GPUQuerySet.prototype, 'createQuerySet', 'destroy', GPUDevice.prototype);
  for (const make of ['createRenderPipeline', 'createComputePipeline', 'createRenderPipelineAsync', 'createComputePipelineAsync'] as const) {
    const original = GPUDevice.prototype[make] as (...args: unknown[]) => unknown;
    (GPUDevice.prototype as unknown as Record<string, unknown>)[make] = function (this: GPUDevice, ...args: unknown[]) {
      pipelinesMade++;
      return original.apply(this, args);
    };
  }
  const NativeWorker = window.Worker;
  window.Worker = class extends NativeWorker {
    constructor(url: string | URL, options?: WorkerOptions) {
      super(url, options);
      live.workers.add(this);
    }
    override terminate(): void {
      live.workers.delete(this);
      super.terminate();
    }
  };
  for (const Observer of [ResizeObserver, IntersectionObserver]) {
    const observe = Observer.prototype.observe;
    const disconnect = Observer.prototype.disconnect;
    Observer.prototype.observe = function (this: object, ...args: unknown[]) {
      live.observers.add(this);
      return (observe as (...a: unknown[]) => void).apply(this, args);
    };
    Observer.prototype.disconnect = function (this: object) {
      live.observers.delete(this);
      return disconnect.apply(this as never);
    };
  }
  // Listeners by target, type, function and capture, as the DOM tells them apart; a signal's abort removes its own.
  const listeners = new Map<EventTarget, Set<string>>();
  const ids = new WeakMap<object, number>();
  let nextId = 0;
  const keyOf = (type: string, listener: unknown, options: unknown) => {
    if (!ids.has(listener as object)) ids.set(listener as object, nextId++);
    const capture = typeof options === 'boolean' ? options : Boolean((options as AddEventListenerOptions | undefined)?.capture);
    return `${type}|${ids.get(listener as object)}|${capture}`;
  };
  const add = EventTarget.prototype.addEventListener;
  const remove = EventTarget.prototype.removeEventListener;
  EventTarget.prototype.addEventListener = function (this: EventTarget, type: string, listener: EventListenerOrEventListenerObject | null, options?: boolean | AddEventListenerOptions) {
    if (listener) {
      const key = keyOf(type, listener, options);
      const signal = typeof options === 'object' ? options.signal : undefined;
      if (!signal?.aborted) {
        let keys = listeners.get(this);
        if (!keys) listeners.set(this, (keys = new Set()));
        keys.add(key);
        if (signal) add.call(signal, 'abort', () => keys!.delete(key), { once: true });
      }
    }
    return add.call(this, type, listener, options);
  };
  EventTarget.prototype.removeEventListener = function (this: EventTarget, type: string, listener: EventListenerOrEventListenerObject | null, options?: boolean | EventListenerOptions) {
    if (listener) listeners.get(this)?.delete(keyOf(type, listener, options));
    return remove.call(this, type, listener, options);
  };
  // Listeners die with their element once it is out of the page, and a signal's with its owner.
  const reachable = (target: EventTarget) => !(target instanceof AbortSignal) && (!(target instanceof Node) || target.isConnected || target === document);
  window.splatsortLive = () => ({
    buffers: [...live.buffers].map((b) => (b as GPUBuffer).label).sort(),
    textures: [...live.textures].map((t) => (t as GPUTexture).label).sort(),
    querySets: [...live.querySets].map((q) => (q as GPUQuerySet).label).sort(),
    workers: live.workers.size,
    observers: live.observers.size,
    listeners: [...listeners].reduce((n, [target, keys]) => n + (reachable(target) ? keys.size : 0), 0),
    pipelinesMade,
  });
}

/** What a page holds with no viewer: nothing but its own listeners. */
export function noViewer(listeners: number): LiveCounts {
  return { buffers: [], textures: [], querySets: [], workers: 0, observers: 0, listeners, pipelinesMade: 0 };
}
