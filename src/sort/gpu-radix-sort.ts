/**
 * GPU radix sort of (u32 key, u32 value) pairs, in the three-phase form:
 * for each digit, (1) every workgroup counts its tile's digits and adds
 * them into its block's sums, (2) one workgroup per block of tiles turns
 * those counts into each digit's base for each tile (where its pairs go,
 * radix_common.wgsl), (3) every workgroup ranks its tile stably and
 * scatters it into the other of two ping-pong buffers. No workgroup ever
 * waits on another inside a dispatch, so it runs on every WebGPU
 * implementation.
 *
 * Keeps the contract of sort-contract.ts. DOM-free: the browser, the Node
 * tests and the benchmark all use this same class.
 *
 * Usage: write keys and values into `sorter.keys` / `sorter.values` (or let
 * a compute pass do so), then `encode(encoder, { count })`; the sorted pairs
 * are in the buffers `encode` returns.
 */
import { checkKeyBits } from './sort-contract';
import { chooseRadixLayout, passCount, scanBlockTiles, type DigitBits, type RadixLayout, type Ranking } from './radix-layout';
import { checkSubgroupRanking } from './subgroup-check';
import { radixShaderSources } from './radix-shaders';
import { setTimestampWrites } from '../gpu/pass-timer';
import { createCheckedShaderModule } from '../gpu/shader';
import { CONTROL, COUNT_SOURCE, DISPATCH_ARGS, PASS } from './radix-structs';

export interface GpuRadixSortOptions {
  /** Pairs the buffers hold at first; `ensureCapacity` grows them. */
  capacity: number;
  digitBits?: DigitBits;
  /**
   * How tiles are ranked (radix-layout.ts). 'portable' (default): on an
   * H100 it is the faster of the two at every size (32-bit pairs: 0.097
   * against 0.125 ms at 1M, 0.898 against 1.08 ms at 16M;
   * docs/benchmarks.md), and it needs no subgroups and no startup check.
   * 'auto': the subgroup ranking where the device has subgroups and it
   * sorts a set of check inputs exactly as the CPU does (once per device),
   * else the portable one. 'subgroup' fails on a device without subgroups.
   */
  ranking?: Ranking | 'auto';
  /**
   * Size the subgroup ranking's ballot masks for subgroups this wide even if
   * the device's are narrower (they still work): lets tests run the
   * four-word masks of 64-lane GPUs on a 4-lane software device.
   */
  widestSubgroup?: number;
  /** Pairs per invocation (a multiple of 4, at most 32); default: radix-layout.ts's first choice that fits. */
  itemsPerInvocation?: number;
  /** Invocations per workgroup (radix-layout.ts); default: as the layout picks. */
  workgroupSize?: number;
  /**
   * Caps the workgroups per dispatch dimension below the device's limit, so
   * tests can reach the 2D tile grid (used past 65,535 tiles) at small sizes.
   */
  maxWorkgroupsPerDimension?: number;
  /**
   * Caps the scan phase's blocks of tiles (radix-layout.ts), so tests reach
   * blocks of several tiles (past SCAN_BLOCKS tiles) at small sizes.
   */
  scanBlocks?: number;
  label?: string;
}

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
   * in a buffer with COPY_SRC usage. Clamped to the capacity.
   */
  countBuffer?: { buffer: GPUBuffer; offset?: number };
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

function phaseWrites(querySet: GPUQuerySet, phase: number): GPUComputePassTimestampWrites {
  return { querySet, beginningOfPassWriteIndex: 2 * phase, endOfPassWriteIndex: 2 * phase + 1 };
}

export interface SortedBuffers {
  keys: GPUBuffer;
  values: GPUBuffer;
}


/** Workgroups of the count and scatter dispatches, when the count is known on the CPU. */
interface TileGrid {
  x: number;
  y: number;
  /** Workgroups of the scan phase: one per block. */
  blocks: number;
}

/** The ranking a sorter gets when none is asked for (see GpuRadixSortOptions.ranking). */
export const DEFAULT_RANKING: Ranking | 'auto' = 'portable';

/** One verdict per device on the subgroup ranking (GpuRadixSort.subgroupRankingUsable). */
const subgroupVerdicts = new WeakMap<GPUDevice, Promise<boolean>>();

function subgroupSizes(device: GPUDevice, widest = 0): { min: number; max: number } {
  const info = device.adapterInfo as GPUAdapterInfo & { subgroupMinSize?: number; subgroupMaxSize?: number };
  return { min: info.subgroupMinSize ?? 0, max: Math.max(info.subgroupMaxSize ?? 0, widest) };
}

