/**
 * The CPU sort's side of the frame engine: the CPU order source (a worker
 * in the browser, made when a CPU mode is first asked for), the order it
 * sorted last uploaded for the frame to draw, and which of its orders
 * count: only those asked for since the switch to a CPU mode (older ones
 * were asked for under another mode and are stale). DOM-free.
 */
import type { mat4 } from 'gl-matrix';
import type { CpuOrderSource, CpuSortAlgorithm } from '../../../sort/cpu-order-source';
import type { DrawOrder } from './draw-order';
import type { SortMode } from './order-policy';
import { UploadedOrder } from './uploaded-order';

export class CpuOrders {
  private cpu: CpuOrderSource | null = null;
  private readonly uploaded: UploadedOrder;
  private positions: Float32Array = new Float32Array(0);
  private count = 0;
  private lastMode: SortMode = 'gpu';
  /** Frame number from which CPU orders count. */
  private since = 0;
  /** The frame the uploaded order was asked for, and its key width. */
  private orderFrame = 0;
  bits = 32;

  constructor(device: GPUDevice, private readonly makeCpu: () => CpuOrderSource) {
    this.uploaded = new UploadedOrder(device);
  }

  /** The uploaded order, for the frame to draw. */
  get order(): DrawOrder {
    return this.uploaded;
  }

  /** The CPU sort's error, if it failed. */
  get error(): string | null {
    return this.cpu?.error ?? null;
  }

  /** A new scene (`positions` null: its splats are not on the CPU): the uploaded order is forgotten. */
  setScene(positions: Float32Array | null, count: number): void {
    this.positions = positions ?? new Float32Array(0);
    this.count = positions ? count : 0;
    this.uploaded.clear();
    this.cpu?.setScene(this.positions, this.count);
  }

  /** The sort mode of frame number `frame`: a switch of mode makes the orders asked for before it stale. */
  follow(mode: SortMode, frame: number): void {
    if (mode === this.lastMode) return;
    this.lastMode = mode;
    this.since = frame;
  }

  /** Whether an order asked for since the switch is uploaded. */
  get ready(): boolean {
    return this.uploaded.ready && this.orderFrame >= this.since;
  }

  /** Frames between the camera the uploaded order was sorted for and frame `frame`. */
  age(frame: number): number {
    return frame - this.orderFrame;
  }

  /**
   * Takes the newest CPU order (uploading it) and asks for the next, for
   * frame `frame` seen through `view`; returns the sort time of an order
   * uploaded now (null: none). `frozen`: a frozen order may be the
   * uploaded one, whose buffer is then left alone.
   */
  serve(view: mat4, mode: Exclude<SortMode, 'gpu'>, keyBits: number, frame: number, frozen: boolean): number | null {
    const cpu = (this.cpu ??= this.createCpu());
    if (frozen) return null;
    let sortMs: number | null = null;
    const taken = cpu.take();
    if (taken) {
      if (taken.frame >= this.since) {
        this.uploaded.upload(taken.order, this.count);
        this.orderFrame = taken.frame;
        this.bits = taken.keyBits;
        sortMs = taken.sortMs;
      }
      cpu.recycle(taken.order);
    }
    const algorithm: CpuSortAlgorithm = mode === 'cpu-counting16' ? 'counting16' : 'radix';
    cpu.request(view, algorithm === 'counting16' ? 16 : keyBits, algorithm, frame);
    return sortMs;
  }

  private createCpu(): CpuOrderSource {
    const cpu = this.makeCpu();
    cpu.setScene(this.positions, this.count);
    return cpu;
  }

  destroy(): void {
    this.cpu?.dispose();
    this.uploaded.destroy();
  }
}
