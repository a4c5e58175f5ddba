/**
 * Where the CPU sort modes get their orders: the worker in the browser
 * (src/sort/cpu-order-client.ts), or a synchronous sort on the calling
 * thread in Node (SyncCpuOrder: the tests and the Node tools). DOM-free.
 */
import type { mat4 } from 'gl-matrix';
import { computeDepthKeys } from './cpu-depth-keys';
import { CpuCountingSort16, CpuRadixSort, type CpuSorter } from './cpu-sort';

export type CpuSortAlgorithm = 'radix' | 'counting16';

export interface CpuOrder {
  order: Uint32Array;
  /** The frame number whose camera the order was sorted for. */
  frame: number;
  keyBits: number;
  algorithm: CpuSortAlgorithm;
  /** Wall time of the sort (keys excluded) and of the key computation. */
  sortMs: number;
  keyMs: number;
}

export interface CpuOrderSource {
  setScene(positions: Float32Array, count: number): void;
  /** Asks for the order of `view`; false while an earlier request is being sorted. */
  request(view: mat4, keyBits: number, algorithm: CpuSortAlgorithm, frame: number): boolean;
  /** The newest finished order not yet taken. */
  take(): CpuOrder | null;
  recycle(order: Uint32Array): void;
  readonly error: string | null;
  dispose(): void;
}

/** The CPU sort on the calling thread: each request is sorted at once and waits to be taken. */
export class SyncCpuOrder implements CpuOrderSource {
  private positions: Float32Array = new Float32Array(0);
  private count = 0;
  private ready: CpuOrder | null = null;
  private readonly sorters: Record<CpuSortAlgorithm, CpuSorter> = { radix: new CpuRadixSort(), counting16: new CpuCountingSort16() };
  /** Requests sorted so far. */
  requests = 0;
  error: string | null = null;

  setScene(positions: Float32Array, count: number): void {
    this.positions = positions;
    this.count = count;
    this.ready = null;
  }

  request(view: mat4, keyBits: number, algorithm: CpuSortAlgorithm, frame: number): boolean {
    const keys = new Uint32Array(this.count);
    const order = new Uint32Array(this.count);
    const started = performance.now();
    computeDepthKeys(this.positions, this.count, view, keyBits, keys, order);
    const sorting = performance.now();
    this.sorters[algorithm].sort(keys, order, this.count, keyBits);
    this.ready = { order, frame, keyBits, algorithm, sortMs: performance.now() - sorting, keyMs: sorting - started };
    this.requests++;
    return true;
  }

  take(): CpuOrder | null {
    const taken = this.ready;
    this.ready = null;
    return taken;
  }

  recycle(): void {}

  dispose(): void {}
}
