/**
 * Cross-fades between a leaf's levels (docs/streamed-worlds-design.md,
 * "Level changes without pops"). When the level choice (world-choice.ts)
 * draws a leaf from another run than it did (a finer level arrived, the
 * camera came closer, the budget moved the threshold), the change is
 * spread over `fadeMs`: the incoming run's opacity rises from 0 to 1 while
 * the outgoing run, still drawn, falls from 1 to 0. A leaf drawn where it
 * was not (it came into view, or its first chunk arrived) fades in from
 * nothing. A leaf no longer drawn goes at once: it left the view, or the
 * budget left it out. Pure and DOM-free: the choice's runs (by number,
 * world-run-table.ts) and the time in, the runs to draw with an opacity
 * each out.
 *
 * Why both at once: two levels of one surface cover a pixel about as
 * densely, and splats of opacity scaled by s leave a transmittance of
 * about exp(−s·D) for the surface's depth D; with the two scales summing
 * to 1 the pair leaves exp(−D), as either level alone does, so the surface
 * keeps its opacity and only its look moves from one level to the other.
 * Fading the incoming level in over the outgoing one, then the outgoing
 * one out (each for half the time), doubles the depth and then takes all
 * of it away at the end: on the GPU test's world (tests/gpu/world-session
 * .test.ts, a 300 ms fade in ten steps) the largest step moved 2,609 to
 * 4,100 pixels by more than 16 levels, out of the 6,144 that the change
 * moves at once; both at once, none.
 */
import { runLeaf, type WorldRunTable } from './world-run-table';

/** A leaf's fade: the run coming, the run going (−1: none, the leaf fades in), and when it began. */
interface Fade {
  leaf: number;
  incoming: number;
  outgoing: number;
  start: number;
}

export class LevelFades {
  /** Per leaf: the run shown whole at the last update, or the fade's incoming run (−1: not drawn). */
  private readonly shown: Int32Array;
  /**
   * Per leaf: its fade's place in `fading` (−1: none), so that a fade
   * leaves in one step (a search for it made 20,480 leaves changing level
   * at once cost 42 ms, 86 at most, in the frame their fades ended; 1 ms
   * now: bench/world-fades.ts, Node, 2 cores), and the leaves not fading,
   * most of a frame's, are told from a typed array. Then the fades under
   * way, in no order, and fades done, to reuse.
   */
  private readonly fadeAt: Int32Array;
  private readonly fading: Fade[] = [];
  private readonly spare: Fade[] = [];
  /**
   * Leaves drawn at the last update (the first `drawnCount`), the list the
   * next fills, and the stamp of the update that last drew each. Typed and
   * sized for every leaf: a JS array emptied by \`length = 0\` each frame
   * gave back its store and grew it again, 23.6 MB over the 300 frames of
   * the world benchmark's path (45 % of what its frames' thread allocated:
   * a sampling heap profile, H200 host).
   */
  private drawnLeaves: Int32Array;
  private nextDrawn: Int32Array;
  private drawnCount = 0;
  private readonly seen: Uint32Array;
  private stamp = 0;
  /** The last update's runs to draw and their opacities (the first `update` returned of each; grown, never shrunk). */
  private outRuns: Int32Array;
  private outOpacities: Float64Array;
  private outCount = 0;
  /** Fades the last update finished early for want of room. */
  cutShort = 0;

  /** For the world's runs in `table`; `fadeMs` 0 switches at once. */
  constructor(
    private readonly table: Pick<WorldRunTable, 'leaves' | 'levels' | 'runCounts'>,
    private readonly fadeMs: number,
  ) {
    const { leaves } = table;
    this.shown = new Int32Array(leaves).fill(-1);
    this.fadeAt = new Int32Array(leaves).fill(-1);
    this.seen = new Uint32Array(leaves);
    this.drawnLeaves = new Int32Array(leaves);
    this.nextDrawn = new Int32Array(leaves);
    this.outRuns = new Int32Array(Math.max(16, leaves));
    this.outOpacities = new Float64Array(this.outRuns.length);
  }

  /** Whether a fade is under way: the picture changes with time alone, and the next frame must update. */
  get active(): boolean {
    return this.fading.length > 0;
  }

  /** The last update's runs to draw, by number: the first `update` returned of them. */
  get runs(): Int32Array {
    return this.outRuns;
  }

  /** The opacity each of `runs` is drawn at (1: as its splats are). */
  get opacities(): Float64Array {
    return this.outOpacities;
  }

