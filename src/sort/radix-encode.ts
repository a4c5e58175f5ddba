/**
 * Records one sort into a command encoder: the count handed over (from the
 * CPU, or read where it lies in a GPU buffer by the prepare step), the
 * block sums cleared (by the prepare step for a GPU count), then count,
 * scan and scatter for each radix pass, in one compute pass (or one pass
 * per phase when profiling). Allocates nothing when called every frame
 * (cached descriptors, offsets, tile grid and prepare groups).
 */
import { checkKeyBits } from './sort-contract';
import { passCount, scanBlockTiles, type RadixLayout } from './radix-layout';
import type { RadixPipelines } from './radix-pipelines';
import type { RadixBuffers, SortedBuffers } from './radix-buffers';
import { CONTROL, COUNT_SOURCE, DISPATCH_ARGS } from './radix-structs';
import { setTimestampWrites } from '../gpu/pass-timer';

export interface SortEncodeOptions {
  /**
   * Pairs to sort, known on the CPU. Either this or `countBuffer`. A count
   * known here sizes the dispatches directly, without the prepare step and
   * the indirect dispatches a GPU-side count needs. It reaches the GPU by
   * queue.writeBuffer when `encode` is called (as a CPU count always has):
   * submit a sort before encoding the same sorter again.
   */
  count?: number;
  /**
   * Pairs to sort, read on the GPU from a u32 at `offset` (a multiple of 4)
   * in a buffer with STORAGE usage, where it lies. Clamped to the capacity.
   * The offset reaches the GPU by queue.writeBuffer when it changes, as
   * `countBound` does: the same rule as for `count` holds.
   */
  countBuffer?: { buffer: GPUBuffer; offset?: number };
  /**
   * With `countBuffer`: the most the GPU count can be, known on the CPU
   * (the count is clamped to it). The phases are then dispatched directly
   * for this many pairs, their workgroups past the count exiting at once,
   * instead of indirectly from the count: Dawn checks each indirect
   * dispatch with a pass of its own, and measured on an H200 (32-bit
   * keys, bench-sort --count gpu / gpu-bound) the 12 indirect dispatches
   * cost 0.055 ms, 150k pairs sorting in 0.127 ms against 0.072 with the
   * count on the CPU. Bounded, the idle workgroups cost less than that
   * even at 16 times the count: 150k pairs under a bound of 150k sort in
   * 0.074 ms; 1M under 4M, 8M and 16M in 0.105, 0.099 and 0.111 (0.147
   * indirect, 0.094 on the CPU); 4M under 4M and 16M in 0.239 and 0.265
   * (0.305 indirect, 0.236 on the CPU). A bound of 0 is none: the count
   * sizes the dispatches. Which devices get a bound: sort/count-bound.ts.
   */
  countBound?: number;
  /** Sort on the low keyBits bits of each key (default 32). */
  keyBits?: number;
  timestampWrites?: GPUComputePassTimestampWrites;
  /**
   * Profiling: puts every dispatch in a compute pass of its own, timed into
   * this query set (2 queries per phase: the prepare step, then count, scan,
   * scatter for each pass; see PHASES_PER_PASS; the prepare step is an
   * empty pass when the count is known on the CPU). Adds pass boundaries,
   * so the total is a little above an unprofiled sort.
   */
  phaseTimestamps?: GPUQuerySet;
}

/** Timed phases of one radix pass (count, scan, scatter), after the prepare step. */
export const PHASES_PER_PASS = 3;

/** Workgroups of the prepare step (64 invocations each): they clear the block sums, at most 64K words, a few each. */
const PREPARE_GROUPS = 16;

function phaseWrites(querySet: GPUQuerySet, phase: number): GPUComputePassTimestampWrites {
  return { querySet, beginningOfPassWriteIndex: 2 * phase, endOfPassWriteIndex: 2 * phase + 1 };
}

/** Workgroups of the count and scatter dispatches, when the count is known on the CPU. */
interface TileGrid {
  x: number;
  y: number;
  /** Workgroups of the scan phase: one per block. */
  blocks: number;
}

