/**
 * How many (tile, splat) pairs a frame gets room for, and what the last
 * frames needed: the tile renderer's one place for that policy. The pair
 * total is known on the GPU after the binning's scan, before any pair is
 * written; the CPU learns it from a small read of each frame (a ring of
 * staging buffers, never waited on by the frame loop). When a frame needed
 * more than GROW_AT of the room, the next frame gets HEADROOM times what it
 * needed; a frame that needed more than the room drew nothing new (the
 * raster leaves the last complete picture, shaders/tile_raster.wgsl) and
 * the caller draws it again at once.
 */
import { QUAD_VERTICES, TILE_STATE } from '../frame-layouts';

/** A read frame's pair figures. */
export interface TilePairCounts {
  /** Entries of the order binned (splats drawn, culled ones included for a CPU order). */
  entries: number;
  /** Pairs the frame needed. */
  total: number;
  /** Pairs its buffers held. */
  capacity: number;
  /** It needed more than they held: its picture was not drawn (draw it again). */
  overflowed: boolean;
}

/**
 * Grow when a frame uses more than this share of the room, to HEADROOM
 * times its need: a camera turning towards denser parts rarely outruns
 * 1.5× in one frame, and a frame that does is drawn again, not shown short.
 */
const GROW_AT = 0.75;
const HEADROOM = 1.5;
/** Room before any frame was read: 2^20 pairs (16 MiB with the sort's ping-pong). */
export const INITIAL_PAIRS = 1 << 20;
/** Staging buffers for the reads: a frame's read is skipped when all are being mapped. */
const READ_RING = 3;
/** The header words read back: the draw's vertices, capacity, total, pairs. */
const READ_BYTES = 16;

type ReadState = 'free' | 'recorded' | 'mapping';

export class TilePairBudget {
  /** Pairs the next frame should have room for. */
  wanted: number;
  /** The last frame read (null before one). */
  last: TilePairCounts | null = null;
  private readonly reads: { buffer: GPUBuffer; state: ReadState }[] = [];
  private recorded: { buffer: GPUBuffer; state: ReadState } | null = null;

  constructor(
    device: GPUDevice,
    /** The most pairs the device can sort (maxTilePairs). */
    readonly limit: number,
    initial = INITIAL_PAIRS,
  ) {
    this.wanted = Math.max(1, Math.min(initial, limit));
    for (let i = 0; i < READ_RING; i++) {
      this.reads.push({
        buffer: device.createBuffer({ label: `TilePairBudget.read${i}`, size: READ_BYTES, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ }),
        state: 'free',
      });
    }
  }

  /** Records the copy of this frame's counts from the state buffer (skipped while every staging buffer is being read). */
  recordRead(encoder: GPUCommandEncoder, state: GPUBuffer): void {
    const slot = this.recorded?.state === 'recorded' ? this.recorded : this.reads.find((r) => r.state === 'free');
    if (!slot) {
      this.recorded = null;
      return;
    }
    encoder.copyBufferToBuffer(state, TILE_STATE.offset('draw_vertices'), slot.buffer, 0, READ_BYTES);
    slot.state = 'recorded';
    this.recorded = slot;
  }

  /**
   * The counts of the frame recorded last, once the GPU has run it (call
   * after its submit); null when its read was skipped or is already taken.
   * Sets the room the next frames want.
   */
  read(): Promise<TilePairCounts> | null {
    const slot = this.recorded;
    if (!slot || slot.state !== 'recorded') return null;
    slot.state = 'mapping';
    this.recorded = null;
    return slot.buffer.mapAsync(GPUMapMode.READ).then(
      () => {
        const [vertices, capacity, total] = new Uint32Array(slot.buffer.getMappedRange(), 0, 3);
        slot.buffer.unmap();
        slot.state = 'free';
        const counts = { entries: vertices! / QUAD_VERTICES, total: total!, capacity: capacity!, overflowed: total! > capacity! };
        this.update(counts);
        return counts;
      },
      (error: unknown) => {
        slot.state = 'free';
        throw error;
      },
    );
  }

  /** What a read frame teaches: room for HEADROOM × its need when it came near the room (never past the device's limit). */
  update(counts: TilePairCounts): void {
    this.last = counts;
    if (counts.total > counts.capacity * GROW_AT) this.wanted = Math.min(this.limit, Math.max(this.wanted, Math.ceil(counts.total * HEADROOM)));
  }

  /** The last frame read needed more pairs than the device can sort. */
  get beyondLimit(): boolean {
    return (this.last?.total ?? 0) > this.limit;
  }

  destroy(): void {
    for (const r of this.reads) r.buffer.destroy();
  }
}
