/**
 * Whether a WebGPU adapter runs on the CPU (SwiftShader, llvmpipe, WARP…):
 * there every workgroup costs about a millisecond, so what is cheap on a
 * GPU (idle workgroups, large self-tests) is not. DOM-free.
 */
const SOFTWARE_ADAPTER = /swiftshader|llvmpipe|lavapipe|softpipe|software|basic render|warp/i;

/** Whether `device` runs on a software adapter (its adapterInfo, where the browser gives one). */
export function isSoftwareDevice(device: GPUDevice): boolean {
  return isSoftwareAdapterInfo((device as GPUDevice & { adapterInfo?: GPUAdapterInfo }).adapterInfo);
}

/** From the adapter's info (GPUAdapter.info, or GPUDevice.adapterInfo): its fallback flag, else its names. */
export function isSoftwareAdapterInfo(info: GPUAdapterInfo | undefined): boolean {
  if (!info) return false;
  if ((info as GPUAdapterInfo & { isFallbackAdapter?: boolean }).isFallbackAdapter) return true;
  return SOFTWARE_ADAPTER.test([info.vendor, info.architecture, info.device, info.description].join(' '));
}