export class RadixSortEncoder {
  private readonly passDescriptor: GPUComputePassDescriptor;
  private readonly controlScratch = new Uint32Array(CONTROL.size / 4);
  private readonly boundWord = new Uint32Array(1);
  private readonly offsetWord = new Uint32Array(1);
  /** The buffer the GPU count of the sort being encoded lies in (for the prepare step's group). */
  private countBuffer: GPUBuffer | null = null;
  private readonly tileGrid: TileGrid = { x: 0, y: 0, blocks: 0 };

  constructor(
    private readonly device: GPUDevice,
    private readonly layout: RadixLayout,
    private readonly pipelines: RadixPipelines,
    private readonly buffers: RadixBuffers,
    private readonly label: string,
  ) {
    this.passDescriptor = { label: `${label}.pass` };
  }

  /** Where a sort on keyBits bits leaves the sorted pairs (the passes' parity decides). */
  resultBuffers(keyBits: number): SortedBuffers {
    checkKeyBits(keyBits);
    return this.buffers.result(passCount(keyBits, this.layout.digitBits) % 2 === 0 ? 0 : 1);
  }

  /** Records the sort into `encoder`; returns where the sorted pairs will be. */
  encode(encoder: GPUCommandEncoder, options: SortEncodeOptions): SortedBuffers {
    const keyBits = options.keyBits ?? 32;
    checkKeyBits(keyBits);
    const tiles = this.encodeCount(options);
    // A GPU count is turned into the phases' parameters on the GPU, bounded or not.
    const prepare = options.countBuffer !== undefined;
    const passes = passCount(keyBits, this.layout.digitBits);
    // The count phases add into the block sums: the prepare step clears them for a GPU count.
    if (!prepare) encoder.clearBuffer(this.buffers.blockSums, 0, this.buffers.blockSumBytes(passes));
    if (options.phaseTimestamps) {
      this.encodeProfiled(encoder, passes, keyBits, options.phaseTimestamps, tiles, prepare);
    } else {
      const descriptor = this.passDescriptor;
      setTimestampWrites(descriptor, options.timestampWrites);
      const pass = encoder.beginComputePass(descriptor);
      if (prepare) this.recordPrepare(pass);
      for (let p = 0; p < passes; p++) {
        for (let phase = 0; phase < PHASES_PER_PASS; phase++) this.recordPhase(pass, p, keyBits, phase, tiles);
      }
      pass.end();
    }
    return this.resultBuffers(keyBits);
  }

  /** Every dispatch in a compute pass of its own, timed into `querySet` (see phaseTimestamps). */
  private encodeProfiled(encoder: GPUCommandEncoder, passes: number, keyBits: number, querySet: GPUQuerySet, tiles: TileGrid | null, prepare: boolean): void {
    const timed = (index: number) => encoder.beginComputePass({ label: `${this.label}.phase${index}`, timestampWrites: phaseWrites(querySet, index) });
    let pass = timed(0);
    if (prepare) this.recordPrepare(pass);
    pass.end();
    for (let p = 0; p < passes; p++) {
      for (let phase = 0; phase < PHASES_PER_PASS; phase++) {
        pass = timed(1 + p * PHASES_PER_PASS + phase);
        this.recordPhase(pass, p, keyBits, phase, tiles);
        pass.end();
      }
    }
  }

  private recordPrepare(pass: GPUComputePassEncoder): void {
    pass.setPipeline(this.pipelines.prepare);
    pass.setBindGroup(0, this.buffers.prepareBindGroupFor(this.countBuffer!));
    pass.dispatchWorkgroups(PREPARE_GROUPS);
  }

