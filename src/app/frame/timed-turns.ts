/**
 * A measure of two ways of drawing the same frame, each drawn in turn and
 * timed on the GPU, behind a choice between them: the renderer (quads or
 * tiles, src/app/frame/renderer-policy.ts) and the order (centre depth or
 * per pixel, src/app/frame/pixel-order-policy.ts). Pure (no GPU, no DOM);
 * the policies' unit tests hold it with injected times.
 *
 * The first AUTO_WARMUP_FRAMES draws of each are warm-up and not counted,
 * then it waits for AUTO_TIMED_FRAMES timed frames of each and hands their
 * medians to the caller's rule. Not every frame is timed (a read of the GPU
 * timer is pending over the next frames), so a time arrives with the frame
 * it belongs to (`describe`), and the turn goes to the way with fewer
 * times so far: two ways alternating frame by frame while only every
 * other frame is timed would otherwise time just one.
 */

/**
 * Draws of each way not counted after a restart: the first draw at a new
 * size grows the renderer's size-dependent buffers (the tile renderer's
 * pair and range buffers, the float target) and meets cold caches; one
 * more frame is margin.
 */
export const AUTO_WARMUP_FRAMES = 2;
/**
 * A first time of each way this many times apart decides at once, warm-up
 * draws included: a GPU timestamp spans the GPU's work only (the pipelines
 * are made before they first draw), and cold caches or clocks do not make
 * a frame ten times slower. Measured: on an H200 the tile frame is 5–40×
 * faster than the quad frame at 1920×1080; on SwiftShader (a CPU) 28×
 * slower at 800×500 (4.76 s against 0.17 s), where five timed frames of
 * each would hold the page at a frame every few seconds for a minute.
 */
export const AUTO_DECISIVE_RATIO = 10;
/** Timed frames of each way behind a choice: the median of five ignores up to two outliers (a hitch of the compositor, a clock change). */
export const AUTO_TIMED_FRAMES = 5;
/**
 * Draws after which a measure that still lacks times ends: it chooses by
 * the times it has, or, without a time of each, keeps the fallback and
 * says 'untimed' (a timer that never answers, a way whose time is never
 * reported). At 60 frames a second two seconds, over three times what the
 * measure needs when every third frame is timed.
 */
export const AUTO_MAX_FRAMES = 120;

/** Which frame a time belongs to: its way, and its place in a measure (run −1: not part of one). */
export interface TimedFrame<W extends string> {
  way: W;
  run: number;
  /** 0 for the way's first draw in the run. */
  draw: number;
}

/** What a measure depends on: a change of any starts it over. */
export interface MeasuredScene {
  /** Changes with every scene shown. */
  sceneId: number;
  width: number;
  height: number;
  /** The device has a GPU timer. */
  timed: boolean;
}

/** 'measuring' (both drawn in turn), 'chosen' (the rule's choice kept), 'untimed' (no times came: the fallback kept). */
export type TurnsState = 'measuring' | 'chosen' | 'untimed';

export class TimedTurns<W extends string> {
  state: TurnsState = 'measuring';
  /** The way kept once the measure ends (the fallback while it runs). */
  chosen: W;
  /** Each way's median GPU time, ms: behind the choice once chosen, so far while measuring; null: none yet. */
  readonly medianMs: Record<W, number | null>;
  /** The measure run: each restart makes times of earlier frames stale. */
  private run = 0;
  private framesInRun = 0;
  private readonly draws: Record<W, number>;
  private readonly times: Record<W, number[]>;
  /** Each way's first time in this run, warm-up included (what a decisive gap is judged on). */
  private readonly first: Record<W, number | null>;
  /** The scene and size measured (sceneId NaN: none; the next frame measured starts a run). */
  private sceneId = Number.NaN;
  private width = 0;
  private height = 0;
  /** The frame drawn last: what its time will belong to. */
  private readonly last: TimedFrame<W>;

  /**
   * `ways`: the two, the first drawn first; `fallback`: kept without a
   * time of each; `rule`: the way to keep by the two medians.
   */
  constructor(
    private readonly ways: readonly [W, W],
    private readonly fallback: W,
    private readonly rule: (medianMs: Readonly<Record<W, number>>) => W,
  ) {
    this.chosen = fallback;
    this.last = { way: fallback, run: -1, draw: 0 };
    const each = <T>(value: () => T) => Object.fromEntries(ways.map((w) => [w, value()])) as Record<W, T>;
    this.medianMs = each(() => null);
    this.draws = each(() => 0);
    this.times = each((): number[] => []);
    this.first = each(() => null);
  }

