/**
 * One GPUDevice for every viewer of a page that brings none of its own:
 * asked for once, and again only after it is lost. The viewers on it share
 * its compiled pipelines (src/gpu/pipeline-cache.ts). DOM-free.
 */
import { requestGpuContext, type GpuContext } from '../gpu/device';

let shared: Promise<GpuContext> | null = null;

/** The page's device (the browser's WebGPU entry point; rejects with WebGpuUnavailableError without one). */
export function sharedGpuContext(): Promise<GpuContext> {
  if (!shared) {
    // `navigator.gpu` is undefined in browsers without WebGPU, whatever the DOM types say.
    const gpu: GPU | undefined = typeof navigator === 'undefined' ? undefined : navigator.gpu;
    const made = requestGpuContext(gpu, { label: 'Splatsort.sharedDevice' });
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
