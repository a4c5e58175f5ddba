/**
 * How bench-sort hands the GPU radix sort its count (--count): given on the
 * CPU; read on the GPU from a buffer, as the viewer's frame sorts what its
 * projector counted, and dispatched indirectly from it ('gpu'); or read
 * there and dispatched directly for a bound (--bound, by default the
 * largest of --sizes) the CPU knows ('gpu-bound', SortEncodeOptions.countBound).
 */
import type { SortEncodeOptions } from '../src/sort/gpu-radix-sort';

export const COUNT_MODES = ['cpu', 'gpu', 'gpu-bound'] as const;
export type CountMode = (typeof COUNT_MODES)[number];

/** The mode and bound the options ask for; throws, saying what is wrong, for anything else. */
export function countModeOf(mode: string, bound: string | undefined, largest: number): { mode: CountMode; bound: number | undefined } {
  if (!(COUNT_MODES as readonly string[]).includes(mode)) throw new Error(`--count must be ${COUNT_MODES.join(', ')} (got "${mode}")`);
  if (mode !== 'gpu-bound') return { mode: mode as CountMode, bound: undefined };
  const value = Number(bound ?? largest);
  if (!(Number.isInteger(value) && value >= largest)) throw new Error(`--bound must be a whole number at least the largest of --sizes (got "${bound}")`);
  return { mode, bound: value };
}

/** The count of each sort, handed over as the mode says. */
export class SortCount {
  private readonly buffer: GPUBuffer | null;
  private readonly word = new Uint32Array(1);
  private written = -1;

  constructor(
    private readonly device: GPUDevice,
    readonly mode: CountMode,
    readonly bound: number | undefined,
  ) {
    this.buffer = mode === 'cpu' ? null : device.createBuffer({ label: 'bench.count', size: 4, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
  }

  /** The encode options that hand the sort `n` (on the GPU: written into the buffer before the sort's submit). */
  of(n: number): Pick<SortEncodeOptions, 'count' | 'countBuffer' | 'countBound'> {
    if (!this.buffer) return { count: n };
    if (this.written !== n) {
      this.word[0] = n;
      this.device.queue.writeBuffer(this.buffer, 0, this.word);
      this.written = n;
    }
    return { countBuffer: { buffer: this.buffer }, ...(this.bound === undefined ? {} : { countBound: this.bound }) };
  }

  destroy(): void {
    this.buffer?.destroy();
  }
}
