/**
 * The frozen draw order: the order the frame drew last, whichever order
 * made it, drawn again without keys or a sort while the camera moves (the
 * splats are still projected for this frame's camera). SplatFrame hands it
 * every order it draws (keep), so it always holds the last one.
 *
 * An order counted on the GPU (the GPU sort's, drawn indirectly) is kept
 * by copying its draw arguments and count into a buffer of its own: the
 * buffers the count came from are written again by later frames (a frozen
 * frame of the difference view counts this frame's visible splats for the
 * exact order), which must not change how many entries of the frozen order
 * are drawn or measured.
 */
import type { DrawOrder, OrderFrame, OrderedSplats } from './draw-order';
import type { GpuCount } from '../../../render/splat-projector';
import { unbound } from '../../../gpu/unbound';

/** drawIndirect's four u32 arguments. */
const DRAW_ARGS_BYTES = 16;
/** The kept draw arguments, then the kept count (padded to 16). */
const KEPT_COUNTS_BYTES = 32;

export class FrozenOrder implements DrawOrder {
  /** The order drawn last (null before one, or after a scene change); `kept` is its storage. */
  private last: OrderedSplats | null = null;
  private readonly kept: OrderedSplats = { order: unbound<GPUBuffer>(), count: 0, drawArgs: null, maxCount: 0 };
  /**
   * The kept copies of a GPU count. Read as indirect arguments by the draw,
   * as a storage count by the projector's passes, and copied into the
   * ordering-error measure's result (COPY_SRC) when a frozen frame is
   * measured.
   */
  private readonly counts: GPUBuffer;
  private readonly keptArgs: GpuCount;
  private readonly keptCount: GpuCount;

  constructor(device: GPUDevice) {
    this.counts = device.createBuffer({
      label: 'FrozenOrder.counts',
      size: KEPT_COUNTS_BYTES,
      usage: GPUBufferUsage.INDIRECT | GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC,
    });
    this.keptArgs = { buffer: this.counts, offset: 0 };
    this.keptCount = { buffer: this.counts, offset: DRAW_ARGS_BYTES };
  }

  /** True when there is an order of the scene on screen to draw again. */
  get ready(): boolean {
    return this.last !== null;
  }

  /** The order drawn last (borrowed), or null. */
  get drawn(): OrderedSplats | null {
    return this.last;
  }

  /** Remembers `drawn`, the order a frame just drew, its GPU counts copied in `encoder`. */
  keep(encoder: GPUCommandEncoder, drawn: OrderedSplats | null): void {
    // Drawing the frozen order itself keeps what is kept.
    if (drawn === this.kept) return;
    if (!drawn) {
      this.last = null;
      return;
    }
    const kept = Object.assign(this.kept, drawn);
    if (drawn.drawArgs) {
      encoder.copyBufferToBuffer(drawn.drawArgs.buffer, drawn.drawArgs.offset, this.counts, 0, DRAW_ARGS_BYTES);
      kept.drawArgs = this.keptArgs;
    }
    if (typeof drawn.count !== 'number') {
      encoder.copyBufferToBuffer(drawn.count.buffer, drawn.count.offset, this.counts, DRAW_ARGS_BYTES, 4);
      kept.count = this.keptCount;
    }
    this.last = kept;
  }

  /** A new scene: the order kept names splats of the old one. */
  forget(): void {
    this.last = null;
  }

  keyTarget(): null {
    return null;
  }

  encode(_frame: OrderFrame): OrderedSplats | null {
    return this.last;
  }

  destroy(): void {
    this.counts.destroy();
  }
}
