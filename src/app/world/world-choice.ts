/**
 * The level choice of a Streamed SOG world, prepared once per world
 * (world-lod.ts says what it chooses): the leaves in flat arrays, the
 * tree's boxes for culling (world-cull.ts), the budget's threshold from
 * each leaf's breakpoints (world-budget.ts), or the budget spent by the
 * other policies (world-budget-policy.ts). Pure and DOM-free.
 */
import type { LodNode } from '../../io/lod/lod-meta';
import type { LodChoice, LodChoiceOptions, WorldLeaf, WorldView } from './world-choice-types';
import { fittingThreshold, projected, selectWeighted } from './world-budget';
import { BudgetSpender } from './world-budget-policy';
import { askedOnce, FileNeeds } from './world-file-needs';
import { BoxTree } from './world-cull';
import { levelsOf } from './world-run-table';

/**
 * The budget's thresholds are searched up to the first doubling of the asked
 * one past this (where the first search stopped); a budget not met there
 * leaves out the farthest leaves. A leaf the camera is inside counts as
 * NEAREST away (world-budget.ts): its coarser levels may project past the
 * ceiling and keep their finer level.
 */
const CEILING_PX = 1e12;

/**
 * A world's choice, prepared once: its leaves in flat arrays and its tree's
 * boxes (world-cull.ts), so that a frame's choice touches only the leaves
 * in view, in typed arrays, allocating next to nothing. `choose` returns
 * the same LodChoice each call, its arrays rewritten: read it before the
 * next call, or copy what you keep (chooseLevels copies).
 */
export class WorldChoice {
  readonly leaves: readonly WorldLeaf[];
  /** The stride of the choice's run numbers (levelsOf its leaves: an index's levels). */
  readonly levels: number;
  private readonly tree: BoxTree;
  /** Per leaf: min x, y, z, max x, y, z. */
  private readonly box: Float64Array;
  /** Per leaf and level (leaf · levels + level): the error in scene units (NaN: none), the run's splats and file (−1: none). */
  private readonly error: Float64Array;
  private readonly count: Float64Array;
  private readonly file: Int32Array;
  /** Per leaf: the file of its coarsest level with splats (−1: none). */
  private readonly coarsestFile: Int32Array;
  // A frame's working state, kept between calls.
  private readonly inView: Int32Array;
  private readonly distance: Float64Array;
  /** Per leaf and level: the error in pixels, for the levels from the coarsest down to the one wanted at the asked threshold. */
  private readonly pixels: Float64Array;
  private readonly keys: Float64Array;
  private readonly weights: Float64Array;
  /** Per file: 0 not asked this frame, 1 resident, 2 not; and 0 not asked, 1 failed, 2 not. */
  private readonly residentState: Uint8Array;
  private resident: (file: number) => boolean = () => false;
  private readonly failedState: Uint8Array;
  private failed: ((file: number) => boolean) | undefined;
  /** The files this frame asks for (world-file-needs.ts). */
  private readonly needs: FileNeeds;
  private readonly result: LodChoice;
  /** The 'benefit' and 'distance' budget policies, over these arrays. */
  private readonly spender: BudgetSpender;
  /** The leaves whose stand-in costs more than their wanted level (listDrawn), and their order when not all fit. */
  private readonly costlier: number[] = [];
  private readonly nearerLeaf = (a: number, b: number): number => this.distance[a]! - this.distance[b]! || a - b;

  /**
   * `leaves` numbered depth first over `tree` (as worldLeaves lists them);
   * without the tree, each leaf is tested against the frustum on its own.
   */
  constructor(leaves: readonly WorldLeaf[], tree: LodNode | null = null) {
    const n = leaves.length;
    const levels = levelsOf(leaves);
    this.leaves = leaves;
    this.levels = levels;
    this.box = new Float64Array(6 * n);
    this.error = new Float64Array(n * levels).fill(NaN);
    this.count = new Float64Array(n * levels);
    this.file = new Int32Array(n * levels).fill(-1);
    this.coarsestFile = new Int32Array(n).fill(-1);
    let files = 0;
    leaves.forEach((leaf, i) => {
      this.box.set(leaf.min, 6 * i);
      this.box.set(leaf.max, 6 * i + 3);
      for (let level = 0; level < levels; level++) {
        const run = leaf.runs[level];
        const error = leaf.errors[level];
        if (error !== null && error !== undefined) this.error[i * levels + level] = error;
        if (!run) continue;
        this.count[i * levels + level] = run.count;
        this.file[i * levels + level] = run.file;
        if (run.count > 0) this.coarsestFile[i] = run.file;
        files = Math.max(files, run.file + 1);
      }
    });
    this.tree = new BoxTree(this.box, tree);
    this.inView = new Int32Array(n);
    this.distance = new Float64Array(n);
    this.pixels = new Float64Array(n * levels);
    this.keys = new Float64Array(n * levels);
    this.weights = new Float64Array(n * levels);
    this.residentState = new Uint8Array(files);
    this.failedState = new Uint8Array(files);
    this.needs = new FileNeeds(files);
    this.result = { draw: [], drawnSplats: 0, wanted: new Int32Array(n), wantedSplats: 0, thresholdPx: 0, leftOut: 0, fetch: [] };
    const { error, count, pixels, box, distance, inView, keys, weights } = this;
    this.spender = new BudgetSpender({ levels, error, count, pixels, box, distance, inView, wanted: this.result.wanted, keys, weights });
  }

