/**
 * Which order a frame's pixels blend in (src/render/frame-renderer.ts):
 * the one the setting names, or for 'auto' the per-pixel order where it
 * costs little on this device. Pure (no GPU, no DOM): the frame engine
 * asks it every frame after the renderer's choice, and hands it the GPU
 * frame time of the frames it could time; tests/unit/pixel-order-policy
 * .test.ts holds it with injected times.
 *
 * Auto measures only where the renderer's auto measure chose tiles (the
 * per-pixel order is the tile renderer's): it then draws both orders in
 * turn (src/app/frame/timed-turns.ts) and keeps the per-pixel order when
 * its median frame takes at most PER_PIXEL_MAX_COST × the centre-depth
 * one. What is timed is the whole frame (project, sort and render): the
 * per-pixel order's ray depths are written by the projector and its
 * queue runs in the raster. Where the renderer is set, nothing is
 * measured and auto draws centre depths: a renderer named by a link or a
 * setting is a picture asked for, not a device to be measured.
 */
import type { SplatOrder, OrderSetting } from '../../render/frame-renderer';
import type { RendererChoice } from './renderer-policy';
import { TimedTurns, type MeasuredScene, type TimedFrame } from './timed-turns';

/**
 * The most the per-pixel frame may cost, against the centre-depth frame,
 * to be auto's choice: what a viewer pays for no popping without noticing
 * it in its frame rate. On an H200 at 1920×1080 it costs 1.90–2.77× (queue
 * 16; docs/benchmarks.md), so auto draws centre depths there.
 */
export const PER_PIXEL_MAX_COST = 1.1;

/** 'set', or auto's state: see SplatOrderChoice in src/lib/public-types.ts. */
export type OrderChoiceState = 'set' | 'waiting' | 'quads' | 'renderer-set' | 'measuring' | 'chosen' | 'untimed';

export interface SplatOrderChoice {
  /** The order drawing this frame. */
  order: SplatOrder;
  state: OrderChoiceState;
  /** Auto's median GPU frame time of each order, ms: behind the choice once chosen, so far while measuring; null: none yet. */
  medianMs: Record<SplatOrder, number | null>;
}

/** Which frame a time belongs to: its order, and its place in auto's measure (run −1: not part of one). */
export type MeasuredOrderFrame = TimedFrame<SplatOrder>;

export function createSplatOrderChoice(): SplatOrderChoice {
  return { order: 'centre-depth', state: 'set', medianMs: { 'centre-depth': null, 'per-pixel': null } };
}

export class PixelOrderPolicy {
  /** Reused every frame: what resolve returns. */
  readonly choice: SplatOrderChoice;
  private readonly turns = new TimedTurns<SplatOrder>(['centre-depth', 'per-pixel'], 'centre-depth', (ms) =>
    ms['per-pixel'] <= PER_PIXEL_MAX_COST * ms['centre-depth'] ? 'per-pixel' : 'centre-depth',
  );

  constructor() {
    this.choice = { order: 'centre-depth', state: 'set', medianMs: this.turns.medianMs };
  }

  /**
   * The order of the next frame, and why; counts that frame as drawn.
   * `renderer`: the renderer's choice for this frame; `perPixelReady`: the
   * tile renderer's per-pixel raster is made.
   */
  resolve(setting: OrderSetting, renderer: Readonly<RendererChoice>, scene: Readonly<MeasuredScene>, perPixelReady: boolean): Readonly<SplatOrderChoice> {
    const choice = this.choice;
    if (setting !== 'auto') {
      choice.order = setting;
      choice.state = 'set';
      this.turns.drawnOutside(setting);
      return choice;
    }
    const unmeasured = unmeasuredBecause(renderer, perPixelReady);
    if (unmeasured !== null) {
      // Measured from the first frame both orders can draw under a chosen tile renderer: a new run then.
      choice.order = 'centre-depth';
      choice.state = unmeasured;
      this.turns.drawnWaiting(choice.order);
    } else {
      choice.order = this.turns.drawnMeasuring(scene);
      choice.state = this.turns.state;
    }
    return choice;
  }

  /** Copies into `out` which frame the last resolve drew: call it when that frame's time is asked for. */
  describeFrame(out: MeasuredOrderFrame): MeasuredOrderFrame {
    return this.turns.describeFrame(out);
  }

  /** The GPU time of `frame`'s project, sort and render (null: it was not timed). */
  record(frame: Readonly<MeasuredOrderFrame>, frameMs: number | null): void {
    this.turns.record(frame, frameMs);
  }
}

/** Why auto measures nothing this frame (null: it can measure): the renderer set, being measured, or quads; the per-pixel raster not made. */
function unmeasuredBecause(renderer: Readonly<RendererChoice>, perPixelReady: boolean): OrderChoiceState | null {
  if (renderer.state === 'set') return 'renderer-set';
  if (renderer.state === 'measuring') return 'waiting';
  if (renderer.renderer !== 'tiles') return 'quads';
  return perPixelReady ? null : 'waiting';
}
