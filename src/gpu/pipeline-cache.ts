/**
 * One compiled pipeline per device for each description: every viewer on a
 * page (and every frame a test or benchmark makes) that asks for the same
 * shader, entry point, constants and targets gets the pipeline the first
 * one made. Compiling is what costs (on SwiftShader, seconds for a frame's
 * pipelines); each asker still makes its own buffers and bind groups. The
 * pipelines live as long as their device: WebGPU has no way to free one,
 * and a viewer made again reuses them.
 *
 * The key is the descriptor with its label left out and each GPU object in
 * it (a shader module, an explicit pipeline layout) named by an id; shader
 * modules are shared the same way (shader.ts), so two askers' modules of
 * one source are one object and their keys match.
 */
const ids = new WeakMap<object, number>();
let nextId = 0;

function keyOf(descriptor: object): string {
  return JSON.stringify(descriptor, (key, value: unknown) => {
    if (key === 'label') return undefined;
    if (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) !== Object.prototype) {
      let id = ids.get(value);
      if (id === undefined) ids.set(value, (id = nextId++));
      return `#${id}`;
    }
    return value;
  });
}

type Made = Promise<GPUComputePipeline> | GPUComputePipeline | Promise<GPURenderPipeline>;
const made = new WeakMap<GPUDevice, Map<string, Made>>();

function cacheOf(device: GPUDevice): Map<string, Made> {
  let cache = made.get(device);
  if (!cache) made.set(device, (cache = new Map()));
  return cache;
}

/** The device's compute pipeline for `descriptor`, made once (createComputePipelineAsync). */
export function computePipeline(device: GPUDevice, descriptor: GPUComputePipelineDescriptor): Promise<GPUComputePipeline> {
  const cache = cacheOf(device);
  const key = `compute ${keyOf(descriptor)}`;
  let pipeline = cache.get(key) as Promise<GPUComputePipeline> | GPUComputePipeline | undefined;
  if (!pipeline) cache.set(key, (pipeline = device.createComputePipelineAsync(descriptor)));
  return Promise.resolve(pipeline);
}

/** The same, made at once (createComputePipeline) where the caller cannot wait: a pipeline first asked for mid-frame. */
export function computePipelineNow(device: GPUDevice, descriptor: GPUComputePipelineDescriptor): GPUComputePipeline {
  const cache = cacheOf(device);
  const key = `compute-now ${keyOf(descriptor)}`;
  let pipeline = cache.get(key) as GPUComputePipeline | undefined;
  if (!pipeline) cache.set(key, (pipeline = device.createComputePipeline(descriptor)));
  return pipeline;
}

/** The device's render pipeline for `descriptor`, made once (createRenderPipelineAsync). */
export function renderPipeline(device: GPUDevice, descriptor: GPURenderPipelineDescriptor): Promise<GPURenderPipeline> {
  const cache = cacheOf(device);
  const key = `render ${keyOf(descriptor)}`;
  let pipeline = cache.get(key) as Promise<GPURenderPipeline> | undefined;
  if (!pipeline) cache.set(key, (pipeline = device.createRenderPipelineAsync(descriptor)));
  return pipeline;
}

const shared = new WeakMap<GPUDevice, Map<string, Promise<unknown>>>();

/**
 * What `make` compiles for the device, made once per `key`: for pipelines
 * that come with explicit bind group layouts, whose bind groups must be
 * made from the same layout objects (the key names everything `make`
 * depends on: its sources and constants).
 */
export function sharedOnDevice<T>(device: GPUDevice, key: string, make: () => Promise<T>): Promise<T> {
  let cache = shared.get(device);
  if (!cache) shared.set(device, (cache = new Map()));
  let value = cache.get(key) as Promise<T> | undefined;
  if (!value) cache.set(key, (value = make()));
  return value;
}
