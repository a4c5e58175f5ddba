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
 * tests and the benchmark all use this same class. Its parts: the
 * pipelines (radix-pipelines.ts), the buffers and their growth
 * (radix-buffers.ts), the recording of a sort (radix-encode.ts).
 *
 * Usage: write keys and values into `sorter.keys` / `sorter.values` (or let
 * a compute pass do so), then `encode(encoder, { count })`; the sorted pairs
 * are in the buffers `encode` returns.
 */
import { chooseRadixLayout, type DigitBits, type RadixLayout, type Ranking } from './radix-layout';
import { subgroupRankingVerdict } from './subgroup-check';
import { createRadixPipelines, type RadixPipelines } from './radix-pipelines';
import { RadixBuffers, type SortedBuffers } from './radix-buffers';
import { RadixSortEncoder, type SortEncodeOptions } from './radix-encode';

export type { SortedBuffers } from './radix-buffers';
export { PHASES_PER_PASS, type SortEncodeOptions } from './radix-encode';

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

/** The ranking a sorter gets when none is asked for (see GpuRadixSortOptions.ranking). */
export const DEFAULT_RANKING: Ranking | 'auto' = 'portable';

function subgroupSizes(device: GPUDevice, widest = 0): { min: number; max: number } {
  const info = device.adapterInfo as GPUAdapterInfo & { subgroupMinSize?: number; subgroupMaxSize?: number };
  return { min: info.subgroupMinSize ?? 0, max: Math.max(info.subgroupMaxSize ?? 0, widest) };
}

export class GpuRadixSort {
  private readonly buffers: RadixBuffers;
  private readonly encoder: RadixSortEncoder;

  static async create(device: GPUDevice, options: GpuRadixSortOptions): Promise<GpuRadixSort> {
    const limits = {
      maxComputeWorkgroupStorageSize: device.limits.maxComputeWorkgroupStorageSize,
      maxComputeInvocationsPerWorkgroup: device.limits.maxComputeInvocationsPerWorkgroup,
      maxComputeWorkgroupsPerDimension: Math.min(
        device.limits.maxComputeWorkgroupsPerDimension,
        options.maxWorkgroupsPerDimension ?? Infinity,
      ),
    };
    const label = options.label ?? 'GpuRadixSort';
    const make = async (ranking: Ranking) => {
      const layout = chooseRadixLayout(limits, {
        ranking,
        ...(ranking === 'subgroup' ? { subgroupSizes: subgroupSizes(device, options.widestSubgroup) } : {}),
        ...(options.digitBits ? { digitBits: options.digitBits } : {}),
        ...(options.itemsPerInvocation ? { itemsPerInvocation: options.itemsPerInvocation } : {}),
        ...(options.workgroupSize ? { workgroupSize: options.workgroupSize } : {}),
        ...(options.scanBlocks ? { scanBlocks: options.scanBlocks } : {}),
      });
      return new GpuRadixSort(device, layout, await createRadixPipelines(device, layout, label), options.capacity, label);
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
    return subgroupRankingVerdict(device, () => GpuRadixSort.create(device, { capacity: 1, ranking: 'subgroup', label: 'GpuRadixSort.subgroupCheck' }));
  }

  /** Largest pair count this device's buffer limits allow. */
  static maxCapacity(device: GPUDevice): number {
    const bytes = Math.min(device.limits.maxStorageBufferBindingSize, device.limits.maxBufferSize);
    return Math.floor(bytes / 16) * 4;
  }

  private constructor(
    readonly device: GPUDevice,
    readonly layout: RadixLayout,
    pipelines: RadixPipelines,
    capacity: number,
    label: string,
  ) {
    this.buffers = new RadixBuffers(device, layout, pipelines, capacity, label);
    this.encoder = new RadixSortEncoder(device, layout, pipelines, this.buffers, label);
  }

  /** Which ranking this sorter's scatter phase uses. */
  get ranking(): Ranking {
    return this.layout.ranking;
  }

  get capacity(): number {
    return this.buffers.capacity;
  }

  /** Input keys: the first `count` u32s are sorted. Replaced when the capacity grows. */
  get keys(): GPUBuffer {
    return this.buffers.input.keys;
  }

  /** Input values, paired with `keys`. Replaced when the capacity grows. */
  get values(): GPUBuffer {
    return this.buffers.input.values;
  }

  /**
   * Grows the buffers to hold at least `capacity` pairs (never shrinks).
   * Returns true if they were replaced: contents are lost, and buffers held
   * from `keys`, `values` or `encode` must be fetched again.
   */
  ensureCapacity(capacity: number): boolean {
    if (capacity <= this.buffers.capacity) return false;
    const max = GpuRadixSort.maxCapacity(this.device);
    if (capacity > max) {
      throw new RangeError(`${capacity} pairs exceed what this device can sort in one buffer (${max})`);
    }
    this.buffers.grow(capacity);
    return true;
  }

  /** Where `encode` leaves the sorted pairs for this key width (the passes' parity decides). */
  resultBuffers(keyBits = 32): SortedBuffers {
    return this.encoder.resultBuffers(keyBits);
  }

  /**
   * Records the sort into `encoder`; returns where the sorted pairs will be.
   * Allocates nothing when called every frame (cached descriptors, offsets
   * and results).
   */
  encode(encoder: GPUCommandEncoder, options: SortEncodeOptions): SortedBuffers {
    return this.encoder.encode(encoder, options);
  }

  destroy(): void {
    this.buffers.destroy();
  }
}
