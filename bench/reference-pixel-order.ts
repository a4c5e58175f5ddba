/**
 * The reference rasterizer (reference-rasterizer.ts) with each pixel's
 * splats ordered by their own depth along its ray, where each one's density
 * peaks: t* = dᵀ Σ⁻¹ μ / dᵀ Σ⁻¹ d for the ray o + t·d (d with z = 1 in the
 * reference camera, so t* is a depth), kept within PER_PIXEL_DEPTH_REACH
 * standard deviations of its depth (σ² = Σzz in the camera) of its
 * centre's depth (src/render/frame-renderer.ts has why and the
 * measurements). Two rules:
 *
 * - exact (no queue): per pixel, the splats of its tile that reach it
 *   (alpha ≥ 1/255) sorted by t* (ties in the list's order), blended front
 *   to back with the reference's rules. Streamed (ExactPixelOrder): the
 *   list arrives by centre depth, and a splat held is blended once no
 *   splat still to come can lie nearer along the ray (each lies within its
 *   reach of its centre's depth), so a pixel stops where it turns opaque
 *   instead of reaching and sorting its whole list: the same picture, bit
 *   for bit, in 4.0 s where sorting took 7.6 (the 150k scene from outside,
 *   256×144, one core);
 * - a queue of `queue` places, the GPU's rule
 *   (shaders/tile_raster_per_pixel.wgsl): the list arrives by centre depth,
 *   each pixel holds the nearest `queue` not yet blended, and each arrival
 *   past that blends the nearest of them and itself; the rest is blended in
 *   order at the end.
 *
 * Hierarchical orders built on these, and several orders drawn in one
 * pass: bench/windowed-pixel-order.ts.
 *
 * Depths are worked out in double from the splat's covariance (its
 * adjugate, no flatter than PER_PIXEL_FLATTEST, as on the GPU);
 * the blend keeps the reference's float32 steps. The GPU's queue orders
 * keys that hold a depth to 2^-21 of itself and break ties by a slot
 * number; the reference orders by the depths themselves, an arrival
 * before held splats of an equal depth.
 */
import { ALPHA_MIN, alphaAt, T_STOP, type PixelBlend, type Preprocessed, type ReferenceOrder } from '../src/render/reference-rasterizer';
import { RAY_SHAPE_VALUES, rayShapeReach } from '../src/render/reference-ray-shape';

const f = Math.fround;

/** Splat k's depth at pixel (px, py): where its density along the pixel's ray peaks, within PER_PIXEL_DEPTH_REACH σ of its centre's depth */
export function depthAlongRay(splats: Preprocessed, k: number, px: number, py: number): number {
  const [x0, y0, focalX, focalY] = splats.pixelRays;
  const x = (px - x0) / focalX;
  const y = (py - y0) / focalY;
  const s = splats.rayShape;
  const at = RAY_SHAPE_VALUES * k;
  const spread = s[at]! * x * x + 2 * s[at + 1]! * x * y + s[at + 2]! * y * y + 2 * s[at + 3]! * x + 2 * s[at + 4]! * y + s[at + 5]!;
  const along = s[at + 6]! * x + s[at + 7]! * y + s[at + 8]!;
  const depth = splats.depth[k]!;
  const reach = rayShapeReach(s, k);
  // No splat is flat enough to have no peak along a ray (preprocess thickens them by PER_PIXEL_FLATTEST).
  const peak = along / spread;
  return Math.min(depth + reach, Math.max(depth - reach, peak));
}

/** Blends one splat into `state` ([r, g, b, T, done]); false once the pixel has stopped. */
export function blendOne(state: Float64Array, splats: Preprocessed, k: number, alpha: number): boolean {
  const T = state[3]!;
  const nextT = f(T * f(1 - alpha));
  if (nextT < T_STOP) {
    state[4] = 1;
    return false;
  }
  const w = f(alpha * T);
  const { color } = splats;
  state[0] = f(state[0]! + f(color[3 * k]! * w));
  state[1] = f(state[1]! + f(color[3 * k + 1]! * w));
  state[2] = f(state[2]! + f(color[3 * k + 2]! * w));
  state[3] = nextT;
  return true;
}


