/**
 * Tile binning (shaders/tile_bin.wgsl): the draw order's splats become
 * (tile, splat) pairs in that order, in three dispatches of one compute
 * pass (count, scan of the counts, write) over one bind group. The pipelines
 * share an explicit layout so that one group serves all three.
 */
import commonSource from '../../../shaders/splat_common.wgsl?raw';
import recordsSource from '../../../shaders/splat_records.wgsl?raw';
import sumSource from '../../../shaders/workgroup_sum.wgsl?raw';
import stateSource from '../../../shaders/tile_state.wgsl?raw';
import footprintSource from '../../../shaders/tile_footprint.wgsl?raw';
import binSource from '../../../shaders/tile_bin.wgsl?raw';
import { createCheckedShaderModule } from '../../gpu/shader';
import { TILE_BIN_SLOTS } from '../frame-layouts';

/** Entries of the order per binning workgroup (BIN_GROUP in shaders/tile_state.wgsl). */
export const BIN_GROUP = 256;

/**
 * Which tiles a splat is binned to: those its footprint touches (the
 * opacity-aware ellipse within its quad, tested against each tile), or
 * every tile of its quad's bounding box (the benchmark's comparison).
 */
export type TileFootprint = 'ellipse' | 'box';

/** The buffers one binning reads and writes. */
export interface BinBuffers {
  records: GPUBuffer;
  order: GPUBuffer;
  state: GPUBuffer;
  keys: GPUBuffer;
  values: GPUBuffer;
}

const BOUND_GROUPS = 2;

export class TileBinning {
  private readonly bound: { buffers: BinBuffers; group: GPUBindGroup }[] = [];

  static async create(device: GPUDevice, frame: GPUBuffer, footprint: TileFootprint = 'ellipse'): Promise<TileBinning> {
    // The scene's chunk declarations come with the prelude; this module binds none of them.
    const module = await createCheckedShaderModule(device, 'TileBinning.shader', [commonSource, recordsSource, sumSource, stateSource, footprintSource, binSource].join('\n'));
    const storage = (type: GPUBufferBindingType): GPUBindGroupLayoutEntry['buffer'] => ({ type });
    const s = TILE_BIN_SLOTS.slots;
    const layout = device.createBindGroupLayout({
      label: 'TileBinning.layout',
      entries: [
        { binding: s.frame, visibility: GPUShaderStage.COMPUTE, buffer: storage('uniform') },
        { binding: s.records, visibility: GPUShaderStage.COMPUTE, buffer: storage('read-only-storage') },
        { binding: s.order, visibility: GPUShaderStage.COMPUTE, buffer: storage('read-only-storage') },
        { binding: s.state, visibility: GPUShaderStage.COMPUTE, buffer: storage('storage') },
        { binding: s.keys, visibility: GPUShaderStage.COMPUTE, buffer: storage('storage') },
        { binding: s.values, visibility: GPUShaderStage.COMPUTE, buffer: storage('storage') },
      ],
    });
    const pipelineLayout = device.createPipelineLayout({ label: 'TileBinning.pipelineLayout', bindGroupLayouts: [layout] });
    const pipeline = (entryPoint: string) =>
      device.createComputePipelineAsync({ label: `TileBinning.${entryPoint}`, layout: pipelineLayout, compute: { module, entryPoint, constants: { chunked: 0, footprint_test: footprint === 'ellipse' ? 1 : 0 } } });
    const [count, scan, write] = await Promise.all([pipeline('count_pairs'), pipeline('scan_groups'), pipeline('write_pairs')]);
    return new TileBinning(device, frame, layout, count, scan, write);
  }

  private constructor(
    private readonly device: GPUDevice,
    private readonly frame: GPUBuffer,
    private readonly layout: GPUBindGroupLayout,
    private readonly countPipeline: GPUComputePipeline,
    private readonly scanPipeline: GPUComputePipeline,
    private readonly writePipeline: GPUComputePipeline,
  ) {}

  /** Records the three dispatches into `pass`; `groups` is the workgroup grid covering the most entries. */
  encode(pass: GPUComputePassEncoder, buffers: BinBuffers, groups: readonly [number, number]): void {
    const group = this.bindGroupFor(buffers);
    pass.setBindGroup(0, group);
    pass.setPipeline(this.countPipeline);
    pass.dispatchWorkgroups(groups[0], groups[1]);
    pass.setPipeline(this.scanPipeline);
    pass.dispatchWorkgroups(1);
    pass.setPipeline(this.writePipeline);
    pass.dispatchWorkgroups(groups[0], groups[1]);
  }

  private bindGroupFor(buffers: BinBuffers): GPUBindGroup {
    const bound = this.bound;
    const same = (a: BinBuffers) => a.records === buffers.records && a.order === buffers.order && a.state === buffers.state && a.keys === buffers.keys && a.values === buffers.values;
    for (const b of bound) if (same(b.buffers)) return b.group;
    const group = this.device.createBindGroup({
      label: 'TileBinning.bindGroup',
      layout: this.layout,
      entries: TILE_BIN_SLOTS.entries({
        frame: { buffer: this.frame },
        records: { buffer: buffers.records },
        order: { buffer: buffers.order },
        state: { buffer: buffers.state },
        keys: { buffer: buffers.keys },
        values: { buffer: buffers.values },
      }),
    });
    // Two kept: the difference view bins two orders a frame.
    if (bound.length === BOUND_GROUPS) bound.pop();
    bound.unshift({ buffers: { ...buffers }, group });
    return group;
  }
}
