/**
 * The measure behind bench/world-displacements.ts, for make-world and the
 * tests: reads the world's index, decodes its chunks (a few at a time,
 * leaves taken in the order of their finest chunk so that a chunk is
 * seldom decoded twice), measures each leaf's levels against its finest
 * (world-displacements-measure.ts) and writes them into the index as
 * `displacements`. With `jobs` over 1, worker threads measure batches of
 * neighbouring leaves side by side (world-displacements-worker.ts); each
 * leaf's figures are the same whoever measures it, so the index written is
 * the same byte for byte.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { startWorkerThread } from '../src/io/node-worker-thread';
import { replaceFile } from '../cli/replace-file';
import { openWorld } from '../src/io/lod/world-files';
import { parseLodMeta } from '../src/io/lod/lod-meta';
import { nodeFileSource } from '../src/io/node-scene-source';
import { worldLeaves, type WorldLeaf } from '../src/app/world/world-lod';
import { finestRun, LeafMeasure, type LeafRuns } from './world-displacements-measure';
import type { DisplacementBatch, DisplacementReply } from './world-displacements-worker';

/** A leaf of the index's JSON: its runs by level. */
interface MetaLeaf {
  lods: LeafRuns;
  displacements?: number[];
}

/** Per level, over the leaves that have it: the median measured displacement, the median error the splats' spacing gave, and the median ratio of the two. */
export interface LevelFigures {
  level: number;
  displacement: number;
  spacing: number;
  ratio: number;
}

export interface DisplacementsWritten {
  leaves: number;
  levels: LevelFigures[];
  /** Chunk decodes (a chunk evicted and needed again counts again; each worker decodes its own). */
  chunks: number;
  /** Threads that measured (1: this one). */
  jobs: number;
  seconds: number;
}

export interface DisplacementOptions {
  say?: (line: string) => void;
  /** Threads measuring at once (default 1: this thread alone). */
  jobs?: number;
  /**
   * The worker's module, where jobs are over 1: bench:build puts it beside
   * the commands as world-displacements-worker.mjs (this file's code lies
   * in a chunk they share, elsewhere), so each command names it.
   */
  worker?: URL;
}

/**
 * Batches a job: about four a thread, so that a thread that finished early
 * takes another while a slower one works, each a run of neighbouring leaves
 * (they share their chunks) cut where the finest chunk changes.
 */
const BATCHES_PER_JOB = 4;

export async function writeDisplacements(indexPath: string, options: DisplacementOptions = {}): Promise<DisplacementsWritten> {
  const started = performance.now();
  const text = readFileSync(indexPath, 'utf8');
  const index = parseLodMeta(text, indexPath);
  const json = JSON.parse(text) as { tree: unknown };
  const leaves: MetaLeaf[] = [];
  const pending: unknown[] = [json.tree];
  while (pending.length > 0) {
    const node = pending.pop() as { children?: unknown[]; lods?: MetaLeaf['lods'] };
    if (node.children) for (const child of node.children) pending.push(child);
    else leaves.push(node as MetaLeaf);
  }
  const finestFile = (leaf: MetaLeaf) => finestRun(leaf.lods, index.levels)?.file ?? -1;
  leaves.sort((a, b) => finestFile(a) - finestFile(b));

  const jobs = Math.max(1, Math.min(options.jobs ?? 1, leaves.length));
  let chunks: number;
  let threads = 1;
  if (jobs === 1) {
    const measure = new LeafMeasure(await openWorld(nodeFileSource(indexPath)), index.levels);
    for (const [k, leaf] of leaves.entries()) {
      leaf.displacements = await measure.measure(leaf.lods);
      if ((k + 1) % 100 === 0) options.say?.(`${k + 1} of ${leaves.length} leaves, ${measure.decoded} chunk decodes`);
    }
    chunks = measure.decoded;
  } else {
    [chunks, threads] = await measureInWorkers(indexPath, index.levels, leaves, jobs, options);
  }
  const written = JSON.stringify(json);
  await replaceFile(indexPath, new TextEncoder().encode(written));
  const levels = compare(worldLeaves(index), worldLeaves(parseLodMeta(written, indexPath)), index.levels);
  return { leaves: leaves.length, levels, chunks, jobs: threads, seconds: Math.round((performance.now() - started) / 100) / 10 };
}

