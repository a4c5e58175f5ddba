/**
 * Which order a frame draws: the one decision between the GPU sort, the
 * CPU sort's uploaded order and the frozen order. Pure (no GPU, no DOM):
 * the viewer core asks it every frame, tests/unit/order-policy.test.ts
 * holds every branch.
 */

export type SortMode = 'gpu' | 'cpu-radix' | 'cpu-counting16';

export const SORT_LABELS: Record<SortMode, string> = {
  gpu: 'GPU radix',
  'cpu-radix': 'CPU 32-bit radix',
  'cpu-counting16': 'CPU 16-bit counting',
};

export interface OrderState {
  /** A scene is on screen. */
  hasScene: boolean;
  mode: SortMode;
  freeze: boolean;
  /** An order of the scene on screen was drawn, so there is one to freeze. */
  canFreeze: boolean;
  /** A CPU order of the scene on screen, asked for since the switch to the CPU mode, has been uploaded. */
  cpuOrderReady: boolean;
  /** The CPU sort reported an error. */
  cpuFailed: boolean;
}

export type OrderSource = 'none' | 'gpu-sort' | 'uploaded' | 'frozen';

export interface OrderChoice {
  source: OrderSource;
  /** What the panel shows as the active sort. */
  label: string;
  /** A CPU mode is asked for but its first order has not arrived: the GPU sort draws meanwhile. */
  waiting: boolean;
}

export function chooseOrder(s: OrderState): OrderChoice {
  if (!s.hasScene) return { source: 'none', label: 'none (no scene yet)', waiting: false };
  // Frozen keeps the order drawn last, whichever sort made it.
  if (s.freeze && s.canFreeze) return { source: 'frozen', label: 'Frozen order (no sort)', waiting: false };
  if (s.mode !== 'gpu') {
    if (s.cpuFailed) return { source: 'gpu-sort', label: 'GPU radix (the CPU sort failed)', waiting: false };
    if (s.cpuOrderReady) return { source: 'uploaded', label: SORT_LABELS[s.mode], waiting: false };
    return { source: 'gpu-sort', label: 'GPU radix (waiting for the first CPU order)', waiting: true };
  }
  return { source: 'gpu-sort', label: SORT_LABELS.gpu, waiting: false };
}
