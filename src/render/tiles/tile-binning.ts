/**
 * Tile binning (shaders/tile_bin.wgsl, its candidates in
 * shaders/tile_candidates.wgsl, its budget's cut in
 * shaders/tile_bin_budget.wgsl): the draw order's splats become
 * (tile, splat) pairs in that order, in three dispatches of one compute
 * pass over one bind group (the pipelines share an explicit layout): per
 * entry its box of tiles (a small box then written by the entry's own
 * thread, a larger one's tiles made candidates), the budget's scan, then
 * every tile of the kept boxes written to a slot of its own.
 */
import commonSource from '../../../shaders/splat_common.wgsl?raw';
import recordsSource from '../../../shaders/splat_records.wgsl?raw';
import sumSource from '../../../shaders/workgroup_sum.wgsl?raw';
import saturatingSumSource from '../../../shaders/saturating_sum.wgsl?raw';
import dispatchSource from '../../../shaders/dispatch.wgsl?raw';
import stateSource from '../../../shaders/tile_state.wgsl?raw';
import footprintSource from '../../../shaders/tile_footprint.wgsl?raw';
import binSource from '../../../shaders/tile_bin.wgsl?raw';
import candidatesSource from '../../../shaders/tile_candidates.wgsl?raw';
import budgetSource from '../../../shaders/tile_bin_budget.wgsl?raw';
import { createCheckedShaderModule } from '../../gpu/shader';
import { unrollConstantLoops } from '../../gpu/wgsl-unroll';
import { TILE_BIN_ARGS, TILE_BIN_ARGS_SLOTS, TILE_BIN_SLOTS } from '../frame-layouts';
import { computePipeline, sharedOnDevice } from '../../gpu/pipeline-cache';
import { TILE_SIZE, type TileSide } from './tile-side';

/** Entries of the order per binning workgroup (BIN_GROUP in shaders/tile_state.wgsl). */
export const BIN_GROUP = 256;

/**
 * The largest box of tiles an entry's own thread bins, by the tiles' side;
 * larger boxes are spread over a thread per tile (a candidate), which first
 * finds its entry by searching the scanned boxes. Measured on an H200 at
 * 1920×1080, in one run each (docs/benchmarks.md, "Small splats binned by
 * their own threads"): on 8-pixel tiles, which a frame draws where its
 * splats are small, boxes of up to 4 tiles took the replicated scene's
 * binning to 0.61–0.92× (up to 2: 0.93–1.12×; up to 8: 0.62–0.90×). On
 * 16-pixel tiles, up to 4 took the real scenes' binning to 1.08–1.15×
 * (the replicated scene's from inside to 0.91×): there the entries' own
 * loops cost more than the candidates' searches they save.
 */
export const DIRECT_TILES: Readonly<Record<TileSide, number>> = { 8: 4, 16: 0 };

/** The key of a slot whose tile its splat does not touch (NO_TILE in shaders/tile_state.wgsl). */
export const NO_TILE = 0xffffffff;

/**
 * Bits of the pair sort's key for a frame of `tiles` tiles: the tile, and
 * NO_TILE's low bits, which must lie past every tile (box slots, below).
 */
export function pairKeyBits(tiles: number): number {
  return Math.max(1, Math.ceil(Math.log2(tiles + 1)));
}

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

/**
 * The binning's entry points, in the order they run; the quad renderer's
 * cut runs the first two. Box slots: every tile of a kept entry's box is
 * a pair slot of its own, the entry's slots one after another in the
 * order's order, and a tile the splat's footprint does not touch is
 * written there as NO_TILE (shaders/tile_state.wgsl), which the pair sort
 * puts after every tile. So nothing is counted before it is written: three
 * dispatches where counting the touched tiles first took six, one search
 * per candidate where it took two, and a direct entry tests its tiles
 * once. The sort takes the boxes' tiles instead of the touched ones.
 * Measured on an H200 at 1920×1080 against counting, two runs of two turns
 * each (docs/benchmarks.md, "Box slots"):
 * - 16-pixel tiles: the real scenes' views sort 1.6–2.8 times the pairs,
 *   where a sort of a million costs little more than one of a few hundred
 *   thousand; binning 0.52–0.55×, frames 0.93–1.00× (9k from inside
 *   1.02×, 2.8 slots a touched pair); the replicated scene from inside
 *   0.82–0.83×;
 * - 8-pixel tiles (the replicated scene from outside and on the way in):
 *   1.2–1.4 times the pairs, binning 0.66–0.71×, pair sort 1.11–1.28×,
 *   frames 0.94–0.95×.
 */
const BIN_STEPS = ['count_boxes', 'scan_boxes', 'write_pairs'] as const;
type BinStep = (typeof BIN_STEPS)[number];

export class TileBinning {
  private readonly bound: { buffers: BinBuffers; group: GPUBindGroup }[] = [];

