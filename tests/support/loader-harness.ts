/**
 * Runs the splat loaders on untrusted bytes where a bad file cannot take the
 * test down with it: each case runs in a worker thread (a synchronous
 * infinite loop is caught by the case's time limit, and the worker is
 * replaced), under the allocation meter (alloc-meter.ts), and its outcome is
 * classified:
 *
 * - 'accepted': loadSplatFile + validateSplatCloud succeeded and every value
 *   of the cloud is finite;
 * - 'rejected': a SplatFormatError (the only acceptable failure);
 * - 'crash': any other error (RangeError, TypeError, ...);
 * - 'non-finite': the cloud passed validation but holds NaN or Infinity;
 * - 'absurd-alloc': a single allocation above the case's memory limit;
 * - 'hang': the case did not settle within its time limit.
 *
 * The worker side runs the built bundle of tests/support/fuzz.ts (TypeScript
 * cannot be loaded into a worker thread directly): buildHarness() makes one
 * with vite in a temporary folder (build-harness.ts), or `npm run bench:build`
 * makes bench-dist/fuzz.mjs.
 */
import { AbsurdAllocation, meterInstalled, startMeter, stopMeter } from './alloc-meter';
import type { Worker } from 'node:worker_threads';
import { startWorkerThread } from '../../src/io/node-worker-thread';
import { pathToFileURL } from 'node:url';
import type { SplatCloud } from '../../src/scene/splat-cloud';
import type { LoadLimits } from '../../src/io/load-limits';

export type OutcomeKind = 'accepted' | 'rejected' | 'crash' | 'non-finite' | 'absurd-alloc' | 'hang';

export const FAILURES: readonly OutcomeKind[] = ['crash', 'non-finite', 'absurd-alloc', 'hang'];

export interface Outcome {
  kind: OutcomeKind;
  /** The error's name and message (rejected, crash, absurd-alloc, hang). */
  errorName?: string;
  message?: string;
  /** Stack of an unexpected error (crash). */
  stack?: string;
  /** Wall time of the case, ms. */
  ms: number;
  /** Largest single typed-array / ArrayBuffer allocation, bytes. */
  largestAlloc: number;
  largestAllocWhat?: string;
  /** Splats in the accepted cloud. */
  count?: number;
}

interface Loaders {
  loadSplatFile: typeof import('../../src/io/parse-splat-file').loadSplatFile;
  loadSplatStream: typeof import('../../src/io/splat-stream').loadSplatStream;
  validateSplatCloud: typeof import('../../src/io/validate-splats').validateSplatCloud;
  SplatFormatError: typeof import('../../src/io/ply/parse').SplatFormatError;
}
let loaderModules: Promise<Loaders> | undefined;

/**
 * The loaders are imported on first use, not at the top: in a harness
 * worker, alloc-meter.ts must wrap the allocators before fzstd (which keeps
 * its own aliases of them) is evaluated, whatever chunk a bundler puts it in.
 */
function loaders(): Promise<Loaders> {
  loaderModules ??= Promise.all([
    import('../../src/io/parse-splat-file'), import('../../src/io/validate-splats'), import('../../src/io/ply/parse'),
    import('../../src/io/splat-stream'),
  ]).then(([entry, validate, ply, stream]) => ({
    loadSplatFile: entry.loadSplatFile, validateSplatCloud: validate.validateSplatCloud, SplatFormatError: ply.SplatFormatError,
    loadSplatStream: stream.loadSplatStream,
  }));
  return loaderModules;
}

/** Allocation limit for a case: generous for a real decode, far below "absurd". */
export function allocationLimit(inputBytes: number): number {
  return Math.max(64 * 2 ** 20, 32 * inputBytes);
}

/** The first non-finite value of an accepted cloud, as text, or undefined. */
export function findNonFinite(cloud: SplatCloud): string | undefined {
  const arrays = {
    positions: cloud.positions, scales: cloud.scales, rotations: cloud.rotations,
    opacities: cloud.opacities, dc: cloud.dc, sh: cloud.sh,
  };
  for (const [name, array] of Object.entries(arrays)) {
    for (let i = 0; i < array.length; i++) {
      const v = array[i]!;
      if (v - v !== 0) return `${name}[${i}] = ${v}`;
    }
  }
  const b = [...cloud.bounds.min, ...cloud.bounds.max];
  if (b.some((v) => !Number.isFinite(v))) return `bounds ${b.join(', ')}`;
  return undefined;
}

