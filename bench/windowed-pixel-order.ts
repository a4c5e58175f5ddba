/**
 * Hierarchical per-pixel orders on the CPU reference, for studies of what a
 * GPU workgroup could do before each pixel's own queue
 * (bench/order-study.ts): a tile-level window that re-sorts the tile's
 * list by a depth on one of its rays, then each pixel's queue of the GPU's
 * rule (bench/reference-pixel-order.ts); and several orders drawn in one
 * pass over each pixel's splats.
 */
import { FaintBucketQueue } from './faint-bucket-queue';
import { ALPHA_MIN, alphaAt, TILE, type PixelBlend, type Preprocessed, type ReferenceOrder } from '../src/render/reference-rasterizer';
import { blendOne, checkQueue, depthAlongRay, endPixel, PixelQueue, startPixel } from './reference-pixel-order';

/**
 * The depth a tile sorts splat k by in the windowed order: its t* on one
 * ray of tile (tx, ty) (a 16 × 16 square of pixels, whether or not the
 * picture's edge cuts it):
 * - `nearest`: the ray of the tile's pixel nearest the splat's projected
 *   centre (the centre clamped into the tile's square of pixel centres,
 *   then rounded to a pixel), where the splat is densest on the tile;
 * - `centre`: the ray through the tile's centre (tx·16 + 7.5, ty·16 + 7.5),
 *   the same for every splat.
 * Both are depthAlongRay's, so the reach clamp applies.
 */
export type TileDepth = 'nearest' | 'centre';
export const TILE_DEPTHS: readonly TileDepth[] = ['nearest', 'centre'];

export function tileDepth(splats: Preprocessed, k: number, tx: number, ty: number, rule: TileDepth): number {
  const x0 = tx * TILE, y0 = ty * TILE;
  if (rule === 'centre') return depthAlongRay(splats, k, x0 + (TILE - 1) / 2, y0 + (TILE - 1) / 2);
  const px = Math.round(Math.min(x0 + TILE - 1, Math.max(x0, splats.xy[2 * k]!)));
  const py = Math.round(Math.min(y0 + TILE - 1, Math.max(y0, splats.xy[2 * k + 1]!)));
  return depthAlongRay(splats, k, px, py);
}

/** The windowed order's settings (windowedPixelOrder). */
export interface WindowOptions {
  /** Splats the tile holds back between batches (≥ 0). */
  window: number;
  /** Splats a batch brings from the tile's list, and the most a batch passes on (≥ 1). */
  batch: number;
  /** The depth the tile sorts by (tileDepth). */
  tileDepth: TileDepth;
  /** Each pixel's queue on what is passed on (0: none, blend in the passed-on order). */
  queue: number;
}

function checkWindow(options: WindowOptions): void {
  const { window, batch, queue } = options;
  if (!(Number.isInteger(window) && window >= 0)) throw new Error(`a tile window holds a whole number of splats ≥ 0, not ${window}`);
  if (!(Number.isInteger(batch) && batch >= 1)) throw new Error(`a tile batch brings a whole number of splats ≥ 1, not ${batch}`);
  if (!(Number.isInteger(queue) && queue >= 0)) throw new Error(`a per-pixel queue behind a window holds a whole number of splats ≥ 0, not ${queue}`);
  if (!TILE_DEPTHS.includes(options.tileDepth)) throw new Error(`a tile depth is one of ${TILE_DEPTHS.join(', ')}, not ${options.tileDepth}`);
}

/**
 * The order tile (tx, ty) passes its list on to its pixels in the windowed
 * rule, as positions in `list` (centre-depth order): the list arrives in
 * batches of `batch`; each batch, the held splats and the batch's are
 * sorted together by their tile depth (ties: list order), the farthest
 * `window` of them are held and the rest, nearest first, passed on (so the
 * first batches fill the window before anything is passed); at the list's
 * end the held ones are passed on in the same order. Window 0, batch 1 is
 * the list's own order; a window as long as the list, a sort of the whole
 * list by tile depth.
 */
export function windowOrder(splats: Preprocessed, list: Int32Array, tx: number, ty: number, options: Pick<WindowOptions, 'window' | 'batch' | 'tileDepth'>): Int32Array {
  const { window, batch } = options;
  const tau = new Float64Array(list.length);
  for (let n = 0; n < list.length; n++) tau[n] = tileDepth(splats, list[n]!, tx, ty, options.tileDepth);
  const byDepth = (a: number, b: number) => tau[a]! - tau[b]! || a - b;
  const order = new Int32Array(list.length);
  let passed = 0;
  let held: number[] = [];
  for (let start = 0; start < list.length; start += batch) {
    const candidates = held;
    for (let n = start; n < Math.min(list.length, start + batch); n++) candidates.push(n);
    candidates.sort(byDepth);
    const cut = Math.max(0, candidates.length - window);
    for (let i = 0; i < cut; i++) order[passed++] = candidates[i]!;
    held = candidates.slice(cut);
  }
  for (const n of held) order[passed++] = n;
  return order;
}

