/**
 * The radix sort's buffers and bind groups. The small ones are made once
 * per sorter (block sums, control block, dispatch arguments, the count's
 * source, the per-pass uniforms); the ones that depend on the capacity (the
 * ping-pong pairs and the per-tile counts) are replaced together when it
 * grows, to a high-water mark. Every group's entries come from the slot
 * tables in radix-structs.ts.
 */
import { passCount, type RadixLayout } from './radix-layout';
import type { RadixPipelines } from './radix-pipelines';
import { COUNT_SOURCE, CONTROL, DISPATCH_ARGS, PASS, RADIX_PASS_SLOTS, RADIX_PREPARE_SLOTS } from './radix-structs';

export interface SortedBuffers {
  keys: GPUBuffer;
  values: GPUBuffer;
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

export class RadixBuffers {
  readonly blockSums: GPUBuffer;
  readonly control: GPUBuffer;
  readonly dispatchArgs: GPUBuffer;
  readonly countSource: GPUBuffer;
  readonly passInfo: GPUBuffer;
  /** The prepare step's group for each buffer a count was read from (the count is read where it lies). */
  private readonly prepareGroups = new WeakMap<GPUBuffer, GPUBindGroup>();
  /** passOffsets[p * digitBits + bits - 1]: the dynamic offset of pass p's uniform entry. */
  readonly passOffsets: number[][] = [];
  /** The bound on a GPU count in countSource (0: none), as last written there (radix-encode.ts). */
  countBound = 0;
  /** The word of its buffer a GPU count is read from, as last written in countSource. */
  countOffset = 0;
  private readonly passStride: number;
  private sized: SizedBuffers;

  constructor(
    private readonly device: GPUDevice,
    private readonly layout: RadixLayout,
    private readonly pipelines: RadixPipelines,
    capacity: number,
    private readonly label: string,
  ) {
    this.passStride = Math.max(256, device.limits.minUniformBufferOffsetAlignment);
    this.blockSums = this.buffer('blockSums', this.blockSumBytes(passCount(32, layout.digitBits)), GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST);
    this.control = this.buffer('control', CONTROL.size, GPUBufferUsage.STORAGE | GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST);
    this.dispatchArgs = this.buffer('dispatchArgs', DISPATCH_ARGS.size, GPUBufferUsage.STORAGE | GPUBufferUsage.INDIRECT);
    this.countSource = this.buffer('countSource', COUNT_SOURCE.size, GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST);
    this.passInfo = this.createPassInfo();
    this.sized = this.createSized(Math.max(0, capacity));
  }

  /** Pairs the sized buffers hold (a whole number of vec4s). */
  get capacity(): number {
    return this.sized.capacity;
  }

  /** The prepare step's group reading a count in `countBuffer` (which needs STORAGE usage). */
  prepareBindGroupFor(countBuffer: GPUBuffer): GPUBindGroup {
    let group = this.prepareGroups.get(countBuffer);
    if (!group) {
      group = this.device.createBindGroup({
        label: `${this.label}.prepareBindGroup(${countBuffer.label})`,
        layout: this.pipelines.prepareLayout,
        entries: RADIX_PREPARE_SLOTS.entries({
          source: { buffer: this.countSource },
          control: { buffer: this.control },
          dispatch: { buffer: this.dispatchArgs },
          count_words: { buffer: countBuffer },
          block_sums: { buffer: this.blockSums },
        }),
      });
      this.prepareGroups.set(countBuffer, group);
    }
    return group;
  }

  /** The sort's input pairs (ping-pong side 0). */
  get input(): SortedBuffers {
    return this.sized.results[0];
  }

  /** Where an even (0) or odd (1) number of passes leaves the pairs. */
  result(parity: 0 | 1): SortedBuffers {
    return this.sized.results[parity];
  }

  /** The bind group of radix pass p (its ping-pong direction). */
  passBindGroup(p: number): GPUBindGroup {
    return this.sized.bindGroups[p % 2];
  }

  /** Bytes of block sums the count phases of `passes` passes add into (radix_common.wgsl). */
  blockSumBytes(passes: number): number {
    return 4 * this.layout.radix * this.layout.scanBlocks * passes;
  }

  /** Replaces the sized buffers with ones of at least `capacity` pairs; their contents are lost. */
  grow(capacity: number): void {
    this.destroySized();
    this.sized = this.createSized(capacity);
  }

  destroy(): void {
    this.destroySized();
    for (const b of [this.blockSums, this.control, this.dispatchArgs, this.countSource, this.passInfo]) b.destroy();
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

  private createSized(requested: number): SizedBuffers {
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
        entries: RADIX_PASS_SLOTS.entries({
          keys_in: { buffer: keys[from] },
          values_in: { buffer: values[from] },
          keys_out: { buffer: keys[1 - from]! },
          values_out: { buffer: values[1 - from]! },
          counts: { buffer: counts },
          block_sums: { buffer: this.blockSums },
          control: { buffer: this.control },
          pass_info: { buffer: this.passInfo, size: Math.ceil(PASS.size / 16) * 16 },
        }),
      });
    const countData = new Uint32Array(Math.ceil(COUNT_SOURCE.size / 16) * 4);
    countData[COUNT_SOURCE.word('capacity')] = capacity;
    // No bound (0) and the count at word 0 until a sort gives others.
    this.device.queue.writeBuffer(this.countSource, 0, countData);
    this.countBound = 0;
    this.countOffset = 0;
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
