/**
 * Which renderer draws a frame (src/render/frame-renderer.ts): the one the
 * setting names, or for 'auto' the faster of the two on this device, scene
 * and frame size. Pure (no GPU, no DOM): the viewer core asks it every
 * frame and hands it the GPU time of the frames it could time;
 * tests/unit/renderer-policy.test.ts holds it with injected times.
 *
 * Auto, on a new scene and whenever the frame's size changes, draws both
 * renderers in turn: the first AUTO_WARMUP_FRAMES draws of each are warm-up
 * and not counted, then it waits for AUTO_TIMED_FRAMES timed frames of each
 * and keeps the one with the lower median. Not every frame is timed (a read
 * of the GPU timer is pending over the next frames), so a time arrives with
 * the frame it belongs to (`describeFrame`), and the turn goes to the
 * renderer with fewer times so far: two renderers alternating frame by
 * frame while only every other frame is timed would otherwise time just one.
 *
 * What is timed is the frame's 'render' pass: everything a renderer does
 * after the sort (for tiles: binning, the pair sort, the ranges, the raster
 * and the resolve), which is all that differs between the two.
 *
 * Without a GPU timer (no timestamp-query), auto keeps quads and says so.
 * The wall time from a submit to onSubmittedWorkDone would measure the
 * frame only when it ran alone on the queue, which a page keeping two
 * frames in flight (src/lib/frame-loop.ts) seldom has, and on a display-
 * locked loop it includes the wait for the display: a choice on it would be
 * noise shown as a measurement. Quads is the renderer every device draws.
 */
import { FRAME_RENDERERS, type FrameRenderer, type RendererSetting } from '../../render/frame-renderer';

/**
 * Draws of each renderer not counted after a restart: the first draw at a
 * new size grows the renderer's size-dependent buffers (the tile renderer's
 * pair and range buffers, the float target) and meets cold caches; one
 * more frame is margin.
 */
export const AUTO_WARMUP_FRAMES = 2;
/**
 * A first time of each renderer this many times apart decides at once,
 * warm-up draws included: a GPU timestamp spans the GPU's work only (the
 * tile renderer's pipelines are made before it first draws), and cold
 * caches or clocks do not make a frame ten times slower. Measured: on an
 * H200 the tile frame is 5–40× faster than the quad frame at 1920×1080;
 * on SwiftShader (a CPU) 28× slower at 800×500 (4.76 s against 0.17 s),
 * where five timed frames of each would hold the page at a frame every
 * few seconds for a minute.
 */
export const AUTO_DECISIVE_RATIO = 10;
/** Timed frames of each renderer behind a choice: the median of five ignores up to two outliers (a hitch of the compositor, a clock change). */
export const AUTO_TIMED_FRAMES = 5;
/**
 * Draws after which a measure that still lacks times ends: it chooses by
 * the times it has, or, without a time of each, keeps quads and says
 * 'untimed' (a timer that never answers, a renderer whose time is never
 * reported). At 60 frames a second two seconds, over three times what the
 * measure needs when every third frame is timed.
 */
export const AUTO_MAX_FRAMES = 120;

/**
 * 'set': the setting names the renderer. Auto: 'measuring' (both drawn in
 * turn), 'chosen' (the faster kept), 'untimed' (no GPU timer, or no times
 * came: quads kept).
 */
export type RendererChoiceState = 'set' | 'measuring' | 'chosen' | 'untimed';

export interface RendererChoice {
  /** The renderer drawing this frame. */
  renderer: FrameRenderer;
  state: RendererChoiceState;
  /** Auto's median GPU render time of each renderer, ms: behind the choice once chosen, so far while measuring; null: none yet. */
  medianMs: Record<FrameRenderer, number | null>;
}

/** Which frame a time belongs to: its renderer, and its place in auto's measure (run −1: not part of one). */
export interface MeasuredFrame {
  renderer: FrameRenderer;
  run: number;
  /** 0 for the renderer's first draw in the run. */
  draw: number;
}

/** What auto's measure depends on: a change of any starts it over. */
export interface RendererScene {
  /** Changes with every scene shown. */
  sceneId: number;
  width: number;
  height: number;
  /** The device has a GPU timer. */
  timed: boolean;
  /**
   * The tile renderer can draw (default true). Until it can (its shaders
   * are being made, or could not be), quads draw and nothing is measured;
   * auto's measure starts with the first frame both can draw.
   */
  tilesReady?: boolean;
}

export function createRendererChoice(): RendererChoice {
  return { renderer: 'quads', state: 'set', medianMs: { quads: null, tiles: null } };
}

export class RendererPolicy {
  /** Reused every frame: what resolve returns. */
  readonly choice: RendererChoice = createRendererChoice();
  /** The measure run: each restart makes times of earlier frames stale. */
  private run = 0;
  private sceneId = Number.NaN;
  private width = 0;
  private height = 0;
  private state: 'measuring' | 'chosen' | 'untimed' = 'measuring';
  private chosen: FrameRenderer = 'quads';
  private framesInRun = 0;
  private readonly draws: Record<FrameRenderer, number> = { quads: 0, tiles: 0 };
  private readonly times: Record<FrameRenderer, number[]> = { quads: [], tiles: [] };
  /** Each renderer's first time in this run, warm-up included (what a decisive gap is judged on). */
  private readonly first: Record<FrameRenderer, number | null> = { quads: null, tiles: null };
  private readonly last: MeasuredFrame = { renderer: 'quads', run: -1, draw: 0 };

