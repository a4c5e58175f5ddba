/**
 * The radix sort's size-independent state: its bind group layouts and its
 * four pipelines (prepare, count, scan, scatter), made once per sorter from
 * the layout's shader sources. The layouts' binding numbers come from the
 * slot tables in radix-structs.ts.
 */
import type { BindSlots } from '../gpu/bind-slots';
import { createCheckedShaderModule } from '../gpu/shader';
import type { RadixLayout } from './radix-layout';
import { radixShaderSources } from './radix-shaders';
import { RADIX_PASS_SLOTS, RADIX_PREPARE_SLOTS } from './radix-structs';
import { computePipeline, sharedOnDevice } from '../gpu/pipeline-cache';

export interface RadixPipelines {
  prepare: GPUComputePipeline;
  count: GPUComputePipeline;
  scan: GPUComputePipeline;
  scatter: GPUComputePipeline;
  /** Layout of RADIX_PASS_SLOTS, shared by the count, scan and scatter phases. */
  passLayout: GPUBindGroupLayout;
  /** Layout of RADIX_PREPARE_SLOTS. */
  prepareLayout: GPUBindGroupLayout;
}

type SlotName<T> = T extends BindSlots<infer N> ? N : never;

/** How each slot of the prepare step's group is bound. */
const PREPARE_BUFFERS: Record<SlotName<typeof RADIX_PREPARE_SLOTS>, GPUBufferBindingLayout> = {
  source: { type: 'read-only-storage' },
  control: { type: 'storage' },
  dispatch: { type: 'storage' },
  count_words: { type: 'read-only-storage' },
  block_sums: { type: 'storage' },
};

/**
 * How each slot of a radix pass's group is bound. The pass uniform sits at
 * a dynamic offset: one entry per (pass, digit width) in one buffer
 * (radix-buffers.ts).
 */
const PASS_BUFFERS: Record<SlotName<typeof RADIX_PASS_SLOTS>, GPUBufferBindingLayout> = {
  keys_in: { type: 'read-only-storage' },
  values_in: { type: 'read-only-storage' },
  keys_out: { type: 'storage' },
  values_out: { type: 'storage' },
  counts: { type: 'storage' },
  block_sums: { type: 'storage' },
  control: { type: 'uniform' },
  pass_info: { type: 'uniform', hasDynamicOffset: true },
};

/** A compute-only bind group layout's entries: each slot's binding from the table, its buffer binding from `buffers`. */
function layoutEntries<N extends string>(table: BindSlots<N>, buffers: Record<N, GPUBufferBindingLayout>): GPUBindGroupLayoutEntry[] {
  return (Object.keys(buffers) as N[])
    .map((slot) => ({ binding: table.slots[slot], visibility: GPUShaderStage.COMPUTE, buffer: buffers[slot] }))
    .sort((a, b) => a.binding - b.binding);
}

/** The pipelines of `layout`, made once per device (pipeline-cache.ts): every sorter of the same layout shares them and their bind group layouts. */
export function createRadixPipelines(device: GPUDevice, layout: RadixLayout, label: string): Promise<RadixPipelines> {
  const sources = radixShaderSources(layout);
  return sharedOnDevice(device, `radix ${Object.values(sources).join('\n')}`, () => makeRadixPipelines(device, sources, label));
}

async function makeRadixPipelines(device: GPUDevice, sources: ReturnType<typeof radixShaderSources>, label: string): Promise<RadixPipelines> {
  const prepareLayout = device.createBindGroupLayout({
    label: `${label}.prepareLayout`,
    entries: layoutEntries(RADIX_PREPARE_SLOTS, PREPARE_BUFFERS),
  });
  const passLayout = device.createBindGroupLayout({
    label: `${label}.passLayout`,
    entries: layoutEntries(RADIX_PASS_SLOTS, PASS_BUFFERS),
  });
  const pipeline = async (name: keyof typeof sources, bindLayout: GPUBindGroupLayout) => {
    const module = await createCheckedShaderModule(device, `${label}.${name}`, sources[name]);
    return computePipeline(device, {
      label: `${label}.${name}`,
      layout: device.createPipelineLayout({ label: `${label}.${name}Layout`, bindGroupLayouts: [bindLayout] }),
      compute: { module, entryPoint: 'main' },
    });
  };
  // Compiled side by side, without blocking the thread.
  const [prepare, count, scan, scatter] = await Promise.all([
    pipeline('prepare', prepareLayout),
    pipeline('count', passLayout),
    pipeline('scan', passLayout),
    pipeline('scatter', passLayout),
  ]);
  return { prepare, count, scan, scatter, passLayout, prepareLayout };
}