interface Pipelines {
  prepare: GPUComputePipeline;
  count: GPUComputePipeline;
  scan: GPUComputePipeline;
  scatter: GPUComputePipeline;
  passLayout: GPUBindGroupLayout;
  prepareLayout: GPUBindGroupLayout;
}

/** Buffers that depend on the capacity; replaced together when it grows. */
interface SizedBuffers {
  capacity: number;
  keys: [GPUBuffer, GPUBuffer];
  values: [GPUBuffer, GPUBuffer];
  counts: GPUBuffer;
  /** bindGroups[d]: ping-pong direction d reads buffers[d], writes buffers[1 - d]. */
  bindGroups: [GPUBindGroup, GPUBindGroup];
  /** results[parity]: where an even (0) or odd (1) number of passes leaves the pairs. */
  results: [SortedBuffers, SortedBuffers];
}

export class GpuRadixSort {
  readonly layout: RadixLayout;
  private readonly passStride: number;
  private readonly blockSums: GPUBuffer;
  private readonly control: GPUBuffer;
  private readonly dispatchArgs: GPUBuffer;
  private readonly countSource: GPUBuffer;
  private readonly passInfo: GPUBuffer;
  private readonly prepareBindGroup: GPUBindGroup;
  private sized: SizedBuffers;
  /** passOffsets[p * digitBits + bits - 1]: the dynamic offset of pass p's uniform entry. */
  private readonly passOffsets: number[][] = [];
  private readonly passDescriptor: GPUComputePassDescriptor;
  private readonly controlScratch = new Uint32Array(CONTROL.size / 4);
  private readonly tileGrid: TileGrid = { x: 0, y: 0, blocks: 0 };

  static async create(device: GPUDevice, options: GpuRadixSortOptions): Promise<GpuRadixSort> {
    const limits = {
      maxComputeWorkgroupStorageSize: device.limits.maxComputeWorkgroupStorageSize,
      maxComputeInvocationsPerWorkgroup: device.limits.maxComputeInvocationsPerWorkgroup,
      maxComputeWorkgroupsPerDimension: Math.min(
        device.limits.maxComputeWorkgroupsPerDimension,
        options.maxWorkgroupsPerDimension ?? Infinity,
      ),
    };
    const make = async (ranking: Ranking) => {
      const layout = chooseRadixLayout(limits, {
        ranking,
        ...(ranking === 'subgroup' ? { subgroupSizes: subgroupSizes(device, options.widestSubgroup) } : {}),
        ...(options.digitBits ? { digitBits: options.digitBits } : {}),
        ...(options.itemsPerInvocation ? { itemsPerInvocation: options.itemsPerInvocation } : {}),
        ...(options.workgroupSize ? { workgroupSize: options.workgroupSize } : {}),
        ...(options.scanBlocks ? { scanBlocks: options.scanBlocks } : {}),
      });
      const pipelines = await createPipelines(device, layout, options.label ?? 'GpuRadixSort');
      return new GpuRadixSort(device, layout, pipelines, options);
    };
    const ranking = options.ranking ?? DEFAULT_RANKING;
    if (ranking === 'subgroup' && !device.features.has('subgroups')) {
      throw new Error('the subgroup ranking needs a device created with the "subgroups" feature');
    }
    if (ranking !== 'auto') return make(ranking);
    if (await GpuRadixSort.subgroupRankingUsable(device)) return make('subgroup');
    return make('portable');
  }

  /**
   * Whether this device has subgroups and the subgroup ranking sorts the
   * check inputs (subgroup-check.ts) exactly as the CPU does. Decided once
   * per device; the reason for a refusal is logged.
   */
  static subgroupRankingUsable(device: GPUDevice): Promise<boolean> {
    let verdict = subgroupVerdicts.get(device);
    if (!verdict) {
      verdict = device.features.has('subgroups')
        ? checkSubgroupRanking(device, () => GpuRadixSort.create(device, { capacity: 1, ranking: 'subgroup', label: 'GpuRadixSort.subgroupCheck' }))
        : Promise.resolve(false);
      subgroupVerdicts.set(device, verdict);
    }
    return verdict;
  }

  /** Which ranking this sorter's scatter phase uses. */
  get ranking(): Ranking {
    return this.layout.ranking;
  }

