/**
 * Web Worker of the CPU sort mode: holds the scene's splat centres, and for
 * each request computes the depth keys for the given view and sorts them
 * with the chosen CPU sort. The order array travels back and forth
 * (transferred, never copied), so a warm worker allocates nothing per frame.
 */
import { computeDepthKeys } from './cpu-depth-keys';
import { CpuCountingSort16, CpuRadixSort, type CpuSorter } from './cpu-sort';
import type { CpuSortAlgorithm } from './cpu-order-source';

export type CpuOrderRequest =
  | { type: 'scene'; positions: Float32Array; count: number; sceneId: number }
  | { type: 'sort'; view: Float32Array; keyBits: number; algorithm: CpuSortAlgorithm; frame: number; sceneId: number; order: Uint32Array };

export type CpuOrderResponse =
  | { type: 'order'; order: Uint32Array; frame: number; sceneId: number; keyBits: number; algorithm: CpuSortAlgorithm; sortMs: number; keyMs: number }
  | { type: 'error'; message: string };

let positions: Float32Array = new Float32Array(0);
let count = 0;
let sceneId = -1;
let keys: Uint32Array = new Uint32Array(0);
const sorters: Record<CpuSortAlgorithm, CpuSorter> = { radix: new CpuRadixSort(), counting16: new CpuCountingSort16() };

const post = (message: CpuOrderResponse, transfer: Transferable[] = []) =>
  (self as unknown as { postMessage(m: unknown, t: Transferable[]): void }).postMessage(message, transfer);

self.onmessage = (event: MessageEvent<CpuOrderRequest>) => {
  const request = event.data;
  try {
    if (request.type === 'scene') {
      positions = request.positions;
      count = request.count;
      sceneId = request.sceneId;
      if (keys.length < count) keys = new Uint32Array(count);
      return;
    }
    let order = request.order;
    if (order.length < count) order = new Uint32Array(count);
    // The counting sort sorts at most 16 bits.
    const keyBits = request.algorithm === 'counting16' ? Math.min(16, request.keyBits) : request.keyBits;
    const t0 = performance.now();
    computeDepthKeys(positions, count, request.view, keyBits, keys, order);
    const t1 = performance.now();
    sorters[request.algorithm].sort(keys.subarray(0, count), order.subarray(0, count), count, keyBits);
    const t2 = performance.now();
    post(
      { type: 'order', order, frame: request.frame, sceneId, keyBits, algorithm: request.algorithm, sortMs: t2 - t1, keyMs: t1 - t0 },
      [order.buffer],
    );
  } catch (error) {
    post({ type: 'error', message: (error as Error).message });
  }
};
