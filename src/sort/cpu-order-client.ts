/**
 * Main-thread side of the CPU sort mode: sends the scene's splat centres to
 * the worker once, asks for one order at a time, and hands back the newest
 * finished order. Two order arrays circulate between the threads, so nothing
 * is allocated per frame once warm.
 */
import type { mat4 } from 'gl-matrix';
import type { CpuOrderRequest, CpuOrderResponse } from './cpu-order-worker';
import type { CpuOrder, CpuOrderSource, CpuSortAlgorithm } from './cpu-order-source';

export class CpuOrderClient implements CpuOrderSource {
  private readonly worker: Worker;
  private sceneId = 0;
  private count = 0;
  private inFlight = false;
  private spare: Uint32Array[] = [new Uint32Array(0), new Uint32Array(0)];
  private latest: CpuOrder | null = null;
  private readonly view = new Float32Array(16);
  /** The last error the worker reported, if any. */
  error: string | null = null;

  constructor() {
    this.worker = new Worker(new URL('./cpu-order-worker.ts', import.meta.url), { type: 'module', name: 'cpu-sort' });
    this.worker.onmessage = (event: MessageEvent<CpuOrderResponse>) => this.receive(event.data);
    this.worker.onerror = (event) => {
      this.error = event.message || 'the CPU sort worker failed';
      this.inFlight = false;
    };
  }

  /** Sends the splat centres (copied: the caller keeps its array). */
  setScene(positions: Float32Array, count: number): void {
    this.sceneId++;
    this.count = count;
    this.latest = null;
    const copy = positions.slice(0, 3 * count);
    this.post({ type: 'scene', positions: copy, count, sceneId: this.sceneId }, [copy.buffer]);
  }

  /** Asks for the order of `view`; false if a request is still being sorted. */
  request(view: mat4, keyBits: number, algorithm: CpuSortAlgorithm, frame: number): boolean {
    if (this.inFlight || this.count === 0) return false;
    let order = this.spare.pop() ?? new Uint32Array(this.count);
    if (order.length < this.count) order = new Uint32Array(this.count);
    this.view.set(view as Float32Array);
    this.inFlight = true;
    this.post({ type: 'sort', view: this.view, keyBits, algorithm, frame, sceneId: this.sceneId, order }, [order.buffer]);
    return true;
  }

  /** The newest finished order not yet taken, or null. Give it back with `recycle` after uploading it. */
  take(): CpuOrder | null {
    const latest = this.latest;
    this.latest = null;
    return latest;
  }

  recycle(order: Uint32Array): void {
    if (this.spare.length < 2) this.spare.push(order);
  }

  dispose(): void {
    this.worker.terminate();
  }

  private receive(message: CpuOrderResponse): void {
    this.inFlight = false;
    if (message.type === 'error') {
      this.error = message.message;
      return;
    }
    if (message.sceneId !== this.sceneId) {
      this.recycle(message.order);
      return;
    }
    if (this.latest) this.recycle(this.latest.order);
    this.latest = {
      order: message.order,
      frame: message.frame,
      keyBits: message.keyBits,
      algorithm: message.algorithm,
      sortMs: message.sortMs,
      keyMs: message.keyMs,
    };
  }

  private post(message: CpuOrderRequest, transfer: Transferable[]): void {
    this.worker.postMessage(message, transfer);
  }
}