  private constructor(
    readonly device: GPUDevice,
    layout: RadixLayout,
    private readonly pipelines: Pipelines,
    options: GpuRadixSortOptions,
    private readonly label = options.label ?? 'GpuRadixSort',
  ) {
    this.layout = layout;
    this.passStride = Math.max(256, device.limits.minUniformBufferOffsetAlignment);
    this.blockSums = this.buffer('blockSums', this.blockSumBytes(passCount(32, layout.digitBits)), GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST);
    this.control = this.buffer('control', CONTROL.size, GPUBufferUsage.STORAGE | GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST);
    this.dispatchArgs = this.buffer('dispatchArgs', DISPATCH_ARGS.size, GPUBufferUsage.STORAGE | GPUBufferUsage.INDIRECT);
    this.countSource = this.buffer('countSource', COUNT_SOURCE.size, GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST);
    this.passInfo = this.createPassInfo();
    this.passDescriptor = { label: `${this.label}.pass` };
    this.prepareBindGroup = device.createBindGroup({
      label: `${this.label}.prepareBindGroup`,
      layout: pipelines.prepareLayout,
      entries: [
        { binding: 0, resource: { buffer: this.countSource } },
        { binding: 1, resource: { buffer: this.control } },
        { binding: 2, resource: { buffer: this.dispatchArgs } },
      ],
    });
    this.sized = this.createSizedBuffers(Math.max(0, options.capacity));
  }

  /** Largest pair count this device's buffer limits allow. */
  static maxCapacity(device: GPUDevice): number {
    const bytes = Math.min(device.limits.maxStorageBufferBindingSize, device.limits.maxBufferSize);
    return Math.floor(bytes / 16) * 4;
  }

  get capacity(): number {
    return this.sized.capacity;
  }

  /** Input keys: the first `count` u32s are sorted. Replaced when the capacity grows. */
  get keys(): GPUBuffer {
    return this.sized.keys[0];
  }

  /** Input values, paired with `keys`. Replaced when the capacity grows. */
  get values(): GPUBuffer {
    return this.sized.values[0];
  }

  /**
   * Grows the buffers to hold at least `capacity` pairs (never shrinks).
   * Returns true if they were replaced: contents are lost, and buffers held
   * from `keys`, `values` or `encode` must be fetched again.
   */
  ensureCapacity(capacity: number): boolean {
    if (capacity <= this.sized.capacity) return false;
    const max = GpuRadixSort.maxCapacity(this.device);
    if (capacity > max) {
      throw new RangeError(`${capacity} pairs exceed what this device can sort in one buffer (${max})`);
    }
    this.destroySized();
    this.sized = this.createSizedBuffers(capacity);
    return true;
  }

  /** Where `encode` leaves the sorted pairs for this key width (the passes' parity decides). */
  resultBuffers(keyBits = 32): SortedBuffers {
    checkKeyBits(keyBits);
    return this.sized.results[passCount(keyBits, this.layout.digitBits) % 2];
  }

  /**
   * Records the sort into `encoder`; returns where the sorted pairs will be.
   * Allocates nothing when called every frame (cached descriptors, offsets
   * and results).
   */
  encode(encoder: GPUCommandEncoder, options: SortEncodeOptions): SortedBuffers {
    const keyBits = options.keyBits ?? 32;
    checkKeyBits(keyBits);
    const tiles = this.encodeCount(encoder, options);
    const passes = passCount(keyBits, this.layout.digitBits);
    // The count phases add into the block sums.
    encoder.clearBuffer(this.blockSums, 0, this.blockSumBytes(passes));
    if (options.phaseTimestamps) {
      this.encodeProfiled(encoder, passes, keyBits, options.phaseTimestamps, tiles);
    } else {
      const descriptor = this.passDescriptor;
      setTimestampWrites(descriptor, options.timestampWrites);
      const pass = encoder.beginComputePass(descriptor);
      if (!tiles) this.recordPrepare(pass);
      for (let p = 0; p < passes; p++) {
        for (let phase = 0; phase < PHASES_PER_PASS; phase++) this.recordPhase(pass, p, keyBits, phase, tiles);
      }
      pass.end();
    }
    return this.resultBuffers(keyBits);
  }

  /** Every dispatch in a compute pass of its own, timed into `querySet` (see phaseTimestamps). */
  private encodeProfiled(encoder: GPUCommandEncoder, passes: number, keyBits: number, querySet: GPUQuerySet, tiles: TileGrid | null): void {
    const timed = (index: number) => encoder.beginComputePass({ label: `${this.label}.phase${index}`, timestampWrites: phaseWrites(querySet, index) });
    let pass = timed(0);
    if (!tiles) this.recordPrepare(pass);
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
    pass.setBindGroup(0, this.prepareBindGroup);
    pass.dispatchWorkgroups(1);
  }