/**
 * A pixel's queue of `places` splats (nearest last), the GPU's rule: each
 * arrival is inserted by its depth, and once more than `places` are held
 * the nearest is blended; `finish` blends the rest, nearest first. With 0
 * places every arrival is blended as it comes.
 */
export class PixelQueue {
  private readonly t: Float64Array;
  private readonly alpha: Float64Array;
  private readonly k: Int32Array;
  private size = 0;

  constructor(readonly places: number) {
    this.t = new Float64Array(places + 1);
    this.alpha = new Float64Array(places + 1);
    this.k = new Int32Array(places + 1);
  }

  reset(): void {
    this.size = 0;
  }

  /** Splat k arrives with its alpha and depth t at the pixel; false once the pixel has stopped. */
  arrive(state: Float64Array, splats: Preprocessed, k: number, alpha: number, t: number): boolean {
    if (this.places === 0) return blendOne(state, splats, k, alpha);
    // The GPU's insertion: the arrival stays carried past places no farther than it.
    let at = this.size;
    while (at > 0 && this.t[at - 1]! < t) {
      this.t[at] = this.t[at - 1]!;
      this.alpha[at] = this.alpha[at - 1]!;
      this.k[at] = this.k[at - 1]!;
      at--;
    }
    this.t[at] = t;
    this.alpha[at] = alpha;
    this.k[at] = k;
    if (++this.size <= this.places) return true;
    return this.blendNearest(state, splats);
  }

  /** The depth of the place an arrival at depth t would push out (the nearest of a full queue, or t itself when it is nearer still); null while there is room. */
  nearestIfFull(t: number): number | null {
    if (this.size < this.places) return null;
    return Math.min(t, this.t[this.size - 1]!);
  }

  /** The nearest held place's depth, or null when none is held. */
  nearest(): number | null {
    return this.size > 0 ? this.t[this.size - 1]! : null;
  }

  /** Blends the nearest held place; false once the pixel has stopped. */
  blendNearest(state: Float64Array, splats: Preprocessed): boolean {
    this.size--;
    return blendOne(state, splats, this.k[this.size]!, this.alpha[this.size]!);
  }

  /** The list's end: the held splats, nearest first, until the pixel stops. */
  finish(state: Float64Array, splats: Preprocessed): void {
    while (this.size > 0) if (!this.blendNearest(state, splats)) return;
  }
}

export function startPixel(state: Float64Array): void {
  state.fill(0);
  state[3] = 1;
}

export function endPixel(state: Float64Array, out: Float32Array | Float64Array, at = 0): void {
  out[at] = state[0]!;
  out[at + 1] = state[1]!;
  out[at + 2] = state[2]!;
  out[at + 3] = state[3]!;
}

/** Throws unless `queue` is a per-pixel queue's length: a whole number ≥ 1. */
export function checkQueue(queue: number): void {
  if (!(Number.isInteger(queue) && queue >= 1)) throw new Error(`a per-pixel queue holds a whole number of splats ≥ 1, not ${queue}`);
}

/**
 * The exact per-pixel order, streamed: the splats held in a heap by (t*,
 * list place), and blended, nearest first, while the nearest held lies no
 * farther than the nearest any splat still to come can lie (its centre's
 * depth less its reach, the least over the rest of the list: worked out
 * once per list). A splat to come of the same depth comes later in the
 * list, so it goes after the held one, as the sort's ties do.
 */
class ExactPixelOrder {
  private t = new Float64Array(64);
  private n = new Int32Array(64);
  private alpha = new Float64Array(64);
  private size = 0;
  /** Per place of the last list seen: the nearest depth a splat from there on can have along any ray. */
  private nearestToCome = new Float64Array(0);
  private list: Int32Array | null = null;

