/**
 * The level choice's two other ways to spend a splat budget that binds
 * (world-choice-types.ts, BudgetPolicy), besides raising one threshold for
 * every leaf: 'benefit', which buys finer levels where they buy the most,
 * and 'distance', which chooses from distances alone (the baseline the
 * others are measured against). Both read and write the choice's own
 * arrays (world-choice.ts) and allocate nothing a frame. Pure, DOM-free.
 */
import type { WorldView } from './world-choice-types';
import { fittingThreshold, NEAREST } from './world-budget';

/** The choice's arrays the policies share (world-choice.ts holds them; see there). */
export interface ChoiceArrays {
  readonly levels: number;
  /** Per leaf and level: the error in scene units (NaN: the level is never drawn), the run's splats, the error in pixels. */
  readonly error: Float64Array;
  readonly count: Float64Array;
  /** Filled for each leaf in view from its coarsest level down to the one the asked threshold wants. */
  readonly pixels: Float64Array;
  /** Per leaf: min x, y, z, max x, y, z; and its distance from the eye (0 inside). */
  readonly box: Float64Array;
  readonly distance: Float64Array;
  /** The leaves in view, first; per leaf the level wanted (−1: none). */
  readonly inView: Int32Array;
  readonly wanted: Int32Array;
  /** Scratch of leaves × levels, for the breakpoints. */
  readonly keys: Float64Array;
  readonly weights: Float64Array;
}

/**
 * What a leaf's box covers on screen, in pixels: its outline seen along the
 * line from the eye to its centre (for a box, the sum of its faces' areas
 * each times the cosine of that line with the face's axis: exact for a
 * parallel projection), scaled by pixels per unit at the centre's
 * distance, and capped at the screen. It counts the part of a box outside
 * the frustum as if it were in view, and takes a box around the eye as
 * covering the screen: an estimate of what a level's error is spread over,
 * not a measure.
 */
export function screenArea(box: Float64Array, at: number, view: WorldView): number {
  const sx = box[at + 3]! - box[at]!;
  const sy = box[at + 4]! - box[at + 1]!;
  const sz = box[at + 5]! - box[at + 2]!;
  const dx = (box[at]! + box[at + 3]!) / 2 - view.eye[0]!;
  const dy = (box[at + 1]! + box[at + 4]!) / 2 - view.eye[1]!;
  const dz = (box[at + 2]! + box[at + 5]!) / 2 - view.eye[2]!;
  const d2 = dx * dx + dy * dy + dz * dz;
  if (d2 === 0) return view.screenPixels;
  const d = Math.sqrt(d2);
  const outline = (Math.abs(dx) * sy * sz + Math.abs(dy) * sx * sz + Math.abs(dz) * sx * sy) / d;
  const scale = view.pixelsPerUnit / d;
  return Math.min(outline * scale * scale, view.screenPixels);
}


/**
 * The 'benefit' and 'distance' policies over a choice's arrays: the level
 * each leaf in view was asked for is kept (neither goes finer), and a
 * binary heap in typed arrays, holding each leaf's next upgrade, orders
 * the upgrades.
 */
export class BudgetSpender {
  /** Per leaf: the level the asked threshold wants (valid for the leaves in view this frame). */
  private readonly asked: Int32Array;
  /** Per leaf: its screen area this frame (screenArea). */
  private readonly area: Float64Array;
  /** The heap of upgrades, one at most a leaf: its value, leaf and the level it buys. */
  private readonly heapValue: Float64Array;
  private readonly heapLeaf: Int32Array;
  private readonly heapLevel: Int32Array;
  private heapSize = 0;
  /** The fewest splats an upgrade offered this frame adds (of those that add any). */
  private cheapest = Infinity;

  constructor(private readonly a: ChoiceArrays) {
    const n = a.wanted.length;
    this.asked = new Int32Array(n);
    this.area = new Float64Array(n);
    this.heapValue = new Float64Array(n);
    this.heapLeaf = new Int32Array(n);
    this.heapLevel = new Int32Array(n);
  }

  /** Moves each wanted leaf of the first `seen` in view to its coarsest level, keeping the level asked; returns the splats wanted. */
  startCoarsest(seen: number): number {
    const { levels, error, count, inView, wanted } = this.a;
    let splats = 0;
    for (let k = 0; k < seen; k++) {
      const i = inView[k]!;
      const level = wanted[i]!;
      this.asked[i] = level;
      if (level < 0) continue;
      let coarsest = levels - 1;
      while (Number.isNaN(error[i * levels + coarsest]!)) coarsest--;
      wanted[i] = coarsest;
      splats += count[i * levels + coarsest]!;
    }
    return splats;
  }