  /**
   * The binning to tiles `side` pixels across; `cutOnly` for the quad
   * renderer's cut (encodeCut), whose scan leaves the pair total and its
   * kept quads' draw alone.
   */
  static async create(device: GPUDevice, frame: GPUBuffer, footprint: TileFootprint = 'ellipse', side: TileSide = TILE_SIZE, cutOnly = false): Promise<TileBinning> {
    // The scene's chunk declarations come with the prelude; this module binds none of them.
    const source = [commonSource, recordsSource, sumSource, saturatingSumSource, dispatchSource, stateSource, footprintSource, candidatesSource, binSource, budgetSource].join('\n');
    // The scan's reads ahead (READ_AHEAD, shaders/tile_bin.wgsl) are unrolled, so their words stay in registers.
    const module = await createCheckedShaderModule(device, 'TileBinning.shader', unrollConstantLoops(source));
    // Made once per device and footprint (pipeline-cache.ts): every tile renderer on the device shares them and their layouts.
    const steps = cutOnly ? BIN_STEPS.slice(0, 2) : BIN_STEPS;
    const { layout, argsLayout, pipelines } = await sharedOnDevice(device, `TileBinning ${footprint} ${side}${cutOnly ? ' cut' : ''}`, async () => {
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
      const argsLayout = device.createBindGroupLayout({
        label: 'TileBinning.argsLayout',
        entries: [{ binding: TILE_BIN_ARGS_SLOTS.slots.bin_args, visibility: GPUShaderStage.COMPUTE, buffer: storage('storage') }],
      });
      const pipelineLayout = device.createPipelineLayout({ label: 'TileBinning.pipelineLayout', bindGroupLayouts: [layout] });
      const argsPipelineLayout = device.createPipelineLayout({ label: 'TileBinning.argsPipelineLayout', bindGroupLayouts: [layout, argsLayout] });
      const pipeline = (entryPoint: BinStep) =>
        computePipeline(device, {
          label: `TileBinning.${entryPoint}(tiles ${side})`,
          layout: entryPoint === 'scan_boxes' ? argsPipelineLayout : pipelineLayout,
          compute: {
            module,
            entryPoint,
            constants: { chunked: 0, TILE_SIZE: side, footprint_test: footprint === 'ellipse' ? 1 : 0, direct_tiles: DIRECT_TILES[side], cut_only: cutOnly ? 1 : 0 },
          },
        });
      const pipelines = await Promise.all(steps.map((step) => pipeline(step)));
      return { layout, argsLayout, pipelines };
    });
    const args = device.createBuffer({ label: 'TileBinning.args', size: TILE_BIN_ARGS.size, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.INDIRECT });
    const argsGroup = device.createBindGroup({ label: 'TileBinning.argsBindGroup', layout: argsLayout, entries: TILE_BIN_ARGS_SLOTS.entries({ bin_args: { buffer: args } }) });
    return new TileBinning(device, frame, layout, steps, pipelines, args, argsGroup);
  }

  private constructor(
    private readonly device: GPUDevice,
    private readonly frame: GPUBuffer,
    private readonly layout: GPUBindGroupLayout,
    /** The entry points this side's binning runs, in order. */
    private readonly steps: readonly BinStep[],
    /** One per entry of `steps`. */
    private readonly pipelines: GPUComputePipeline[],
    /** The indirect dispatches' sizes (TILE_BIN_ARGS): the binning's own, and the ranges'. */
    readonly args: GPUBuffer,
    private readonly argsGroup: GPUBindGroup,
  ) {}

  /**
   * Records the three dispatches into `pass`: `groups` is the workgroup
   * grid covering the most entries; the write is sized on the GPU.
   */
  encode(pass: GPUComputePassEncoder, buffers: BinBuffers, groups: readonly [number, number]): void {
    pass.setBindGroup(0, this.bindGroupFor(buffers));
    pass.setBindGroup(1, this.argsGroup);
    this.steps.forEach((step, i) => {
      pass.setPipeline(this.pipelines[i]!);
      if (step === 'scan_boxes') pass.dispatchWorkgroups(1);
      else if (step === 'write_pairs') pass.dispatchWorkgroupsIndirect(this.args, TILE_BIN_ARGS.offset('write_x'));
      else pass.dispatchWorkgroups(groups[0], groups[1]);
    });
  }

  /**
   * Records the first two dispatches alone (count_boxes, scan_boxes): the
   * candidate budget's cut and the kept quads' drawIndirect arguments in
   * the state, for the quad renderer (quad-cut.ts).
   */
  encodeCut(pass: GPUComputePassEncoder, buffers: BinBuffers, groups: readonly [number, number]): void {
    pass.setBindGroup(0, this.bindGroupFor(buffers));
    pass.setBindGroup(1, this.argsGroup);
    pass.setPipeline(this.pipelines[this.steps.indexOf('count_boxes')]!);
    pass.dispatchWorkgroups(groups[0], groups[1]);
    pass.setPipeline(this.pipelines[this.steps.indexOf('scan_boxes')]!);
    pass.dispatchWorkgroups(1);
  }

  destroy(): void {
    this.args.destroy();
  }

  private bindGroupFor(buffers: BinBuffers): GPUBindGroup {
    const bound = this.bound;
    const same = (a: BinBuffers) =>
      a.records === buffers.records && a.order === buffers.order && a.state === buffers.state && a.keys === buffers.keys && a.values === buffers.values;
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
