/** The draw-order decision (src/app/frame/order/order-policy.ts), every branch. */
import { describe, expect, test } from 'vitest';
import { chooseOrder, SORT_LABELS, type OrderState } from '../../src/app/frame/order/order-policy';

const base: OrderState = { hasScene: true, mode: 'gpu', freeze: false, canFreeze: true, cpuOrderReady: false, cpuFailed: false };
const choose = (change: Partial<OrderState>) => chooseOrder({ ...base, ...change });

describe('chooseOrder', () => {
  test('no scene: nothing to order', () => {
    expect(choose({ hasScene: false, freeze: true, mode: 'cpu-radix', cpuOrderReady: true }).source).toBe('none');
  });

  test('the GPU mode sorts on the GPU', () => {
    expect(choose({})).toEqual({ source: 'gpu-sort', label: SORT_LABELS.gpu, waiting: false });
  });

  test('freeze keeps the last order, in any mode, once there is one for this scene', () => {
    for (const mode of ['gpu', 'cpu-radix', 'cpu-counting16'] as const) {
      expect(choose({ mode, freeze: true, cpuOrderReady: true }).source).toBe('frozen');
    }
    // A new scene has nothing drawn yet: sort it first.
    expect(choose({ freeze: true, canFreeze: false }).source).toBe('gpu-sort');
    expect(choose({ mode: 'cpu-radix', freeze: true, canFreeze: false, cpuOrderReady: true }).source).toBe('uploaded');
  });

  test('a CPU mode draws the GPU sort until its first order of this scene arrives, then the uploaded order', () => {
    expect(choose({ mode: 'cpu-radix' })).toEqual({ source: 'gpu-sort', label: 'GPU radix (waiting for the first CPU order)', waiting: true });
    expect(choose({ mode: 'cpu-radix', cpuOrderReady: true })).toEqual({ source: 'uploaded', label: SORT_LABELS['cpu-radix'], waiting: false });
    expect(choose({ mode: 'cpu-counting16', cpuOrderReady: true }).label).toBe(SORT_LABELS['cpu-counting16']);
  });

  test('a failed CPU sort falls back to the GPU sort, and says so', () => {
    expect(choose({ mode: 'cpu-radix', cpuFailed: true, cpuOrderReady: true })).toEqual({ source: 'gpu-sort', label: 'GPU radix (the CPU sort failed)', waiting: false });
  });

  test('the GPU mode ignores a CPU order still around', () => {
    expect(choose({ mode: 'gpu', cpuOrderReady: true }).source).toBe('gpu-sort');
  });
});