  /** Bytes of block sums the count phases of `passes` passes add into (radix_common.wgsl). */
  private blockSumBytes(passes: number): number {
    return 4 * this.layout.radix * this.layout.scanBlocks * passes;
  }

  /**
   * Phase 0 (count), 1 (scan) or 2 (scatter) of radix pass `p`; tiles: the
   * grid when the count is known here.
   */
  private recordPhase(pass: GPUComputePassEncoder, p: number, keyBits: number, phase: number, tiles: TileGrid | null): void {
    const { layout, pipelines } = this;
    const bits = Math.min(layout.digitBits, keyBits - p * layout.digitBits);
    pass.setBindGroup(0, this.sized.bindGroups[p % 2], this.passOffsets[p * layout.digitBits + bits - 1]!);
    if (phase === 1) {
      pass.setPipeline(pipelines.scan);
      if (!tiles) pass.dispatchWorkgroupsIndirect(this.dispatchArgs, DISPATCH_ARGS.offset('scan_x'));
      else if (tiles.blocks > 0) pass.dispatchWorkgroups(tiles.blocks);
      return;
    }
    pass.setPipeline(phase === 0 ? pipelines.count : pipelines.scatter);
    if (!tiles) pass.dispatchWorkgroupsIndirect(this.dispatchArgs, 0);
    else if (tiles.x > 0) pass.dispatchWorkgroups(tiles.x, tiles.y);
  }

  destroy(): void {
    this.destroySized();
    for (const b of [this.blockSums, this.control, this.dispatchArgs, this.countSource, this.passInfo]) b.destroy();
  }

  /**
   * Hands the count to the sort: a GPU count is copied in for the prepare
   * step (returns null); a CPU count fills the control block here and
   * returns the tile grid to dispatch.
   */
  private encodeCount(encoder: GPUCommandEncoder, options: SortEncodeOptions): TileGrid | null {
    if (options.countBuffer) {
      if (options.count !== undefined) throw new Error('give either count or countBuffer, not both');
      const offset = options.countBuffer.offset ?? 0;
      encoder.copyBufferToBuffer(options.countBuffer.buffer, offset, this.countSource, COUNT_SOURCE.offset('count'), 4);
      return null;
    }
    const count = options.count;
    if (count === undefined || !Number.isInteger(count) || count < 0) {
      throw new RangeError(`count must be a non-negative integer, got ${count}`);
    }
    if (count > this.sized.capacity) {
      throw new RangeError(`count ${count} exceeds the sorter's capacity ${this.sized.capacity}; call ensureCapacity first`);
    }
    // The same arithmetic as radix_prepare.wgsl.
    const numTiles = Math.ceil(count / this.layout.tile);
    const grid = this.tileGrid;
    grid.x = Math.min(numTiles, this.layout.maxGroupsX);
    grid.y = grid.x > 0 ? Math.ceil(numTiles / grid.x) : 1;
    const blockTiles = scanBlockTiles(numTiles, this.layout.scanBlocks);
    grid.blocks = Math.ceil(numTiles / blockTiles);
    const control = this.controlScratch;
    control[CONTROL.word('n')] = count;
    control[CONTROL.word('num_tiles')] = numTiles;
    control[CONTROL.word('tiles_x')] = grid.x;
    control[CONTROL.word('block_tiles')] = blockTiles;
    this.device.queue.writeBuffer(this.control, 0, control);
    return grid;
  }

  /**
   * One uniform entry per (pass, digit width) at a dynamic offset: entry
   * p * digitBits + bits - 1 holds the shift and mask of pass p when its
   * digit has `bits` bits (fewer than digitBits only for a short last digit).
   */
  private createPassInfo(): GPUBuffer {
    const d = this.layout.digitBits;
    const maxPasses = Math.ceil(32 / d);
    const entries = maxPasses * d;
    const data = new Uint32Array((entries * this.passStride) / 4);
    for (let p = 0; p < maxPasses; p++) {
      for (let bits = 1; bits <= d; bits++) {
        const at = ((p * d + bits - 1) * this.passStride) / 4;
        data[at + PASS.word('shift')] = p * d;
        data[at + PASS.word('mask')] = (1 << bits) - 1;
        data[at + PASS.word('index')] = p;
        this.passOffsets[p * d + bits - 1] = [at * 4];
      }
    }
    const buffer = this.buffer('passInfo', data.byteLength, GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST);
    this.device.queue.writeBuffer(buffer, 0, data);
    return buffer;
  }


