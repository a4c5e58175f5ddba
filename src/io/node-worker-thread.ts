/**
 * Every Node worker thread the tools start (a world's decoders and its
 * level choice, the displacement measure, the fuzz harness) is started
 * here, so that one setting guards them all; and the two ends of a
 * thread's channel adapted to what a page's Web Worker gives, so that the
 * page's worker clients and cores run on Node's threads unchanged.
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
import { parentPort, Worker, type WorkerOptions } from 'node:worker_threads';

/** A worker thread running `script`, its optimizing compiles on its own thread (see above; setting it again changes nothing). */
export function startWorkerThread(script: string | URL, options?: WorkerOptions): Worker {
  setFlagsFromString('--no-concurrent-recompilation');
  return new Worker(script, options);
}

/** The calling thread's side of a worker's channel, as the page's Web Workers give it (the clients take either). */
export interface NodeWorkerPort<Request, Response> {
  onmessage: ((event: { data: Response }) => void) | null;
  onerror: ((event: { message: string; preventDefault(): void }) => void) | null;
  postMessage(request: Request, transfer?: Transferable[]): void;
  terminate(): void;
}

/**
 * `worker` (from startWorkerThread) adapted to the port a Web Worker gives.
 * `terminate` posts `close` rather than terminating the thread: terminated
 * mid-compile, a worker thread aborted the whole of Node 20
 * (world-displacements-write.ts met it), so the thread's script ends itself
 * once idle. A thread left running never holds the process (unref).
 */
export function nodeWorkerPort<Request, Response>(worker: Worker, close: Request): NodeWorkerPort<Request, Response> {
  worker.unref();
  const port: NodeWorkerPort<Request, Response> = {
    onmessage: null,
    onerror: null,
    postMessage: (request, transfer) => worker.postMessage(request, transfer as ArrayBuffer[] | undefined),
    terminate: () => worker.postMessage(close),
  };
  worker.on('message', (data: Response) => port.onmessage?.({ data }));
  worker.on('error', (error: Error) => port.onerror?.({ message: error.message, preventDefault() {} }));
  return port;
}

/** A worker thread's side of its channel (parentPort), adapted to the scope a Web Worker's script is given. */
export interface ThreadScope<Request, Response> {
  onmessage: ((event: { data: Request }) => void) | null;
  postMessage(message: Response, transfer?: Transferable[]): void;
  /** Closes the channel: the thread ends once its work in hand is done. */
  close(): void;
}

/** This worker thread's scope (it throws where the module runs on a main thread). */
export function threadScope<Request, Response>(name: string): ThreadScope<Request, Response> {
  if (!parentPort) throw new Error(`${name} runs as a worker thread`);
  const port = parentPort;
  const scope: ThreadScope<Request, Response> = {
    onmessage: null,
    postMessage: (message, transfer) => port.postMessage(message, transfer as ArrayBuffer[] | undefined),
    close: () => port.close(),
  };
  port.on('message', (data: Request) => scope.onmessage?.({ data }));
  return scope;
}
