/**
 * What a tile draw is given and gives back (TileRenderer.encode): the
 * picture it writes, the quads that draw its frame where the pairs did not
 * fit, and which of a frame's draws it is. DOM-free.
 */
import type { GpuSplats } from '../../scene/gpu-splats';
import type { SplatDraw } from '../splat-renderer';
import { unbound } from '../../gpu/unbound';
import { keptQuadsDraw } from './tile-buffers';

/** What one tile draw needs beyond the quad renderer's draw. */
export interface TileDrawTarget {
  /** A storage view (STORAGE_BINDING and RENDER_ATTACHMENT usage) of the picture's format and the frame's size. */
  picture: GPUTextureView;
  width: number;
  height: number;
  /** Premultiplied clear colour, r g b in 0..1 (opaque). */
  background: readonly [number, number, number];
  /**
   * The scene the draw's records were projected from, to blend each pixel's
   * splats by their depth along its ray (after preparePerPixel); null or
   * absent: the centre-depth order.
   */
  perPixelScene?: GpuSplats | null;
}

/** A tile draw's pair state, and the quads that draw its frame when the pairs did not fit (no vertices when they did). */
export interface TileFallback {
  state: GPUBuffer;
  draw: SplatDraw;
}

/** A fallback to fill in, reused by every frame of a draw slot. */
export function fallbackOf(): TileFallback {
  return { state: unbound<GPUBuffer>(), draw: keptQuadsDraw() };
}

/** Which of the frame's draws this is: the difference view bins two orders in one encoder, each from its own count slot. */
export type TileDrawSlot = 0 | 1;