  /** The renderer that draws the next frame, and why; counts that frame as drawn. */
  resolve(setting: RendererSetting, scene: Readonly<RendererScene>): Readonly<RendererChoice> {
    const choice = this.choice;
    if (setting !== 'auto') {
      this.last.run = -1;
      this.last.renderer = choice.renderer = scene.tilesReady === false ? 'quads' : setting;
      choice.state = 'set';
      return choice;
    }
    if (scene.tilesReady === false) {
      // Measured from the first frame the tile renderer can draw: a new run then.
      this.sceneId = Number.NaN;
      this.last.run = -1;
      this.last.renderer = choice.renderer = 'quads';
      choice.state = 'measuring';
      return choice;
    }
    if (scene.sceneId !== this.sceneId || scene.width !== this.width || scene.height !== this.height) this.restart(scene);
    if (!scene.timed && this.state === 'measuring') this.state = 'untimed';
    if (this.state === 'measuring' && this.framesInRun >= AUTO_MAX_FRAMES) this.finish();
    let renderer = this.chosen;
    this.last.run = -1;
    if (this.state === 'measuring') {
      renderer = this.nextTurn();
      this.last.run = this.run;
      this.last.draw = this.draws[renderer]++;
      this.framesInRun++;
    }
    this.last.renderer = choice.renderer = renderer;
    choice.state = this.state;
    return choice;
  }

  /** Copies into `out` which frame the last resolve drew: call it when that frame's time is asked for. */
  describeFrame(out: MeasuredFrame): MeasuredFrame {
    out.renderer = this.last.renderer;
    out.run = this.last.run;
    out.draw = this.last.draw;
    return out;
  }

  /** The GPU render time of `frame` (null: it was not timed). A frame outside the measure, of an earlier run or a warm-up draw counts for nothing. */
  record(frame: Readonly<MeasuredFrame>, renderMs: number | null): void {
    if (renderMs === null || !Number.isFinite(renderMs) || frame.run !== this.run || this.state !== 'measuring') return;
    if (frame.draw < AUTO_WARMUP_FRAMES) {
      this.first[frame.renderer] ??= renderMs;
      this.decideIfDecisive();
      return;
    }
    this.first[frame.renderer] ??= renderMs;
    const times = this.times[frame.renderer];
    if (times.length >= AUTO_TIMED_FRAMES) return;
    times.push(renderMs);
    this.choice.medianMs[frame.renderer] = median(times);
    if (FRAME_RENDERERS.every((r) => this.times[r].length >= AUTO_TIMED_FRAMES)) this.finish();
    else this.decideIfDecisive();
  }

  /** Ends the measure when the renderers' first times are AUTO_DECISIVE_RATIO apart: each keeps that time as its median. */
  private decideIfDecisive(): void {
    const { quads, tiles } = this.first;
    if (quads === null || tiles === null || Math.max(quads, tiles) < AUTO_DECISIVE_RATIO * Math.min(quads, tiles)) return;
    for (const r of FRAME_RENDERERS) this.choice.medianMs[r] ??= this.first[r];
    this.finish();
  }

  private restart(scene: Readonly<RendererScene>): void {
    this.sceneId = scene.sceneId;
    this.width = scene.width;
    this.height = scene.height;
    this.run++;
    this.state = 'measuring';
    this.chosen = 'quads';
    this.framesInRun = 0;
    for (const r of FRAME_RENDERERS) {
      this.draws[r] = 0;
      this.first[r] = null;
      this.times[r].length = 0;
      this.choice.medianMs[r] = null;
    }
  }

  /**
   * The renderer without a first time yet (so a decisive gap shows as soon
   * as it can); then the one with fewer times so far; then fewer draws;
   * then quads.
   */
  private nextTurn(): FrameRenderer {
    const { times, draws, first } = this;
    const [a, b] = FRAME_RENDERERS as readonly [FrameRenderer, FrameRenderer];
    if ((first[a] === null) !== (first[b] === null) && draws[a] > 0 && draws[b] > 0) return first[a] === null ? a : b;
    if (times[a].length !== times[b].length) return times[a].length < times[b].length ? a : b;
    return draws[b] < draws[a] ? b : a;
  }

  /** Keeps the faster by median (quads on a tie, or when either has no time). */
  private finish(): void {
    const { quads, tiles } = this.choice.medianMs;
    if (quads === null || tiles === null) {
      this.state = 'untimed';
      this.chosen = 'quads';
      return;
    }
    this.state = 'chosen';
    this.chosen = tiles < quads ? 'tiles' : 'quads';
  }
}

/** The median of a few numbers (the mean of the middle two for an even count); `values` is left as it was. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
