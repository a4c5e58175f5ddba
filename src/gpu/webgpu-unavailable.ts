/** Why no viewer can start here: the browser has no WebGPU, or no GPU adapter it may use. */
export class WebGpuUnavailableError extends Error {
  override name = 'WebGpuUnavailableError';
}