/**
 * A hierarchical per-pixel order, what a GPU workgroup could do with its
 * batch in workgroup memory: the tile re-sorts its list by tile depth
 * through a window (windowOrder; worked out once a tile, the same for its
 * pixels), and each pixel puts what is passed on through its own queue of
 * `queue` places by its own t* (perPixelOrder's rule; 0: no queue).
 */
export function windowedPixelOrder(options: WindowOptions): ReferenceOrder {
  checkWindow(options);
  const state = new Float64Array(5);
  const held = new PixelQueue(options.queue);
  // A tile's passed-on order, by its list (one list a tile, made by binByTile).
  const orders = new WeakMap<Int32Array, Int32Array>();
  const blend: PixelBlend = (splats, list, px, py, out) => {
    let order = orders.get(list);
    if (!order) {
      order = windowOrder(splats, list, Math.floor(px / TILE), Math.floor(py / TILE), options);
      orders.set(list, order);
    }
    startPixel(state);
    held.reset();
    let open = true;
    for (let i = 0; i < order.length && open; i++) {
      const k = list[order[i]!]!;
      const alpha = alphaAt(splats, k, px, py);
      if (alpha < ALPHA_MIN) continue;
      open = held.arrive(state, splats, k, alpha, options.queue === 0 ? 0 : depthAlongRay(splats, k, px, py));
    }
    if (open) held.finish(state, splats);
    endPixel(state, out);
  };
  return { rayShapes: true, blend };
}

/** One of the orders manyPixelOrders draws at once. */
export type PixelRule =
  | { kind: 'centre-depth' }
  | { kind: 'exact' }
  | { kind: 'queue'; queue: number }
  | { kind: 'faint'; queue: number; below: number; front: boolean }
  | ({ kind: 'window' } & WindowOptions);

/** A rule's name in the studies' output: centre-depth, exact, queue-8, window-64x64-nearest-q2. */
export function ruleName(rule: PixelRule): string {
  switch (rule.kind) {
    case 'centre-depth':
    case 'exact':
      return rule.kind;
    case 'queue':
      return `queue-${rule.queue}`;
    case 'faint':
      return `queue-${rule.queue}-faint-${rule.front ? 'front-' : ''}${rule.below}`;
    case 'window':
      return `window-${rule.window}x${rule.batch}-${rule.tileDepth}-q${rule.queue}`;
  }
}

/** What manyPixelOrders gives: an order to draw with, and what each rule's pixels came to. */
export interface ManyPixelOrders {
  /** Its blend writes rules[0]'s result into `out`, and every rule's into `sums`. */
  order: ReferenceOrder;
  /** Per rule, width·height [r, g, b, T] quadruples, rows top to bottom (the blend's out, before the background). */
  sums: Float32Array[];
  /** Per rule, milliseconds spent ordering and blending its pixels (the shared pass over each pixel's list is `sharedMs`). */
  ms: Float64Array;
  /** Milliseconds spent finding each pixel's reaching splats, their alphas and depths, once for every rule. */
  sharedMs: number;
  /**
   * What each rule would cost a GPU workgroup, per rule: `walked`, the list
   * positions its tiles walk (a tile walks until its last pixel stops, so
   * its largest over its pixels, summed over the tiles); `arrivals`, the
   * splats that reach a pixel and go through its order before it stops
   * (summed over the pixels). The exact order's are its list's whole; a
   * windowed order's count its tile's passed-on order. `faint`: of those,
   * the ones a 'faint' rule composited into its bucket (FaintBucketQueue)
   * rather than its places.
   */
  cost(): { walked: Float64Array; arrivals: Float64Array; faint: Float64Array };
}

/**
 * Several orders drawn in one pass of the reference over a picture of
 * `width` × `height`: each pixel's reaching splats, their alphas and t*,
 * are found once, and each rule orders and blends them as its own order
 * would (CENTRE_DEPTH_ORDER, perPixelOrder, windowedPixelOrder): the same
 * splats in the same order, so the same float32 steps and the same pixels.
 */
