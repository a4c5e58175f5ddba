/**
 * What a piece of code allocates on the JavaScript heap, measured by V8's
 * sampling heap profiler (the inspector's HeapProfiler, in this thread):
 * every allocation is sampled at about one in `intervalBytes` bytes,
 * whether the object lives or is collected, so the sum estimates the bytes
 * `fn` allocated. An estimate: compare it with a bound far from what the
 * code should allocate, not with an exact figure.
 */
import { Session } from 'node:inspector';

interface SampledNode {
  selfSize: number;
  children?: SampledNode[];
}

const total = (node: SampledNode): number => node.selfSize + (node.children ?? []).reduce((sum, child) => sum + total(child), 0);

/** The bytes `fn` allocated (sampled). The inspector answers a session of its own thread at once. */
export function sampledHeapBytes(fn: () => void, intervalBytes = 512): number {
  const session = new Session();
  session.connect();
  try {
    let failure: Error | null = null;
    let bytes = Number.NaN;
    const check = (error: Error | null) => {
      failure ??= error;
    };
    session.post('HeapProfiler.startSampling', { samplingInterval: intervalBytes, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true }, check);
    try {
      fn();
    } finally {
      session.post('HeapProfiler.stopSampling', (error, result) => {
        check(error);
        if (result) bytes = total(result.profile.head as SampledNode);
      });
    }
    if (failure) throw failure;
    if (Number.isNaN(bytes)) throw new Error('sampledHeapBytes: the heap profiler did not answer at once');
    return bytes;
  } finally {
    session.disconnect();
  }
}
