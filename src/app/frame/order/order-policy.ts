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

/** Every choice there is, made once: the viewer asks every frame and allocates nothing. */
const CHOICES = {
  none: { source: 'none', label: 'none (no scene yet)', waiting: false },
  frozen: { source: 'frozen', label: 'Frozen order (no sort)', waiting: false },
  gpu: { source: 'gpu-sort', label: SORT_LABELS.gpu, waiting: false },
  gpuCpuFailed: { source: 'gpu-sort', label: 'GPU radix (the CPU sort failed)', waiting: false },
  gpuWaiting: { source: 'gpu-sort', label: 'GPU radix (waiting for the first CPU order)', waiting: true },
  'cpu-radix': { source: 'uploaded', label: SORT_LABELS['cpu-radix'], waiting: false },
  'cpu-counting16': { source: 'uploaded', label: SORT_LABELS['cpu-counting16'], waiting: false },
} as const satisfies Record<string, Readonly<OrderChoice>>;

export function chooseOrder(s: Readonly<OrderState>): Readonly<OrderChoice> {
  if (!s.hasScene) return CHOICES.none;
  // Frozen keeps the order drawn last, whichever sort made it.
  if (s.freeze && s.canFreeze) return CHOICES.frozen;
  if (s.mode !== 'gpu') {
    if (s.cpuFailed) return CHOICES.gpuCpuFailed;
    if (s.cpuOrderReady) return CHOICES[s.mode];
    return CHOICES.gpuWaiting;
  }
  return CHOICES.gpu;
}
