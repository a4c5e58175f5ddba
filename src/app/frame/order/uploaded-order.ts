/**
 * A draw order sorted elsewhere (the CPU sort's worker) and uploaded into a
 * buffer this order owns. It names every splat of the scene, culled or not:
 * the projector marks the culled ones and the renderer skips them.
 */
import type { DrawOrder, OrderedSplats } from './draw-order';
import { unbound } from '../../../gpu/unbound';

export class UploadedOrder implements DrawOrder {
  private buffer: GPUBuffer | null = null;
  private count = 0;
  private readonly drawn: OrderedSplats = { order: unbound<GPUBuffer>(), count: 0, drawArgs: null, maxCount: 0 };

  constructor(private readonly device: GPUDevice) {}

  /** True once an order has been uploaded. */
  get ready(): boolean {
    return this.buffer !== null && this.count > 0;
  }

  /** Uploads the first `count` entries of `order` (splat indices, back to front). */
  upload(order: Uint32Array, count: number): void {
    const bytes = Math.max(16, Math.ceil((4 * count) / 16) * 16);
    if (!this.buffer || this.buffer.size < bytes) {
      this.buffer?.destroy();
      this.buffer = this.device.createBuffer({ label: 'UploadedOrder', size: bytes, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
    }
    this.device.queue.writeBuffer(this.buffer, 0, order as Uint32Array<ArrayBuffer>, 0, count);
    this.count = count;
  }

  /** Forgets the order (a new scene): nothing is drawn from it until the next upload. */
  clear(): void {
    this.count = 0;
  }

  keyTarget(): null {
    return null;
  }

  encode(): OrderedSplats | null {
    if (!this.buffer || this.count === 0) return null;
    const drawn = this.drawn;
    drawn.order = this.buffer;
    drawn.count = this.count;
    drawn.maxCount = this.count;
    return drawn;
  }

  destroy(): void {
    this.buffer?.destroy();
    this.buffer = null;
  }
}