export function manyPixelOrders(rules: readonly PixelRule[], width: number, height: number): ManyPixelOrders {
  if (rules.length === 0) throw new Error('manyPixelOrders: no rules');
  for (const rule of rules) {
    if (rule.kind === 'queue' || rule.kind === 'faint') checkQueue(rule.queue);
    if (rule.kind === 'faint' && !(rule.below > 0 && rule.below <= 1)) throw new Error(`a faint splat's alpha bound is in (0, 1], not ${rule.below}`);
    if (rule.kind === 'window') checkWindow(rule);
  }
  const result: ManyPixelOrders = {
    order: { rayShapes: true, blend: () => {} },
    sums: rules.map(() => new Float32Array(4 * width * height)),
    ms: new Float64Array(rules.length),
    sharedMs: 0,
    cost: () => {
      const walked = new Float64Array(rules.length);
      for (const most of tileWalks.values()) most.forEach((w, r) => (walked[r] += w));
      return { walked, arrivals, faint: Float64Array.from(buckets, (b) => b?.faintArrivals ?? 0) };
    },
  };
  // Per tile (its list), per rule, the most list positions a pixel walked; per rule, arrivals taken.
  const tileWalks = new Map<Int32Array, Float64Array>();
  const arrivals = new Float64Array(rules.length);
  const state = new Float64Array(5);
  const queues = rules.map((rule) => new PixelQueue(rule.kind === 'queue' || rule.kind === 'window' ? rule.queue : 0));
  const buckets = rules.map((rule) => (rule.kind === 'faint' ? new FaintBucketQueue(rule.queue, rule.below, rule.front) : null));
  // Per window rule, a tile's passed-on order.
  const tiles = rules.map(() => new WeakMap<Int32Array, { order: Int32Array }>());
  // The pixel's reaching splats, in list order: splat, alpha, t*; and each list position's place among them (−1: not reaching).
  let capacity = 0;
  let splat = new Int32Array(0), alpha = new Float64Array(0), depth = new Float64Array(0);
  let arrivalAt = new Int32Array(0), listAt = new Int32Array(0);
  const exact: number[] = [];
  const byDepth = (a: number, b: number) => depth[a]! - depth[b]! || a - b;

  result.order.blend = (splats, list, px, py, out) => {
    let started = performance.now();
    if (list.length > capacity) {
      capacity = Math.max(list.length, 2 * capacity);
      splat = new Int32Array(capacity);
      alpha = new Float64Array(capacity);
      depth = new Float64Array(capacity);
      arrivalAt = new Int32Array(capacity);
      listAt = new Int32Array(capacity);
    }
    let reaching = 0;
    for (let n = 0; n < list.length; n++) {
      const k = list[n]!;
      const a = alphaAt(splats, k, px, py);
      if (a < ALPHA_MIN) {
        arrivalAt[n] = -1;
        continue;
      }
      splat[reaching] = k;
      alpha[reaching] = a;
      depth[reaching] = depthAlongRay(splats, k, px, py);
      arrivalAt[n] = reaching;
      listAt[reaching] = n;
      reaching++;
    }
    let now = performance.now();
    result.sharedMs += now - started;
    const at = 4 * (py * width + px);
    let walks = tileWalks.get(list);
    if (!walks) tileWalks.set(list, (walks = new Float64Array(rules.length)));
    for (let r = 0; r < rules.length; r++) {
      // The arrivals this rule took, and the list position after the last it looked at.
      let taken = reaching;
      let walked = list.length;
      started = now;
      const rule = rules[r]!;
      startPixel(state);
      if (rule.kind === 'centre-depth') {
        for (let i = 0; i < reaching; i++) {
          if (!blendOne(state, splats, splat[i]!, alpha[i]!)) {
            taken = i + 1;
            walked = listAt[i]! + 1;
            break;
          }
        }
      } else if (rule.kind === 'exact') {
        exact.length = reaching;
        for (let i = 0; i < reaching; i++) exact[i] = i;
        exact.sort(byDepth);
        for (const i of exact) if (!blendOne(state, splats, splat[i]!, alpha[i]!)) break;
      } else if (rule.kind === 'faint') {
        const held = buckets[r]!;
        held.reset();
        let open = true;
        for (let i = 0; i < reaching && open; i++) {
          open = held.arrive(state, splats, splat[i]!, alpha[i]!, depth[i]!);
          if (!open) {
            taken = i + 1;
            walked = listAt[i]! + 1;
          }
        }
        if (open) held.finish(state, splats);
      } else {
        const held = queues[r]!;
        held.reset();
        let open = true;
        if (rule.kind === 'queue') {
          for (let i = 0; i < reaching && open; i++) {
            open = held.arrive(state, splats, splat[i]!, alpha[i]!, depth[i]!);
            if (!open) {
              taken = i + 1;
              walked = listAt[i]! + 1;
            }
          }
        } else {
          let tile = tiles[r]!.get(list);
          if (!tile) {
            tile = { order: windowOrder(splats, list, Math.floor(px / TILE), Math.floor(py / TILE), rule) };
            tiles[r]!.set(list, tile);
          }
          // The tile's passed-on order, skipping what does not reach the pixel, until the pixel stops.
          const { order } = tile;
          let met = 0;
          for (let j = 0; j < order.length && open; j++) {
            const i = arrivalAt[order[j]!]!;
            if (i < 0) continue;
            met++;
            open = held.arrive(state, splats, splat[i]!, alpha[i]!, depth[i]!);
            if (!open) {
              taken = met;
              walked = j + 1;
            }
          }
        }
        if (open) held.finish(state, splats);
      }
      arrivals[r] += taken;
      walks[r] = Math.max(walks[r]!, walked);
      endPixel(state, result.sums[r]!, at);
      if (r === 0) endPixel(state, out);
      now = performance.now();
      result.ms[r] += now - started;
    }
  };
  return result;
}