  blend(state: Float64Array, splats: Preprocessed, list: Int32Array, px: number, py: number): void {
    if (list !== this.list) this.prepare(splats, list);
    this.size = 0;
    const nearestToCome = this.nearestToCome;
    for (let n = 0; n < list.length; n++) {
      while (this.size > 0 && this.t[0]! <= nearestToCome[n]!) if (!this.blendNearest(state, splats, list)) return;
      const k = list[n]!;
      const alpha = alphaAt(splats, k, px, py);
      if (alpha >= ALPHA_MIN) this.push(depthAlongRay(splats, k, px, py), n, alpha);
    }
    while (this.size > 0) if (!this.blendNearest(state, splats, list)) return;
  }

  private prepare(splats: Preprocessed, list: Int32Array): void {
    this.list = list;
    if (this.nearestToCome.length < list.length) this.nearestToCome = new Float64Array(list.length);
    let nearest = Infinity;
    for (let n = list.length - 1; n >= 0; n--) {
      const k = list[n]!;
      // The same double steps as depthAlongRay's clamp, so its result is never under this.
      nearest = Math.min(nearest, splats.depth[k]! - rayShapeReach(splats.rayShape, k));
      this.nearestToCome[n] = nearest;
    }
    if (this.t.length < list.length) {
      this.t = new Float64Array(list.length);
      this.n = new Int32Array(list.length);
      this.alpha = new Float64Array(list.length);
    }
  }

  private before(a: number, b: number): boolean {
    return this.t[a]! < this.t[b]! || (this.t[a] === this.t[b] && this.n[a]! < this.n[b]!);
  }

  private swap(a: number, b: number): void {
    const { t, n, alpha } = this;
    [t[a], t[b]] = [t[b]!, t[a]!];
    [n[a], n[b]] = [n[b]!, n[a]!];
    [alpha[a], alpha[b]] = [alpha[b]!, alpha[a]!];
  }

  private push(t: number, n: number, alpha: number): void {
    let at = this.size++;
    this.t[at] = t;
    this.n[at] = n;
    this.alpha[at] = alpha;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!this.before(at, parent)) break;
      this.swap(at, parent);
      at = parent;
    }
  }

  /** Blends the nearest held splat and takes it out; false once the pixel has stopped. */
  private blendNearest(state: Float64Array, splats: Preprocessed, list: Int32Array): boolean {
    const k = list[this.n[0]!]!;
    const alpha = this.alpha[0]!;
    this.size--;
    if (this.size > 0) {
      this.t[0] = this.t[this.size]!;
      this.n[0] = this.n[this.size]!;
      this.alpha[0] = this.alpha[this.size]!;
      let at = 0;
      for (;;) {
        const left = 2 * at + 1;
        if (left >= this.size) break;
        const child = left + 1 < this.size && this.before(left + 1, left) ? left + 1 : left;
        if (!this.before(child, at)) break;
        this.swap(child, at);
        at = child;
      }
    }
    return blendOne(state, splats, k, alpha);
  }
}

/**
 * The per-pixel order: exact without `queue`, else the GPU's queue of that
 * many places (a whole number ≥ 1).
 */
export function perPixelOrder(queue?: number): ReferenceOrder {
  if (queue !== undefined) checkQueue(queue);
  const state = new Float64Array(5);
  // Reused per pixel: the exact order's heap, or the queue.
  const exact = new ExactPixelOrder();
  const held = new PixelQueue(queue ?? 0);
  const blend: PixelBlend = (splats, list, px, py, out) => {
    startPixel(state);
    if (queue === undefined) exact.blend(state, splats, list, px, py);
    else {
      held.reset();
      let open = true;
      for (let n = 0; n < list.length && open; n++) {
        const k = list[n]!;
        const alpha = alphaAt(splats, k, px, py);
        if (alpha < ALPHA_MIN) continue;
        open = held.arrive(state, splats, k, alpha, depthAlongRay(splats, k, px, py));
      }
      if (open) held.finish(state, splats);
    }
    endPixel(state, out);
  };
  return { rayShapes: true, blend };
}
