/**
 * What draws a frame's ordered splats into its target: one interface, two
 * implementations, the quad renderer's (quad-painter.ts) and the compute
 * tile renderer's (tiles/tile-painter.ts, which alone can blend each
 * pixel's splats in their own order along its ray). The frame
 * (src/app/frame/splat-frame.ts) projects and orders the splats, then
 * hands the painter one PaintJob; the renderer choice, its fallback, the
 * screenshots and the heat map views all talk to this interface, and none
 * of them relays a painter's readiness: they ask the painter. DOM-free.
 */
import type { TimestampSpan } from '../gpu/pass-timer';
import type { GpuSplats } from '../scene/gpu-splats';
import type { FrameRenderer } from './frame-renderer';
import type { FrameParameters } from './frame-uniforms';
import type { GpuCount } from './splat-projector';
import type { SplatDraw, SplatDrawTarget } from './splat-renderer';
import { unbound } from '../gpu/unbound';

/** An order a painter can draw: entries of `order` name splats (their projected records). */
export interface OrderedSplats {
  order: GPUBuffer;
  /** Entries of `order` to draw: known on the CPU, or a u32 on the GPU. */
  count: number | GpuCount;
  /** drawIndirect's arguments for a count on the GPU (null: draw `count` directly). */
  drawArgs: GpuCount | null;
  /** The most entries `order` may hold this frame (what a measure pass must cover). */
  maxCount: number;
}

/** One picture of a frame: its order (null: the background alone), blended per pixel in `perPixel`'s splats (null: by centre depth). */
export interface PaintedPicture {
  order: OrderedSplats | null;
  perPixel: GpuSplats | null;
}

/** Timestamp writes of the frame's 'render' span: over several passes (`span`), or over one pass (`whole`). */
export interface PaintTiming {
  span: TimestampSpan;
  whole: GPUComputePassTimestampWrites & GPURenderPassTimestampWrites;
}

/** One frame's painting. The frame reuses one job for every frame: a painter keeps no reference to it. */
export interface PaintJob {
  encoder: GPUCommandEncoder;
  parameters: FrameParameters;
  target: SplatDrawTarget;
  /** The projector's records, which the orders name (null: no scene). */
  records: GPUBuffer | null;
  /** The projector's view depths per splat (null: no scene): a depth-tested draw (SplatDrawTarget.depth) places its quads by them. */
  depths: GPUBuffer | null;
  /** The projector's VisibleState (null: no scene) and its capacity: where its kept splats' slots start, which the per-pixel order places its ray shapes by. */
  visible: GPUBuffer | null;
  capacity: number;
  picture: PaintedPicture;
  /** A heat map's second picture, resolved with the first as where the two differ; null: the picture alone. */
  second: PaintedPicture | null;
  /** Undefined: the frame is not timed. */
  timing: PaintTiming | undefined;
}

/** What a painter learnt of a frame it painted, once the GPU ran it. */
export interface PaintStatistics {
  /** The frame outgrew the painter's buffers and showed the last complete picture; they are grown now: draw it again. */
  overflowed: boolean;
}

export interface Painter {
  readonly renderer: FrameRenderer;
  /**
   * Makes what painting needs (with `perPixel`, what the per-pixel order
   * needs too). Frames it cannot paint yet are painted by the quad
   * painter. Rejects when it cannot be made, and `failure` says why from
   * then on.
   */
  prepare(perPixel?: boolean): Promise<void>;
  /** Whether prepare(perPixel) has finished. */
  isReady(perPixel?: boolean): boolean;
  /** Why it does not paint (it could not be made), or null. */
  readonly failure: string | null;
  /** What the last frame read left undrawn and why (the tile renderer's farthest splats past its budget), or null. */
  readonly notice: string | null;
  /** Whether it paints a frame now: made, and nothing it has learnt stops it. */
  readonly canPaint: boolean;
  /** Records the job's passes: its picture (and second picture) resolved into the job's target. */
  paint(job: PaintJob): void;
  /** What it learnt of the last frame it painted, after that frame's submit (null: it painted none since, or keeps nothing to read). */
  readStatistics(): Promise<PaintStatistics> | null;
  destroy(): void;
}

/** A draw record for a painter to reuse every frame (drawOf fills it). */
export function reusedDraw(): SplatDraw {
  return { records: unbound<GPUBuffer>(), order: unbound<GPUBuffer>(), count: 0 };
}

/**
 * `draw` (reused) set to draw `ordered`'s entries of `records`, or null when
 * there is nothing to draw. Quads draw from the indirect draw's vertex
 * count where the order's count is on the GPU ('vertices'); the tile
 * renderer bins the order's entry count ('entries').
 */
export function drawOf(draw: SplatDraw, records: GPUBuffer | null, ordered: OrderedSplats | null, count: 'vertices' | 'entries'): SplatDraw | null {
  if (!ordered || !records) return null;
  draw.records = records;
  draw.order = ordered.order;
  draw.count = count === 'vertices' ? (ordered.drawArgs ?? ordered.count) : ordered.count;
  return draw;
}
