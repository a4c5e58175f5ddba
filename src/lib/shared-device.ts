/**
 * What a page's viewers share of the machine: one GPUDevice for every
 * viewer that brings none of its own (asked for once, and again only after
 * it is lost; the viewers on it share its compiled pipelines:
 * src/gpu/pipeline-cache.ts), and the memory that bounds what a load may
 * hold. The viewer page (main.ts) asks here too. DOM-free.
 */
import { requestGpuContext, type GpuContext } from '../gpu/device';

let shared: Promise<GpuContext> | null = null;

/** The page's device (the browser's WebGPU entry point; rejects with WebGpuUnavailableError without one). */
export function sharedGpuContext(): Promise<GpuContext> {
  if (!shared) {
    // `navigator.gpu` is undefined in browsers without WebGPU, whatever the DOM types say.
    const gpu: GPU | undefined = typeof navigator === 'undefined' ? undefined : navigator.gpu;
    const made = requestGpuContext(gpu, { label: 'Splatsort.device' });
    shared = made;
    made.then(
      (context) => void context.device.lost.then(() => {
        if (shared === made) shared = null;
      }),
      () => {
        if (shared === made) shared = null;
      },
    );
  }
  return shared;
}

/**
 * The machine's memory, which bounds what a load may hold: Chromium says
 * it (navigator.deviceMemory, in GiB, rounded and at most 8); other
 * browsers do not, and the loader's default stands in.
 */
export function hostMemoryBytes(): number | undefined {
  const gib = (navigator as { deviceMemory?: number }).deviceMemory;
  return typeof gib === 'number' && gib > 0 ? gib * 2 ** 30 : undefined;
}