  private createSizedBuffers(requested: number): SizedBuffers {
    // Rounded to whole vec4s (the phases load keys 4 at a time); never empty.
    const capacity = Math.max(4, Math.ceil(requested / 4) * 4);
    const pairBytes = 4 * capacity;
    const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
    const keys: [GPUBuffer, GPUBuffer] = [this.buffer('keys[0]', pairBytes, usage), this.buffer('keys[1]', pairBytes, usage)];
    const values: [GPUBuffer, GPUBuffer] = [this.buffer('values[0]', pairBytes, usage), this.buffer('values[1]', pairBytes, usage)];
    const maxTiles = Math.ceil(capacity / this.layout.tile);
    const counts = this.buffer('counts', 4 * this.layout.radix * maxTiles, GPUBufferUsage.STORAGE);
    const bindGroup = (from: 0 | 1): GPUBindGroup =>
      this.device.createBindGroup({
        label: `${this.label}.bindGroup[${from}→${1 - from}]`,
        layout: this.pipelines.passLayout,
        entries: [
          { binding: 0, resource: { buffer: keys[from] } },
          { binding: 1, resource: { buffer: values[from] } },
          { binding: 2, resource: { buffer: keys[1 - from]! } },
          { binding: 3, resource: { buffer: values[1 - from]! } },
          { binding: 4, resource: { buffer: counts } },
          { binding: 5, resource: { buffer: this.blockSums } },
          { binding: 6, resource: { buffer: this.control } },
          { binding: 7, resource: { buffer: this.passInfo, size: Math.ceil(PASS.size / 16) * 16 } },
        ],
      });
    const countData = new Uint32Array(Math.ceil(COUNT_SOURCE.size / 16) * 4);
    countData[COUNT_SOURCE.word('capacity')] = capacity;
    this.device.queue.writeBuffer(this.countSource, 0, countData);
    return {
      capacity,
      keys,
      values,
      counts,
      bindGroups: [bindGroup(0), bindGroup(1)],
      results: [
        { keys: keys[0], values: values[0] },
        { keys: keys[1], values: values[1] },
      ],
    };
  }

  private destroySized(): void {
    const s = this.sized;
    for (const b of [...s.keys, ...s.values, s.counts]) b.destroy();
  }

  private buffer(name: string, size: number, usage: GPUBufferUsageFlags): GPUBuffer {
    return this.device.createBuffer({ label: `${this.label}.${name}`, size: Math.max(16, size), usage });
  }
}

async function createPipelines(device: GPUDevice, layout: RadixLayout, label: string): Promise<Pipelines> {
  const sources = radixShaderSources(layout);
  const storage = (binding: number, type: GPUBufferBindingType): GPUBindGroupLayoutEntry => ({
    binding,
    visibility: GPUShaderStage.COMPUTE,
    buffer: { type },
  });
  const prepareLayout = device.createBindGroupLayout({
    label: `${label}.prepareLayout`,
    entries: [storage(0, 'read-only-storage'), storage(1, 'storage'), storage(2, 'storage')],
  });
  const passLayout = device.createBindGroupLayout({
    label: `${label}.passLayout`,
    entries: [
      storage(0, 'read-only-storage'),
      storage(1, 'read-only-storage'),
      storage(2, 'storage'),
      storage(3, 'storage'),
      storage(4, 'storage'),
      storage(5, 'storage'),
      storage(6, 'uniform'),
      { binding: 7, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'uniform', hasDynamicOffset: true } },
    ],
  });
  const pipeline = async (name: keyof typeof sources, bindLayout: GPUBindGroupLayout) => {
    const module = await createCheckedShaderModule(device, `${label}.${name}`, sources[name]);
    return device.createComputePipeline({
      label: `${label}.${name}`,
      layout: device.createPipelineLayout({ label: `${label}.${name}Layout`, bindGroupLayouts: [bindLayout] }),
      compute: { module, entryPoint: 'main' },
    });
  };
  const prepare = await pipeline('prepare', prepareLayout);
  const count = await pipeline('count', passLayout);
  const scan = await pipeline('scan', passLayout);
  const scatter = await pipeline('scatter', passLayout);
  return { prepare, count, scan, scatter, passLayout, prepareLayout };
}