  /** What the world draws from `view` (see the file's header); the returned object is rewritten by the next call. */
  choose(view: WorldView, options: LodChoiceOptions): LodChoice {
    const result = this.result;
    result.wanted.fill(-1);
    this.residentState.fill(0);
    this.resident = options.resident;
    this.failed = options.failed;
    if (this.failed) this.failedState.fill(0);
    // Cleared here rather than after the fetch list, so that a call broken off (by `resident` throwing) leaves nothing behind.
    this.needs.clear();
    const seen = this.tree.cull(view.planes, this.inView);
    let thresholdPx = options.thresholdPx;
    let wantedSplats = this.levelsWithin(seen, view, thresholdPx);
    let leftOut = 0;
    const { budget, budgetPolicy = 'threshold' } = options;
    if (wantedSplats > budget && budgetPolicy === 'threshold') {
      thresholdPx = this.fittingThreshold(seen, thresholdPx, wantedSplats - budget);
      wantedSplats = this.levelsAt(seen, thresholdPx);
      // Even the coarsest levels are too many: the farthest leaves go (they are the smallest on screen).
      if (wantedSplats > budget) [leftOut, wantedSplats] = this.leaveOutFarthest(seen, wantedSplats, budget);
    } else if (wantedSplats > budget) {
      // The other policies (world-budget-policy.ts) start from levels that fit where any do, leave out as the threshold does.
      const spender = this.spender;
      wantedSplats = budgetPolicy === 'benefit' ? spender.startCoarsest(seen) : spender.byDistance(seen, wantedSplats - budget);
      if (wantedSplats > budget) [leftOut, wantedSplats] = this.leaveOutFarthest(seen, wantedSplats, budget);
      if (budgetPolicy === 'benefit') wantedSplats = spender.buyUpgrades(seen, view, budget, wantedSplats);
      thresholdPx = spender.largestError(seen, thresholdPx);
    }
    if (this.failed) {
      wantedSplats = this.avoidFailed(seen);
      // Finer levels standing in for failed ones may want more than the budget: the farthest leaves go.
      if (wantedSplats > budget) {
        const [more, splats] = this.leaveOutFarthest(seen, wantedSplats, budget);
        leftOut += more;
        wantedSplats = splats;
      }
    }
    result.drawnSplats = this.listDrawn(seen, view.pixelsPerUnit, budget);
    this.needs.list(result.fetch);
    result.wantedSplats = wantedSplats;
    result.thresholdPx = thresholdPx;
    result.leftOut = leftOut;
    return result;
  }

  /**
   * Each leaf in view's distance, its errors in pixels from the coarsest
   * level down to the one it wants (the coarsest within `thresholdPx`, else
   * the finest it has); returns the splats wanted.
   */
  private levelsWithin(seen: number, view: WorldView, thresholdPx: number): number {
    const { levels, error, count, box, distance, pixels, inView } = this;
    const wanted = this.result.wanted;
    const ex = view.eye[0]!;
    const ey = view.eye[1]!;
    const ez = view.eye[2]!;
    let wantedSplats = 0;
    for (let k = 0; k < seen; k++) {
      const i = inView[k]!;
      const b = 6 * i;
      const dx = Math.max(box[b]! - ex, 0, ex - box[b + 3]!);
      const dy = Math.max(box[b + 1]! - ey, 0, ey - box[b + 4]!);
      const dz = Math.max(box[b + 2]! - ez, 0, ez - box[b + 5]!);
      const d = Math.sqrt(dx * dx + dy * dy + dz * dz);
      distance[i] = d;
      let level = -1;
      for (let l = levels - 1; l >= 0; l--) {
        const e = error[i * levels + l]!;
        if (Number.isNaN(e)) continue;
        level = l;
        const p = projected(e, d, view.pixelsPerUnit);
        pixels[i * levels + l] = p;
        if (p <= thresholdPx) break;
      }
      wanted[i] = level;
      if (level >= 0) wantedSplats += count[i * levels + level]!;
    }
    return wantedSplats;
  }