  /** A frame outside the measure draws `way` (a setting names it): its time counts for nothing. */
  drawnOutside(way: W): void {
    this.last.way = way;
    this.last.run = -1;
  }

  /** A frame that cannot be measured draws `way` (what the measure needs is not there yet): the next frame that can starts the measure over. */
  drawnWaiting(way: W): void {
    this.drawnOutside(way);
    this.sceneId = Number.NaN;
  }

  /**
   * The way of the next frame of the measure of `scene` (started over on a
   * new scene or size; ended as untimed without a GPU timer), counted as
   * drawn; the way kept once it has ended.
   */
  drawnMeasuring(scene: Readonly<MeasuredScene>): W {
    if (scene.sceneId !== this.sceneId || scene.width !== this.width || scene.height !== this.height) {
      this.sceneId = scene.sceneId;
      this.width = scene.width;
      this.height = scene.height;
      this.restart();
    }
    if (!scene.timed && this.state === 'measuring') this.state = 'untimed';
    return this.turn(this.last);
  }

  /** Copies into `out` which frame was drawn last: call it when that frame's time is asked for. */
  describeFrame(out: TimedFrame<W>): TimedFrame<W> {
    out.way = this.last.way;
    out.run = this.last.run;
    out.draw = this.last.draw;
    return out;
  }

  /** Starts the measure over: times of frames drawn before count for nothing. */
  private restart(): void {
    this.run++;
    this.state = 'measuring';
    this.chosen = this.fallback;
    this.framesInRun = 0;
    for (const w of this.ways) {
      this.draws[w] = 0;
      this.first[w] = null;
      this.times[w].length = 0;
      this.medianMs[w] = null;
    }
  }

  /**
   * The way that draws the next frame of the measure, counted as drawn
   * into `out` (what its time will belong to); a measure past
   * AUTO_MAX_FRAMES ends first; once ended, the way kept.
   */
  private turn(out: TimedFrame<W>): W {
    if (this.framesInRun >= AUTO_MAX_FRAMES) this.finish();
    if (this.state !== 'measuring') {
      out.run = -1;
      return (out.way = this.chosen);
    }
    const way = this.nextTurn();
    out.way = way;
    out.run = this.run;
    out.draw = this.draws[way]++;
    this.framesInRun++;
    return way;
  }

  /** The GPU time of `frame` (null: it was not timed). A frame outside the measure, of an earlier run or a warm-up draw counts for nothing. */
  record(frame: Readonly<TimedFrame<W>>, ms: number | null): void {
    if (ms === null || !Number.isFinite(ms) || frame.run !== this.run || this.state !== 'measuring') return;
    this.first[frame.way] ??= ms;
    if (frame.draw < AUTO_WARMUP_FRAMES) {
      this.decideIfDecisive();
      return;
    }
    const times = this.times[frame.way];
    if (times.length >= AUTO_TIMED_FRAMES) return;
    times.push(ms);
    this.medianMs[frame.way] = median(times);
    if (this.ways.every((w) => this.times[w].length >= AUTO_TIMED_FRAMES)) this.finish();
    else this.decideIfDecisive();
  }

  /** Ends the measure when the ways' first times are AUTO_DECISIVE_RATIO apart: each keeps that time as its median. */
  private decideIfDecisive(): void {
    const [a, b] = this.ways.map((w) => this.first[w]);
    if (a == null || b == null || Math.max(a, b) < AUTO_DECISIVE_RATIO * Math.min(a, b)) return;
    for (const w of this.ways) this.medianMs[w] ??= this.first[w];
    this.finish();
  }

  /**
   * The way without a first time yet (so a decisive gap shows as soon as
   * it can); then the one with fewer times so far; then fewer draws; then
   * the first.
   */
  private nextTurn(): W {
    const { times, draws, first } = this;
    const [a, b] = this.ways;
    if ((first[a] === null) !== (first[b] === null) && draws[a] > 0 && draws[b] > 0) return first[a] === null ? a : b;
    if (times[a].length !== times[b].length) return times[a].length < times[b].length ? a : b;
    return draws[b] < draws[a] ? b : a;
  }

  /** Keeps the rule's choice, or the fallback when either way has no time. */
  private finish(): void {
    const medians = this.medianMs;
    if (this.ways.some((w) => medians[w] === null)) {
      this.state = 'untimed';
      this.chosen = this.fallback;
      return;
    }
    this.state = 'chosen';
    this.chosen = this.rule(medians as Record<W, number>);
  }
}

/** The median of a few numbers (the mean of the middle two for an even count); `values` is left as it was. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