  /**
   * The runs to draw at time `now` (ms) for the choice's `draw` list, into
   * `runs` and `opacities`; returns how many. Each of the choice's runs at
   * its fade's opacity, then the outgoing runs of fades under way. The
   * outgoing runs are drawn beside the choice's, so they take at most
   * `room` splats more; a fade whose outgoing run finds no room ends at
   * once. Allocates almost nothing once the lists have grown (about 350
   * bytes a frame in tests/unit/world-fades.test.ts).
   */
  update(draw: readonly number[], now: number, room: number): number {
    const stamp = ++this.stamp;
    const levels = this.table.levels;
    this.outCount = 0;
    this.cutShort = 0;
    const next = this.nextDrawn;
    let nextCount = 0;
    for (let i = 0; i < draw.length; i++) {
      const run = draw[i]!;
      const leaf = runLeaf(run, levels);
      // A leaf drawn twice in one list is listed once.
      if (this.seen[leaf] !== stamp) next[nextCount++] = leaf;
      this.seen[leaf] = stamp;
      this.follow(leaf, run, now);
      const at = this.fadeAt[leaf]!;
      this.push(run, at >= 0 ? this.incomingOpacity(this.fading[at]!, now) : 1);
    }
    // Leaves drawn before and not now go at once.
    const before = this.drawnLeaves;
    for (let i = 0; i < this.drawnCount; i++) {
      const leaf = before[i]!;
      if (this.seen[leaf] === stamp) continue;
      this.shown[leaf] = -1;
      this.end(leaf);
    }
    this.nextDrawn = before;
    this.drawnLeaves = next;
    this.drawnCount = nextCount;
    const counts = this.table.runCounts;
    for (let f = 0; f < this.fading.length; f++) {
      const fade = this.fading[f]!;
      if (fade.outgoing < 0) continue;
      if (counts[fade.outgoing]! <= room) {
        room -= counts[fade.outgoing]!;
        this.push(fade.outgoing, this.outgoingOpacity(fade, now));
        continue;
      }
      // No room for the outgoing run: the incoming one is drawn whole from now.
      for (let k = 0; k < this.outCount; k++) if (this.outRuns[k] === fade.incoming) this.outOpacities[k] = 1;
      this.end(fade.leaf);
      this.cutShort++;
      f--;
    }
    return this.outCount;
  }

  /** Starts, turns or ends the leaf's fade for this update's run. */
  private follow(leaf: number, run: number, now: number): void {
    const at = this.fadeAt[leaf]!;
    if (at >= 0) {
      const fade = this.fading[at]!;
      const progress = this.progress(fade, now);
      if (run === fade.incoming) {
        if (progress >= 1) this.end(leaf);
        return;
      }
      if (run === fade.outgoing) {
        // Back to where it came from: the same picture, the fade run backwards from where it is.
        fade.outgoing = fade.incoming;
        fade.incoming = run;
        fade.start = now - (1 - progress) * this.fadeMs;
      } else {
        // A third run takes the place of the one of the two drawn less, which goes at once, at its
        // opacity: the other keeps its own, and the two sum to 1 again.
        const kept = Math.max(progress, 1 - progress);
        fade.outgoing = progress < 0.5 ? fade.outgoing : fade.incoming;
        fade.incoming = run;
        fade.start = now - (1 - kept) * this.fadeMs;
      }
      this.shown[leaf] = run;
      return;
    }
    const before = this.shown[leaf]!;
    this.shown[leaf] = run;
    if (before === run || this.fadeMs <= 0) return;
    // From what it showed; a leaf not drawn at the last update (before is −1) fades in from nothing.
    const started = this.spare.pop() ?? { leaf, incoming: run, outgoing: -1, start: now };
    started.leaf = leaf;
    started.incoming = run;
    started.outgoing = before;
    started.start = now;
    this.fadeAt[leaf] = this.fading.length;
    this.fading.push(started);
  }

  /** Ends the leaf's fade, if it has one (its object kept for the next). */
  private end(leaf: number): void {
    const at = this.fadeAt[leaf]!;
    if (at < 0) return;
    const fade = this.fading[at]!;
    this.fadeAt[leaf] = -1;
    // The last fade takes its place.
    const last = this.fading.pop()!;
    if (last !== fade) {
      this.fading[at] = last;
      this.fadeAt[last.leaf] = at;
    }
    this.spare.push(fade);
  }

  private progress(fade: Fade, now: number): number {
    return this.fadeMs > 0 ? Math.min(1, Math.max(0, (now - fade.start) / this.fadeMs)) : 1;
  }

  private incomingOpacity(fade: Fade, now: number): number {
    return this.progress(fade, now);
  }

  private outgoingOpacity(fade: Fade, now: number): number {
    return 1 - this.progress(fade, now);
  }

  private push(run: number, opacity: number): void {
    if (this.outCount === this.outRuns.length) {
      const runs = new Int32Array(2 * this.outRuns.length);
      const opacities = new Float64Array(runs.length);
      runs.set(this.outRuns);
      opacities.set(this.outOpacities);
      this.outRuns = runs;
      this.outOpacities = opacities;
    }
    this.outRuns[this.outCount] = run;
    this.outOpacities[this.outCount] = opacity;
    this.outCount++;
  }
}
