/**
 * Where a frame's draw order comes from: one interface, two implementations
 * (the GPU radix sort of this frame's keys, an order sorted on the CPU and
 * uploaded). SplatFrame asks the order which splats it may name, has the
 * projector key them if it wants keys, then lets it record its work.
 * DOM-free.
 */
import type { GpuCount } from '../../../render/splat-projector';
import type { OrderedSplats } from '../../../render/painter';

/** An order the painters can draw (src/render/painter.ts). */
export type { OrderedSplats } from '../../../render/painter';

/** What SplatFrame hands an order for one frame. */
export interface OrderFrame {
  encoder: GPUCommandEncoder;
  /** Bits of the depth key to sort on (1..32). */
  keyBits: number;
  /** Splats the projector kept (its visible count) and the draw's indirect arguments. */
  visibleCount: GpuCount;
  drawArgs: GpuCount;
  /** The most splats the projector keeps. */
  capacity: number;
  timestampWrites?: GPUComputePassTimestampWrites;
}

export interface DrawOrder {
  /**
   * The buffers the projector writes this frame's (key, splat) pairs of the
   * kept splats into, or null when the order does not come from them (it
   * may then name any splat, and the projector marks the culled ones).
   */
  keyTarget(sceneCount: number): { keys: GPUBuffer; values: GPUBuffer } | null;
  /** Records the order's own GPU work after the projector (none for an uploaded order); returns what to draw. */
  encode(frame: OrderFrame): OrderedSplats | null;
  destroy(): void;
}