/**
 * Measures `leaves` (in their order) in up to `jobs` worker threads (no
 * more than there are batches), writing each leaf's displacements; returns
 * the chunk decodes and the threads.
 */
async function measureInWorkers(indexPath: string, levels: number, leaves: MetaLeaf[], jobs: number, options: DisplacementOptions): Promise<[number, number]> {
  const finestFile = (k: number) => finestRun(leaves[k]!.lods, levels)?.file ?? -1;
  const size = Math.ceil(leaves.length / (jobs * BATCHES_PER_JOB));
  const starts: number[] = [];
  for (let k = 0; k < leaves.length; ) {
    starts.push(k);
    k = Math.min(k + size, leaves.length);
    while (k < leaves.length && finestFile(k) === finestFile(k - 1)) k++;
  }
  starts.push(leaves.length);
  const batches = starts.length - 1;
  const url = options.worker;
  if (!url || !existsSync(fileURLToPath(url))) throw new Error(`no worker${url ? ` at ${fileURLToPath(url)}` : ''} to measure in: run the commands npm run bench:build makes, or measure with one job`);
  const workers = Array.from({ length: Math.min(jobs, batches) }, () => startWorkerThread(url, { workerData: { indexPath, levels } }));
  const decodes = new Array<number>(workers.length).fill(0);
  let next = 0;
  let done = 0;
  let measured = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      const send = (w: number) => {
        if (next >= batches) return;
        const batch = next++;
        workers[w]!.postMessage({ batch, leaves: leaves.slice(starts[batch], starts[batch + 1]).map((leaf) => leaf.lods) } satisfies DisplacementBatch);
      };
      workers.forEach((worker, w) => {
        worker.on('message', (reply: DisplacementReply) => {
          reply.displacements.forEach((d, j) => (leaves[starts[reply.batch]! + j]!.displacements = d));
          decodes[w] = reply.decoded;
          measured += reply.displacements.length;
          options.say?.(`${measured} of ${leaves.length} leaves measured (${++done} of ${batches} batches)`);
          if (done === batches) resolve();
          else send(w);
        });
        worker.on('error', reject);
        worker.on('exit', (code) => done < batches && reject(new Error(`a displacements worker stopped (exit ${code}) before the leaves were measured`)));
        send(w);
      });
    });
  } catch (error) {
    await Promise.all(workers.map((worker) => worker.terminate()));
    throw error;
  }
  await Promise.all(workers.map(endWorker));
  return [decodes.reduce((a, b) => a + b, 0), workers.length];
}

/** The measured errors (`measured`) against the spacing's (`guessed`), leaf by leaf, level by level (the finest, 0 in both, left out). */
function compare(guessed: readonly WorldLeaf[], measured: readonly WorldLeaf[], levelCount: number): LevelFigures[] {
  const figures: LevelFigures[] = [];
  const median = (values: number[]) => (values.length === 0 ? NaN : values.sort((a, b) => a - b)[values.length >> 1]!);
  for (let level = 1; level < levelCount; level++) {
    const pairs = measured.flatMap((leaf, k) => {
      const [m, g] = [leaf.errors[level], guessed[k]!.errors[level]];
      return m == null || g == null || m === 0 ? [] : [[m, g] as const];
    });
    if (pairs.length === 0) continue;
    figures.push({
      level,
      displacement: median(pairs.map(([m]) => m)),
      spacing: median(pairs.map(([, g]) => g)),
      ratio: median(pairs.map(([m, g]) => m / Math.max(g, 1e-12))),
    });
  }
  return figures;
}

/**
 * Asks a worker whose work is done to end (a null job: it closes its port
 * and leaves once idle), terminating it only if it has not left after
 * WORKER_EXIT_MS. Node 20 could abort the whole process (an assertion in
 * NodePlatform::ForIsolate) when a worker was terminated while V8 still
 * compiled its code on another thread: the command had measured every
 * leaf and then crashed, one run in a few on a loaded 2-core machine.
 */
function endWorker(worker: Worker): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => void worker.terminate(), WORKER_EXIT_MS);
    worker.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    worker.postMessage(null);
  });
}

/** How long a worker asked to end may take to leave before it is terminated. */
const WORKER_EXIT_MS = 30_000;
