/**
 * Shader module creation that fails loudly: compilation errors are reported
 * with the line they point at, instead of surfacing later as an invalid
 * pipeline with no context. One module per device for each source: every
 * asker of the same source gets the first one's (its label), so that their
 * pipelines are one too (pipeline-cache.ts).
 */
export function createCheckedShaderModule(device: GPUDevice, label: string, code: string): Promise<GPUShaderModule> {
  let sources = modules.get(device);
  if (!sources) modules.set(device, (sources = new Map()));
  let module = sources.get(code);
  if (!module) sources.set(code, (module = checkedShaderModule(device, label, code)));
  return module;
}

const modules = new WeakMap<GPUDevice, Map<string, Promise<GPUShaderModule>>>();

/**
 * The same rule, made at once where the caller cannot wait (a pipeline
 * first needed mid-frame): one module per device for each source. Its
 * compilation errors are not awaited; they surface as the device's
 * uncaptured errors and an invalid pipeline.
 */
export function shaderModuleNow(device: GPUDevice, label: string, code: string): GPUShaderModule {
  let sources = modulesNow.get(device);
  if (!sources) modulesNow.set(device, (sources = new Map()));
  let module = sources.get(code);
  if (!module) sources.set(code, (module = device.createShaderModule({ label, code })));
  return module;
}

const modulesNow = new WeakMap<GPUDevice, Map<string, GPUShaderModule>>();

async function checkedShaderModule(device: GPUDevice, label: string, code: string): Promise<GPUShaderModule> {
  const module = device.createShaderModule({ label, code });
  const info = await module.getCompilationInfo();
  const errors = info.messages.filter((m) => m.type === 'error');
  if (errors.length > 0) {
    const lines = code.split('\n');
    const details = errors
      .map((m) => `${label}:${m.lineNum}:${m.linePos}: ${m.message}\n    ${lines[m.lineNum - 1] ?? ''}`)
      .join('\n');
    throw new Error(`WGSL compilation failed for ${label}:\n${details}`);
  }
  return module;
}
