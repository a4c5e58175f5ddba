/**
 * WebGPU's own errors, as a viewer reports them: a lost device (the viewer
 * then draws no more), and uncaptured errors, the first MAX_REPORTED of
 * them (on the console too), so an error repeated every frame does not
 * bury the page. A device destroyed on purpose is no error.
 */

/** Uncaptured errors reported at most, for one viewer. */
const MAX_REPORTED = 20;

export function watchDeviceErrors(device: GPUDevice, signal: AbortSignal, report: (message: string, lost: boolean) => void): void {
  void device.lost.then((info) => {
    if (info.reason === 'destroyed' || signal.aborted) return;
    report(info.message || `reason: ${info.reason}`, true);
  });
  let count = 0;
  device.addEventListener('uncapturederror', (event) => {
    if (count++ >= MAX_REPORTED) return;
    console.error(`WebGPU error: ${event.error.message}`);
    report(event.error.message, false);
  }, { signal });
}
