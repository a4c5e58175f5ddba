/**
 * A per-pixel queue that takes faint splats past its places (a CPU study
 * for the tile renderer's per-pixel order, docs/per-pixel-order-design.md):
 * an arrival whose alpha at the pixel is under `below` is not inserted
 * among the held places, where every arrival moves every place, but
 * composited into one bucket in the order it arrives (the centre-depth
 * order); the bucket stands at the depth of its first splat, and is
 * blended as one layer when a held place farther than it leaves, or at
 * the end among the held places. On a GPU a faint arrival would cost a
 * compare and four multiply-adds instead of the queue's sixteen places.
 * The rest is PixelQueue's rule (bench/reference-pixel-order.ts).
 *
 * `front`: only a faint arrival no farther than every held place takes
 * the bucket (it would go to the queue's near end anyway); a faint one
 * behind a held place goes through the places as any other.
 */
import { T_STOP, type Preprocessed } from '../src/render/reference-rasterizer';
import { PixelQueue } from './reference-pixel-order';

const f = Math.fround;

export class FaintBucketQueue {
  private readonly held: PixelQueue;
  /** The bucket: premultiplied colour, transmittance, depth (NaN: empty). */
  private readonly colour = new Float64Array(3);
  private transmittance = 1;
  private depth = NaN;
  /** Arrivals taken into the bucket since the counter was last read. */
  faintArrivals = 0;

  constructor(readonly places: number, readonly below: number, readonly front = false) {
    this.held = new PixelQueue(places);
  }

  reset(): void {
    this.held.reset();
    this.colour.fill(0);
    this.transmittance = 1;
    this.depth = NaN;
  }

  /** Splat k arrives with its alpha and depth t at the pixel; false once the pixel has stopped. */
  arrive(state: Float64Array, splats: Preprocessed, k: number, alpha: number, t: number): boolean {
    const nearestHeld = this.held.nearest();
    if (alpha < this.below && (!this.front || nearestHeld === null || t <= nearestHeld)) {
      this.faintArrivals++;
      if (Number.isNaN(this.depth)) this.depth = t;
      const w = f(alpha * this.transmittance);
      for (let c = 0; c < 3; c++) this.colour[c] = f(this.colour[c]! + f(splats.color[3 * k + c]! * w));
      this.transmittance = f(this.transmittance * f(1 - alpha));
      return true;
    }
    const leaving = this.held.nearestIfFull(t);
    // The bucket goes before a held place farther than it.
    if (leaving !== null && leaving > this.depth && !this.blendBucket(state)) return false;
    return this.held.arrive(state, splats, k, alpha, t);
  }

  /** The list's end: the held splats, nearest first, the bucket among them by its depth, until the pixel stops. */
  finish(state: Float64Array, splats: Preprocessed): void {
    for (;;) {
      const next = this.held.nearest();
      if (next === null) break;
      if (next > this.depth && !this.blendBucket(state)) return;
      if (!this.held.blendNearest(state, splats)) return;
    }
    this.blendBucket(state);
  }

  /** Blends the bucket as one layer (and empties it); false once the pixel has stopped. */
  private blendBucket(state: Float64Array): boolean {
    if (Number.isNaN(this.depth)) return true;
    const T = state[3]!;
    const nextT = f(T * this.transmittance);
    this.depth = NaN;
    if (nextT < T_STOP) {
      state[4] = 1;
      return false;
    }
    for (let c = 0; c < 3; c++) state[c] = f(state[c]! + f(this.colour[c]! * T));
    state[3] = nextT;
    this.colour.fill(0);
    this.transmittance = 1;
    return true;
  }
}

