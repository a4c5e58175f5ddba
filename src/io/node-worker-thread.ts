/**
 * Every Node worker thread the tools start (a world's decoders, the
 * displacement measure, the fuzz harness) is started here, so that one
 * setting guards them all.
 *
 * Why: on Node 20 a worker thread could hang forever as it ended. A thread
 * whose event loop empties waits for V8's background tasks of its isolate
 * (NodePlatform::DrainTasks); an optimizing compile of that thread's code
 * still running in the background could be waiting for a garbage collection
 * that only the thread itself runs (stacks taken with gdb: the thread in
 * DrainTasks, the compile in CollectionBarrier::AwaitCollectionBackground,
 * under OptimizingCompileDispatcher::CompileTask; nodejs/node#54918). The
 * process then never exits: `world-displacements --jobs 2` hung after its
 * last leaf in 8 of 164 runs on two cores kept busy, and a test waiting
 * on it held the test run. With optimizing compiles made on each isolate's
 * own thread (`--no-concurrent-recompilation`) no such task exists: 0 of
 * 260 runs hung, on the same machine and load. V8 reads the
 * setting when an isolate is made, so it is set before the first worker
 * starts; the calling thread's own isolate, made before, is unchanged.
 */
import { setFlagsFromString } from 'node:v8';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** A worker thread running `script`, its optimizing compiles on its own thread (see above; setting it again changes nothing). */
export function startWorkerThread(script: string | URL, options?: WorkerOptions): Worker {
  setFlagsFromString('--no-concurrent-recompilation');
  return new Worker(script, options);
}