  /**
   * Lists what each wanted leaf shows (its wanted level if resident, else
   * the nearest there is) and asks for the files it lacks; returns the
   * splats drawn. A level standing in for a wanted one on its way (a
   * finer one, or a coarser one of more splats) may cost more than the
   * budget allowed for it: such stand-ins are drawn while the splats drawn
   * stay within `budget`, nearest leaf first; a leaf whose stand-in finds
   * no room waits as a leaf with nothing resident does.
   */
  private listDrawn(seen: number, perUnit: number, budget: number): number {
    const { levels, count, inView, costlier } = this;
    const { draw, wanted } = this.result;
    let drawn = 0;
    let drawnSplats = 0;
    costlier.length = 0;
    let costlierSplats = 0;
    for (let k = 0; k < seen; k++) {
      const i = inView[k]!;
      const level = wanted[i]!;
      if (level < 0) continue;
      const shown = this.residentLevel(i, level);
      if (shown >= 0 && count[i * levels + shown]! > count[i * levels + level]!) {
        costlier.push(i);
        costlierSplats += count[i * levels + shown]!;
        continue;
      }
      if (shown >= 0) {
        draw[drawn++] = i * levels + shown;
        drawnSplats += count[i * levels + shown]!;
      }
      if (shown < 0) this.askHole(i, level);
      else if (shown !== level) this.askOther(i, level, shown, perUnit);
    }
    // Nearest first, only when not all fit (a sort is rare: coarser levels are fetched first).
    if (drawnSplats + costlierSplats > budget) costlier.sort(this.nearerLeaf);
    for (const i of costlier) {
      const level = wanted[i]!;
      const shown = this.residentLevel(i, level);
      const splats = count[i * levels + shown]!;
      if (drawnSplats + splats > budget) {
        this.askHole(i, level);
        continue;
      }
      draw[drawn++] = i * levels + shown;
      drawnSplats += splats;
      this.askOther(i, level, shown, perUnit);
    }
    draw.length = drawn;
    return drawnSplats;
  }

  // A file's need (world-file-needs.ts): nearer holes first; larger errors first.
  private askHole(leaf: number, level: number): void {
    this.ask(this.coarsestReadable(leaf), 2, -this.distance[leaf]!);
    this.ask(this.file[leaf * this.levels + level]!, 1, -this.distance[leaf]!);
  }

  private askOther(leaf: number, level: number, shown: number, perUnit: number): void {
    this.ask(this.file[leaf * this.levels + level]!, 0, projected(this.error[leaf * this.levels + shown]!, this.distance[leaf]!, perUnit));
  }

  /**
   * The lowest threshold above `asked` at which the leaves in view shed
   * `need` splats, up to the ceiling (the first doubling of the asked
   * threshold past CEILING_PX, where a binary search over thresholds would
   * stop). A leaf's level is a step function of the threshold: it moves to
   * a coarser level at that level's error in pixels, unless a coarser one
   * still is reached as soon. Those breakpoints, with the splats each sheds,
   * go to fittingThreshold.
   */
  private fittingThreshold(seen: number, asked: number, need: number): number {
    const { levels, error, pixels, count, keys, weights } = this;
    let ceiling = Math.max(asked, 1) * 2;
    while (ceiling < CEILING_PX) ceiling *= 2;
    let breakpoints = 0;
    for (let k = 0; k < seen; k++) {
      const i = this.inView[k]!;
      let from = this.result.wanted[i]!;
      if (from < 0) continue;
      for (let l = from + 1; l < levels; l++) {
        const p = pixels[i * levels + l]!;
        if (Number.isNaN(error[i * levels + l]!) || p > ceiling) continue;
        let first = true;
        for (let c = l + 1; c < levels && first; c++) first = Number.isNaN(error[i * levels + c]!) || pixels[i * levels + c]! > p;
        if (!first) continue;
        keys[breakpoints] = p;
        weights[breakpoints++] = count[i * levels + from]! - count[i * levels + l]!;
        from = l;
      }
    }
    const fitting = fittingThreshold(keys, weights, breakpoints, need);
    return fitting === Infinity ? ceiling : fitting;
  }

