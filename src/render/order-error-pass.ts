/**
 * The ordering-error measure (shaders/order_error.wgsl), run on request:
 * how far a drawn order is from the exact back-to-front order of this
 * frame's f32 view depths. DOM-free; the viewer, the tests and the frame
 * benchmark use it. One measure at a time: `encode`, submit, `read`.
 */
import commonSource from '../../shaders/splat_common.wgsl?raw';
import recordsSource from '../../shaders/splat_records.wgsl?raw';
import dispatchSource from '../../shaders/dispatch.wgsl?raw';
import errorSource from '../../shaders/order_error.wgsl?raw';
import { createCheckedShaderModule } from '../gpu/shader';
import { ORDER_ERROR, ORDER_ERROR_SLOTS } from './frame-layouts';
import type { GpuCount } from './splat-projector';
import { computePipeline } from '../gpu/pipeline-cache';

export interface OrderErrorMeasure {
  /** Adjacent pairs of the order whose splats were both kept this frame. */
  pairs: number;
  /** Pairs drawn nearer-first: the later splat is farther. */
  inverted: number;
  /** inverted / pairs (0 when there are no pairs). */
  invertedFraction: number;
  /**
   * Inversions by more than one 16-bit key step: 2^-16 of the visible
   * depth range, plus 2^-22 of the farthest depth (what f32 resolves there).
   */
  beyond: number;
  /** The largest inversion, as a fraction of the visible depth range. */
  largest: number;
}

const TILE = 256;

export class OrderErrorPass {
  private readonly result: GPUBuffer;
  private readonly readback: GPUBuffer;
  private readonly zero = new Uint32Array(ORDER_ERROR.size / 4);
  private readonly countScratch = new Uint32Array(1);
  private bound: { order: GPUBuffer; depths: GPUBuffer; state: GPUBuffer; group: GPUBindGroup } | null = null;
  private busy = false;

  static async create(device: GPUDevice): Promise<OrderErrorPass> {
    const module = await createCheckedShaderModule(device, 'OrderErrorPass', `${commonSource}\n${recordsSource}\n${dispatchSource}\n${errorSource}`);
    const pipeline = await computePipeline(device, { label: 'OrderErrorPass', layout: 'auto', compute: { module, entryPoint: 'main' } });
    return new OrderErrorPass(device, pipeline);
  }

  private constructor(private readonly device: GPUDevice, private readonly pipeline: GPUComputePipeline) {
    const size = Math.ceil(ORDER_ERROR.size / 16) * 16;
    this.result = device.createBuffer({ label: 'OrderErrorPass.result', size, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
    this.readback = device.createBuffer({ label: 'OrderErrorPass.readback', size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  }

  /** A measure is recorded and not yet read: `encode` does nothing until `read` resolves. */
  get pending(): boolean {
    return this.busy;
  }

  /**
   * Records the measure of the first `count` entries of `order` (at most
   * `maxCount`, the order buffer's length) against the projector's depths
   * and visible range of the same frame. Returns false (and records
   * nothing) while an earlier measure is still being read.
   */
  encode(
    encoder: GPUCommandEncoder,
    input: { order: GPUBuffer; count: number | GpuCount; maxCount: number; depths: GPUBuffer; state: GPUBuffer },
  ): boolean {
    if (this.busy) return false;
    this.busy = true;
    this.device.queue.writeBuffer(this.result, 0, this.zero);
    const countOffset = ORDER_ERROR.offset('count');
    if (typeof input.count === 'number') {
      this.countScratch[0] = input.count;
      this.device.queue.writeBuffer(this.result, countOffset, this.countScratch);
    } else {
      encoder.copyBufferToBuffer(input.count.buffer, input.count.offset, this.result, countOffset, 4);
    }
    const b = this.bound;
    if (!b || b.order !== input.order || b.depths !== input.depths || b.state !== input.state) {
      const group = this.device.createBindGroup({
        label: 'OrderErrorPass.bindGroup',
        layout: this.pipeline.getBindGroupLayout(0),
        entries: ORDER_ERROR_SLOTS.entries({
          order: { buffer: input.order },
          depths: { buffer: input.depths },
          state: { buffer: input.state },
          error: { buffer: this.result },
        }),
      });
      this.bound = { order: input.order, depths: input.depths, state: input.state, group };
    }
    const tiles = Math.max(1, Math.ceil(input.maxCount / TILE));
    const x = Math.min(tiles, this.device.limits.maxComputeWorkgroupsPerDimension);
    const pass = encoder.beginComputePass({ label: 'OrderErrorPass' });
    pass.setPipeline(this.pipeline);
    pass.setBindGroup(0, this.bound!.group);
    pass.dispatchWorkgroups(x, Math.ceil(tiles / x));
    pass.end();
    encoder.copyBufferToBuffer(this.result, 0, this.readback, 0, this.result.size);
    return true;
  }

  /** The measure recorded by the last `encode`, once its commands have been submitted. */
  async read(): Promise<OrderErrorMeasure> {
    try {
      await this.readback.mapAsync(GPUMapMode.READ);
      const words = new Uint32Array(this.readback.getMappedRange().slice(0));
      this.readback.unmap();
      const pairs = words[ORDER_ERROR.word('pairs')]!;
      const inverted = words[ORDER_ERROR.word('inverted')]!;
      return {
        pairs,
        inverted,
        invertedFraction: pairs > 0 ? inverted / pairs : 0,
        beyond: words[ORDER_ERROR.word('beyond')]!,
        largest: new Float32Array(words.buffer, ORDER_ERROR.offset('largest'), 1)[0]!,
      };
    } finally {
      this.busy = false;
    }
  }

  destroy(): void {
    this.result.destroy();
    this.readback.destroy();
  }
}