  /**
   * Phase 0 (count), 1 (scan) or 2 (scatter) of radix pass `p`; tiles: the
   * grid when the count is known here.
   */
  private recordPhase(pass: GPUComputePassEncoder, p: number, keyBits: number, phase: number, tiles: TileGrid | null): void {
    const { layout, pipelines, buffers } = this;
    const bits = Math.min(layout.digitBits, keyBits - p * layout.digitBits);
    pass.setBindGroup(0, buffers.passBindGroup(p), buffers.passOffsets[p * layout.digitBits + bits - 1]!);
    if (phase === 1) {
      pass.setPipeline(pipelines.scan);
      if (!tiles) pass.dispatchWorkgroupsIndirect(buffers.dispatchArgs, DISPATCH_ARGS.offset('scan_x'));
      else if (tiles.blocks > 0) pass.dispatchWorkgroups(tiles.blocks);
      return;
    }
    pass.setPipeline(phase === 0 ? pipelines.count : pipelines.scatter);
    if (!tiles) pass.dispatchWorkgroupsIndirect(buffers.dispatchArgs, 0);
    else if (tiles.x > 0) pass.dispatchWorkgroups(tiles.x, tiles.y);
  }

  /**
   * Hands the count to the sort: a GPU count is read where it lies by the
   * prepare step, which sizes the indirect dispatches (returns null) or,
   * with a bound, fills the control block for the grid of the bound
   * (returned, to dispatch directly); a CPU count fills the control block
   * here and returns the tile grid to dispatch.
   */
  private encodeCount(options: SortEncodeOptions): TileGrid | null {
    if (options.countBuffer) {
      if (options.count !== undefined) throw new Error('give either count or countBuffer, not both');
      const bound = options.countBound === undefined ? 0 : this.checkedCount(options.countBound, 'countBound');
      // Written only when it changes (the buffers start, and start again when they grow, at 0).
      if (this.buffers.countBound !== bound) {
        this.buffers.countBound = bound;
        this.boundWord[0] = bound;
        this.device.queue.writeBuffer(this.buffers.countSource, COUNT_SOURCE.offset('bound'), this.boundWord);
      }
      const offset = options.countBuffer.offset ?? 0;
      if (!Number.isInteger(offset) || offset < 0 || offset % 4 !== 0) throw new RangeError(`countBuffer.offset must be a non-negative multiple of 4, got ${offset}`);
      // Written only when it changes, as the bound.
      if (this.buffers.countOffset !== offset / 4) {
        this.buffers.countOffset = offset / 4;
        this.offsetWord[0] = offset / 4;
        this.device.queue.writeBuffer(this.buffers.countSource, COUNT_SOURCE.offset('offset'), this.offsetWord);
      }
      this.countBuffer = options.countBuffer.buffer;
      return bound > 0 ? this.gridFor(bound) : null;
    }
    if (options.countBound !== undefined) throw new Error('countBound bounds a countBuffer; a count given on the CPU needs none');
    const count = this.checkedCount(options.count, 'count');
    const grid = this.gridFor(count);
    const numTiles = Math.ceil(count / this.layout.tile);
    const control = this.controlScratch;
    control[CONTROL.word('n')] = count;
    control[CONTROL.word('num_tiles')] = numTiles;
    control[CONTROL.word('tiles_x')] = grid.x;
    control[CONTROL.word('block_tiles')] = scanBlockTiles(numTiles, this.layout.scanBlocks);
    this.device.queue.writeBuffer(this.buffers.control, 0, control);
    return grid;
  }

  private checkedCount(count: number | undefined, name: string): number {
    if (count === undefined || !Number.isInteger(count) || count < 0) {
      throw new RangeError(`${name} must be a non-negative integer, got ${count}`);
    }
    const capacity = this.buffers.capacity;
    if (count > capacity) {
      throw new RangeError(`${name} ${count} exceeds the sorter's capacity ${capacity}; call ensureCapacity first`);
    }
    return count;
  }

  /** The dispatch grid for `count` pairs (reused; the same arithmetic as radix_prepare.wgsl). */
  private gridFor(count: number): TileGrid {
    const numTiles = Math.ceil(count / this.layout.tile);
    const grid = this.tileGrid;
    grid.x = Math.min(numTiles, this.layout.maxGroupsX);
    grid.y = grid.x > 0 ? Math.ceil(numTiles / grid.x) : 1;
    grid.blocks = Math.ceil(numTiles / scanBlockTiles(numTiles, this.layout.scanBlocks));
    return grid;
  }
}