  /** Moves each wanted leaf to its coarsest level within `thresholdPx` (all of whose errors in pixels are known); returns the splats wanted. */
  private levelsAt(seen: number, thresholdPx: number): number {
    const { levels, error, pixels, count } = this;
    const wanted = this.result.wanted;
    let splats = 0;
    for (let k = 0; k < seen; k++) {
      const i = this.inView[k]!;
      const from = wanted[i]!;
      if (from < 0) continue;
      for (let l = levels - 1; l > from; l--) {
        if (!Number.isNaN(error[i * levels + l]!) && pixels[i * levels + l]! <= thresholdPx) {
          wanted[i] = l;
          break;
        }
      }
      splats += count[i * levels + wanted[i]!]!;
    }
    return splats;
  }

  /**
   * Leaves out the farthest leaves in view (the nearer first among equally
   * far, the lower leaf first) until `splats` fit `budget`: those beyond the
   * distance at which the farthest leaves' splats reach the excess, then
   * those at it, in order. Returns the leaves left out and the splats left.
   */
  private leaveOutFarthest(seen: number, splats: number, budget: number): [number, number] {
    const { levels, count, distance, keys, weights } = this;
    const wanted = this.result.wanted;
    const splatsOf = (i: number) => (wanted[i]! >= 0 ? count[i * levels + wanted[i]!]! : 0);
    for (let k = 0; k < seen; k++) {
      const i = this.inView[k]!;
      keys[k] = -distance[i]!;
      weights[k] = splatsOf(i);
    }
    const excess = splats - budget;
    const edge = -selectWeighted(keys, weights, seen, excess);
    let shed = 0;
    let leftOut = 0;
    const leaveOut = (i: number) => {
      // A leaf wanting nothing (no level, or left out before) is not left out again.
      if (wanted[i]! < 0) return;
      shed += splatsOf(i);
      wanted[i] = -1;
      leftOut++;
    };
    for (let k = 0; k < seen; k++) if (distance[this.inView[k]!]! > edge) leaveOut(this.inView[k]!);
    for (let k = 0; k < seen && shed < excess; k++) if (distance[this.inView[k]!] === edge) leaveOut(this.inView[k]!);
    return [leftOut, splats - shed];
  }

  /**
   * Moves each wanted leaf whose level's file failed to the nearest level
   * whose file did not, coarser first, else finer (none: not drawn); the
   * budget chose without knowing, so a leaf may now want more splats than
   * it allowed. Returns the splats wanted.
   */
  private avoidFailed(seen: number): number {
    const { levels, count } = this;
    const wanted = this.result.wanted;
    let splats = 0;
    for (let k = 0; k < seen; k++) {
      const i = this.inView[k]!;
      const level = wanted[i]!;
      if (level < 0) continue;
      let readable = this.isReadable(i, level) ? level : -1;
      for (let l = level + 1; l < levels && readable < 0; l++) if (this.isReadable(i, l)) readable = l;
      for (let l = level - 1; l >= 0 && readable < 0; l--) if (this.isReadable(i, l)) readable = l;
      wanted[i] = readable;
      if (readable >= 0) splats += count[i * levels + readable]!;
    }
    return splats;
  }

  /** The file of the leaf's coarsest level with splats whose file did not fail (−1: none). */
  private coarsestReadable(leaf: number): number {
    const coarsest = this.coarsestFile[leaf]!;
    if (coarsest < 0 || !this.isFailed(coarsest)) return coarsest;
    for (let l = this.levels - 1; l >= 0; l--) if (this.isReadable(leaf, l)) return this.file[leaf * this.levels + l]!;
    return -1;
  }

  /** The leaf has splats at `level`, in a file that did not fail. */
  private isReadable(leaf: number, level: number): boolean {
    const at = leaf * this.levels + level;
    return this.count[at]! > 0 && !this.isFailed(this.file[at]!);
  }

  /** Asks `failed` once a frame a file. */
  private isFailed(file: number): boolean {
    return this.failed !== undefined && askedOnce(this.failedState, file, this.failed);
  }

  /** The level to show for `level`: itself if resident, else the nearest coarser resident, else the nearest finer; −1 if none. */
  private residentLevel(leaf: number, level: number): number {
    if (this.hasResident(leaf, level)) return level;
    for (let l = level + 1; l < this.levels; l++) if (this.hasResident(leaf, l)) return l;
    for (let l = level - 1; l >= 0; l--) if (this.hasResident(leaf, l)) return l;
    return -1;
  }

  private hasResident(leaf: number, level: number): boolean {
    const at = leaf * this.levels + level;
    return this.count[at]! > 0 && this.isResident(this.file[at]!);
  }

  /** Asks `resident` once a frame a file. */
  private isResident(file: number): boolean {
    return askedOnce(this.residentState, file, this.resident);
  }

  /** Keeps the file's greatest need this frame, unless it is resident. */
  private ask(file: number, tier: number, value: number): void {
    if (file >= 0 && !this.isResident(file)) this.needs.ask(file, tier, value);
  }
}
