/**
 * Which renderer draws a frame (src/render/frame-renderer.ts): the one the
 * setting names, or for 'auto' the faster of the two on this device, scene
 * and frame size. Pure (no GPU, no DOM): the viewer core asks it every
 * frame and hands it the GPU time of the frames it could time;
 * tests/unit/renderer-policy.test.ts holds it with injected times.
 *
 * Auto, on a new scene and whenever the frame's size changes, draws both
 * renderers in turn and keeps the one with the lower median time
 * (src/app/frame/timed-turns.ts: warm-up, timed frames, a decisive gap).
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
import type { FrameRenderer, RendererSetting } from '../../render/frame-renderer';
import { TimedTurns, type MeasuredScene, type TimedFrame } from './timed-turns';

export { AUTO_DECISIVE_RATIO, AUTO_MAX_FRAMES, AUTO_TIMED_FRAMES, AUTO_WARMUP_FRAMES, median } from './timed-turns';

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
export type MeasuredFrame = TimedFrame<FrameRenderer>;

/** What auto's measure depends on: a change of any starts it over. */
export interface RendererScene extends MeasuredScene {
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
  readonly choice: RendererChoice;
  private readonly turns = new TimedTurns<FrameRenderer>(['quads', 'tiles'], 'quads', (ms) => (ms.tiles < ms.quads ? 'tiles' : 'quads'));

  constructor() {
    this.choice = { renderer: 'quads', state: 'set', medianMs: this.turns.medianMs };
  }

  /** The renderer that draws the next frame, and why; counts that frame as drawn. */
  resolve(setting: RendererSetting, scene: Readonly<RendererScene>): Readonly<RendererChoice> {
    const choice = this.choice;
    if (setting !== 'auto') {
      choice.renderer = scene.tilesReady === false ? 'quads' : setting;
      choice.state = 'set';
      this.turns.drawnOutside(choice.renderer);
    } else if (scene.tilesReady === false) {
      // Measured from the first frame the tile renderer can draw: a new run then.
      choice.renderer = 'quads';
      choice.state = 'measuring';
      this.turns.drawnWaiting(choice.renderer);
    } else {
      choice.renderer = this.turns.drawnMeasuring(scene);
      choice.state = this.turns.state;
    }
    return choice;
  }

  /** Copies into `out` which frame the last resolve drew: call it when that frame's time is asked for. */
  describeFrame(out: MeasuredFrame): MeasuredFrame {
    return this.turns.describeFrame(out);
  }

  /** The GPU render time of `frame` (null: it was not timed). A frame outside the measure, of an earlier run or a warm-up draw counts for nothing. */
  record(frame: Readonly<MeasuredFrame>, renderMs: number | null): void {
    this.turns.record(frame, renderMs);
  }
}