/**
 * The limits of an endless-stream case: small, so that a stream that never
 * ends reaches them in a fraction of a second (262,144 splats, 32 MiB).
 */
export const ENDLESS_LIMITS: LoadLimits = { maxSplats: [2 ** 18, 2 ** 18, 2 ** 18, 2 ** 18], maxBytes: 32 * 2 ** 20 };

/** The file in 64 KiB chunks, then zeros for ever: a server that never ends the body, with no size. */
function* endlessChunks(bytes: Uint8Array): Generator<Uint8Array> {
  const size = 65536;
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, Math.min(bytes.length, at + size));
  const zeros = new Uint8Array(size);
  for (;;) yield zeros;
}

/**
 * Loads `bytes` as the viewer does (loadSplatFile, then validateSplatCloud)
 * and classifies what happened. With `endless`, the bytes are streamed
 * through loadSplatStream with no size and followed by zeros that never end,
 * under ENDLESS_LIMITS: the load must still end (refused at a limit, or done
 * once a PLY has its rows). Runs in the worker; also usable in-process
 * (without hang detection or, outside a harness worker, the allocation meter).
 */
export async function runLoad(bytes: Uint8Array, name: string, options: { endless?: boolean } = {}): Promise<Outcome> {
  const t0 = performance.now();
  let outcome: Omit<Outcome, 'ms' | 'largestAlloc'>;
  const { loadSplatFile, loadSplatStream, validateSplatCloud, SplatFormatError } = await loaders();
  startMeter(allocationLimit(bytes.byteLength));
  try {
    const cloud = options.endless
      ? await loadSplatStream(endlessChunks(bytes), { name, limits: ENDLESS_LIMITS })
      : await loadSplatFile(bytes, name);
    validateSplatCloud(cloud);
    const bad = findNonFinite(cloud);
    outcome = bad === undefined
      ? { kind: 'accepted', count: cloud.count }
      : { kind: 'non-finite', message: `validation passed a cloud with ${bad}`, count: cloud.count };
  } catch (error) {
    const e = error instanceof Error ? error : new Error(String(error));
    if (e instanceof AbsurdAllocation) {
      outcome = { kind: 'absurd-alloc', errorName: e.name, message: e.message, stack: e.stack };
    } else if (e instanceof SplatFormatError) {
      // A SplatLimitError (a file past the load limits) is one too.
      outcome = { kind: 'rejected', errorName: e.name, message: e.message };
    } else {
      outcome = { kind: 'crash', errorName: e.name, message: e.message, stack: e.stack };
    }
  }
  const meter = stopMeter();
  return { ...outcome, ms: performance.now() - t0, largestAlloc: meter.largest, largestAllocWhat: meter.what };
}

// ---------------------------------------------------------------------------
// Worker side.

export type HarnessRequest =
  | { kind: 'load'; bytes: Uint8Array; name: string; endless?: boolean }
  | { kind: 'fuzz'; seed: number; index: number };

export type HarnessJob = HarnessRequest & { id: number };

export type HarnessReply = { id: number; outcome: Outcome; info?: Record<string, unknown> };

/** What a worker does with a fuzz job (set by fuzz.ts, which owns the corpus). */
export type FuzzJobRunner = (seed: number, index: number) => Promise<{ outcome: Outcome; info: Record<string, unknown> }>;

/** Serves jobs from the main thread; call once, in the worker. */
export async function serveHarness(runFuzzJob: FuzzJobRunner): Promise<void> {
  const { parentPort } = await import('node:worker_threads');
  if (!parentPort) throw new Error('serveHarness runs in a worker thread');
  if (!meterInstalled) throw new Error('the allocation meter is not installed in this worker');
  parentPort.on('message', (job: HarnessJob) => {
    void (async () => {
      let reply: HarnessReply;
      if (job.kind === 'load') {
        reply = { id: job.id, outcome: await runLoad(job.bytes, job.name, { endless: job.endless }) };
      } else {
        const { outcome, info } = await runFuzzJob(job.seed, job.index);
        reply = { id: job.id, outcome, info };
      }
      parentPort.postMessage(reply);
    })().catch((error: unknown) => {
      const e = error instanceof Error ? error : new Error(String(error));
      const outcome: Outcome = { kind: 'crash', errorName: e.name, message: `harness: ${e.message}`, stack: e.stack, ms: 0, largestAlloc: 0 };
      parentPort.postMessage({ id: job.id, outcome } satisfies HarnessReply);
    });
  });
  parentPort.postMessage({ ready: true });
}

