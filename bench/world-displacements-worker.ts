/**
 * A worker thread of bench/world-displacements-write.ts (built beside it
 * into bench-dist/ as world-displacements-worker.mjs): opens the world named
 * in its workerData, then measures each batch of leaves it is sent, one
 * batch at a time, and posts back their displacements and its decodes.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openWorld } from '../src/io/lod/world-files';
import { nodeFileSource } from '../src/io/node-scene-source';
import { LeafMeasure, type LeafRuns } from './world-displacements-measure';

/** What the main thread sends: a batch's number and its leaves' runs. */
export interface DisplacementBatch {
  batch: number;
  leaves: LeafRuns[];
}

/** What the worker posts back for a batch: per leaf its displacements, and the chunk decodes it has made so far. */
export interface DisplacementReply {
  batch: number;
  displacements: number[][];
  decoded: number;
}

if (!parentPort) throw new Error('world-displacements-worker runs as a worker thread of world-displacements');
const port = parentPort;
const { indexPath, levels } = workerData as { indexPath: string; levels: number };
const measure = new LeafMeasure(await openWorld(nodeFileSource(indexPath)), levels);
port.on('message', (job: DisplacementBatch | null) => {
  // No more work: the port closed, the thread leaves once idle (world-displacements-write.ts, endWorker).
  if (job === null) {
    port.close();
    return;
  }
  void (async () => {
    const displacements: number[][] = [];
    for (const lods of job.leaves) displacements.push(await measure.measure(lods));
    port.postMessage({ batch: job.batch, displacements, decoded: measure.decoded } satisfies DisplacementReply);
  })().catch((error: unknown) => {
    // Thrown out of the handler, it ends the worker with an 'error' event the main thread reports.
    setImmediate(() => {
      throw error;
    });
  });
});