  /**
   * 'benefit': from the levels wanted (startCoarsest's, less the leaves the
   * budget left out), buys one upgrade at a time, the one of most screen
   * area × pixels of error saved per splat added, while it fits the budget
   * (one that does not is dropped, and its leaf keeps its level). A leaf's
   * upgrade is to its next finer level whose error in pixels is lower, never
   * finer than its asked level; one that adds no splats is bought first.
   * Returns the splats wanted.
   */
  buyUpgrades(seen: number, view: WorldView, budget: number, splats: number): number {
    const { levels, count, box, inView, wanted } = this.a;
    this.heapSize = 0;
    this.cheapest = Infinity;
    for (let k = 0; k < seen; k++) {
      const i = inView[k]!;
      if (wanted[i]! < 0) continue;
      this.area[i] = screenArea(box, 6 * i, view);
      this.offer(i);
    }
    // Once what is left is less than any upgrade offered costs, none fits and none is offered again: the rest
    // would only be dropped one by one (most of them, where the coarsest levels take most of the budget).
    // Upgrades that add no splats are worth the most, and come first.
    while (this.heapSize > 0 && (budget - splats >= this.cheapest || this.heapValue[0] === Infinity)) {
      const i = this.heapLeaf[0]!;
      const to = this.heapLevel[0]!;
      this.pop();
      const added = count[i * levels + to]! - count[i * levels + wanted[i]!]!;
      if (splats + added > budget) continue;
      wanted[i] = to;
      splats += added;
      this.offer(i);
    }
    return splats;
  }

  /**
   * 'distance': each leaf in view at level l where its distance d is in
   * [d0·2^(l−1), d0·2^l) (the finest nearer than d0), with d0 the largest at
   * which the wanted splats fit the budget (one selection over each leaf's
   * breakpoints, as the threshold's); never finer than its asked level, and
   * where the distance names a level the leaf lacks, its next finer one.
   * `need`: the splats to shed. Where even the coarsest levels do not fit,
   * every leaf takes its coarsest. Returns the splats wanted.
   */
  byDistance(seen: number, need: number): number {
    const { levels, error, count, distance, inView, wanted, keys, weights } = this.a;
    let breakpoints = 0;
    for (let k = 0; k < seen; k++) {
      const i = inView[k]!;
      const asked = (this.asked[i] = wanted[i]!);
      if (asked < 0) continue;
      const d = Math.max(distance[i]!, NEAREST);
      // Level l from a key of 1/d0 ≥ 2^(l−1)/d on: the same expression decides the levels below.
      for (let l = asked + 1, from = asked; l < levels; l++) {
        if (Number.isNaN(error[i * levels + l]!)) continue;
        keys[breakpoints] = 2 ** (l - 1) / d;
        weights[breakpoints++] = count[i * levels + from]! - count[i * levels + l]!;
        from = l;
      }
    }
    const key = fittingThreshold(keys, weights, breakpoints, need);
    let splats = 0;
    for (let k = 0; k < seen; k++) {
      const i = inView[k]!;
      const asked = this.asked[i]!;
      if (asked < 0) continue;
      const d = Math.max(distance[i]!, NEAREST);
      let level = asked;
      for (let l = levels - 1; l > asked; l--) {
        if (!Number.isNaN(error[i * levels + l]!) && 2 ** (l - 1) / d <= key) {
          level = l;
          break;
        }
      }
      wanted[i] = level;
      splats += count[i * levels + level]!;
    }
    return splats;
  }

  /** The largest error in pixels of a wanted leaf's level among the first `seen` in view, at least `asked`. */
  largestError(seen: number, asked: number): number {
    const { levels, pixels, inView, wanted } = this.a;
    let largest = asked;
    for (let k = 0; k < seen; k++) {
      const i = inView[k]!;
      if (wanted[i]! >= 0) largest = Math.max(largest, pixels[i * levels + wanted[i]!]!);
    }
    return largest;
  }

  /** Puts leaf i's next upgrade in the heap, if it has one (a finer level, no finer than asked, of lower error in pixels). */
  private offer(i: number): void {
    const { levels, error, count, pixels, wanted } = this.a;
    const from = wanted[i]!;
    const now = pixels[i * levels + from]!;
    for (let l = from - 1; l >= this.asked[i]!; l--) {
      if (Number.isNaN(error[i * levels + l]!)) continue;
      const saved = now - pixels[i * levels + l]!;
      if (!(saved > 0)) continue;
      const added = count[i * levels + l]! - count[i * levels + from]!;
      if (added > 0 && added < this.cheapest) this.cheapest = added;
      this.push(added > 0 ? (this.area[i]! * saved) / added : Infinity, i, l);
      return;
    }
  }

  /** Adds an upgrade to the max-heap (sifted up). */
  private push(value: number, leaf: number, level: number): void {
    const heapValue = this.heapValue;
    let at = this.heapSize++;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (heapValue[parent]! >= value) break;
      this.move(parent, at);
      at = parent;
    }
    this.place(at, value, leaf, level);
  }

  /** Removes the heap's top (the last place sifted down from the root). */
  private pop(): void {
    const heapValue = this.heapValue;
    const size = --this.heapSize;
    const value = heapValue[size]!;
    const leaf = this.heapLeaf[size]!;
    const level = this.heapLevel[size]!;
    let at = 0;
    for (;;) {
      let child = 2 * at + 1;
      if (child >= size) break;
      if (child + 1 < size && heapValue[child + 1]! > heapValue[child]!) child++;
      if (heapValue[child]! <= value) break;
      this.move(child, at);
      at = child;
    }
    this.place(at, value, leaf, level);
  }

  /** Copies heap place `from` to place `to`. */
  private move(from: number, to: number): void {
    this.place(to, this.heapValue[from]!, this.heapLeaf[from]!, this.heapLevel[from]!);
  }

  private place(at: number, value: number, leaf: number, level: number): void {
    this.heapValue[at] = value;
    this.heapLeaf[at] = leaf;
    this.heapLevel[at] = level;
  }
}