// ---------------------------------------------------------------------------
// Main-thread side.

interface Pending {
  resolve: (reply: HarnessReply) => void;
  timer: NodeJS.Timeout;
  started: number;
}

/** One harness worker: jobs run one at a time; a job past its time limit is a 'hang' and the worker is replaced. */
export class HarnessWorker {
  private worker: Worker | undefined;
  private ready: Promise<void> | undefined;
  private nextId = 1;
  private pending = new Map<number, Pending>();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly bundle: string, private readonly env: Record<string, string> = {}) {}

  private start(): Promise<void> {
    const worker = startWorkerThread(pathToFileURL(this.bundle), {
      workerData: { splatsortHarness: true },
      env: { ...process.env, ...this.env },
      stdout: false,
      stderr: false,
    });
    this.worker = worker;
    this.ready = new Promise<void>((resolveReady, rejectReady) => {
      const onMessage = (message: { ready?: boolean } & Partial<HarnessReply>): void => {
        if (message.ready) {
          resolveReady();
          return;
        }
        const pending = this.pending.get(message.id!);
        if (!pending) return;
        clearTimeout(pending.timer);
        this.pending.delete(message.id!);
        pending.resolve(message as HarnessReply);
      };
      worker.on('message', onMessage);
      worker.on('error', (error) => {
        rejectReady(error);
        // An error that escaped the job (should not happen): fail the jobs in flight.
        for (const [id, pending] of this.pending) {
          clearTimeout(pending.timer);
          pending.resolve({ id, outcome: { kind: 'crash', errorName: error.name, message: `worker died: ${error.message}`, stack: error.stack, ms: performance.now() - pending.started, largestAlloc: 0 } });
        }
        this.pending.clear();
        this.worker = undefined;
      });
      worker.on('exit', (code) => {
        if (this.worker !== worker) return; // terminated on purpose (a hang), already reported
        this.worker = undefined;
        for (const [id, pending] of this.pending) {
          clearTimeout(pending.timer);
          pending.resolve({ id, outcome: { kind: 'crash', errorName: 'WorkerExit', message: `worker exited with code ${code}`, ms: performance.now() - pending.started, largestAlloc: 0 } });
        }
        this.pending.clear();
      });
    });
    return this.ready;
  }

  /** Runs one job; resolves with a 'hang' outcome when it takes longer than timeoutMs. */
  run(job: HarnessRequest, timeoutMs: number): Promise<HarnessReply> {
    const result = this.queue.then(async () => {
      if (!this.worker) await this.start();
      await this.ready;
      const worker = this.worker!;
      const id = this.nextId++;
      return new Promise<HarnessReply>((resolveJob) => {
        const started = performance.now();
        const timer = setTimeout(() => {
          this.pending.delete(id);
          this.worker = undefined;
          void worker.terminate();
          resolveJob({
            id,
            outcome: {
              kind: 'hang', errorName: 'Timeout',
              message: `did not settle within ${timeoutMs} ms`, ms: performance.now() - started, largestAlloc: 0,
            },
          });
        }, timeoutMs);
        this.pending.set(id, { resolve: resolveJob, timer, started });
        // The bytes are copied (not transferred): callers may reuse them. A view
        // is cut down first (posting it would copy its whole ArrayBuffer).
        const message = job.kind === 'load' && job.bytes.byteLength !== job.bytes.buffer.byteLength
          ? { ...job, bytes: job.bytes.slice(), id }
          : { ...job, id };
        worker.postMessage(message);
      });
    });
    this.queue = result.catch(() => undefined);
    return result;
  }

  async close(): Promise<void> {
    await this.queue;
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
  }
}
