/**
 * Allocation meter for the loader harness's worker: wraps the global typed
 * array and ArrayBuffer constructors so that every `new Float32Array(n)`,
 * `new Uint8Array(n)`, `Int32Array.from(...)`, `new ArrayBuffer(n)` ... made
 * while a case runs is measured, and one above the case's limit throws
 * AbsurdAllocation instead of allocating (so a lying count cannot take the
 * machine's memory, and the case is reported).
 *
 * It must run before fzstd is evaluated (fzstd keeps its own aliases of the
 * constructors): fuzz.ts imports it first, and the harness imports the
 * loaders only when the first case runs. It installs itself only inside the
 * harness's worker threads, never in a test process.
 */
import { isMainThread, workerData } from 'node:worker_threads';

export class AbsurdAllocation extends Error {
  constructor(readonly bytes: number, readonly what: string) {
    super(`attempted to allocate ${bytes.toLocaleString('en-US')} bytes (${what})`);
    this.name = 'AbsurdAllocation';
  }
}

interface MeterState {
  active: boolean;
  limit: number;
  largest: number;
  largestWhat: string;
}

const state: MeterState = { active: false, limit: Infinity, largest: 0, largestWhat: '' };

const CONSTRUCTORS = [
  'Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array',
  'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array',
] as const;

function bytesRequested(name: string, bytesPerElement: number, args: unknown[]): number {
  const first = args[0];
  if (name === 'ArrayBuffer') return typeof first === 'number' ? first : 0;
  if (first === undefined || typeof first === 'number') return Number(first ?? 0) * bytesPerElement;
  if (first instanceof ArrayBuffer || (typeof SharedArrayBuffer !== 'undefined' && first instanceof SharedArrayBuffer)) {
    return 0; // a view over existing memory
  }
  const length = (first as { length?: unknown }).length;
  return typeof length === 'number' ? length * bytesPerElement : 0;
}

function install(): void {
  const g = globalThis as unknown as Record<string, unknown>;
  for (const name of [...CONSTRUCTORS, 'ArrayBuffer'] as const) {
    const target = g[name] as { new (...args: unknown[]): object; BYTES_PER_ELEMENT?: number };
    const bytesPerElement = target.BYTES_PER_ELEMENT ?? 1;
    g[name] = new Proxy(target, {
      construct(t, args, newTarget) {
        if (state.active) {
          const bytes = bytesRequested(name, bytesPerElement, args);
          const what = `new ${name}(${typeof args[0] === 'number' ? args[0] : '…'})`;
          if (bytes > state.largest) {
            state.largest = bytes;
            state.largestWhat = what;
          }
          if (bytes > state.limit) throw new AbsurdAllocation(bytes, what);
        }
        return Reflect.construct(t, args, newTarget === g[name] ? t : newTarget);
      },
    });
  }
}

const harnessWorker = !isMainThread &&
  (workerData as { splatsortHarness?: boolean } | null)?.splatsortHarness === true;
if (harnessWorker) install();

/** True when the meter is installed (in a harness worker). */
export const meterInstalled = harnessWorker;

/** Starts measuring; allocations above `limit` bytes throw AbsurdAllocation. */
export function startMeter(limit: number): void {
  state.active = true;
  state.limit = limit;
  state.largest = 0;
  state.largestWhat = '';
}

/** Stops measuring; returns the largest single allocation seen. */
export function stopMeter(): { largest: number; what: string } {
  state.active = false;
  state.limit = Infinity;
  return { largest: state.largest, what: state.largestWhat };
}
