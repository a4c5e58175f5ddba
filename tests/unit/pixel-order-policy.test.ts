/** The order's auto (src/app/frame/pixel-order-policy.ts), after the renderer's choice, with injected GPU frame times. */
import { describe, expect, test } from 'vitest';
import { PER_PIXEL_MAX_COST, PixelOrderPolicy, type MeasuredOrderFrame, type SplatOrderChoice } from '../../src/app/frame/pixel-order-policy';
import { AUTO_TIMED_FRAMES, AUTO_WARMUP_FRAMES, type RendererChoice, type RendererScene } from '../../src/app/frame/renderer-policy';
import type { OrderSetting, SplatOrder } from '../../src/render/frame-renderer';

const SCENE: RendererScene = { sceneId: 1, width: 800, height: 600, timed: true };
const TILES_CHOSEN: RendererChoice = { renderer: 'tiles', state: 'chosen', medianMs: { quads: 9, tiles: 1 } };

interface Drawn { order: SplatOrder; state: SplatOrderChoice['state'] }

/** Frames of `setting` drawn one after another under `renderer`, each timed at once by `timeOf`. */
function drawFrames(
  policy: PixelOrderPolicy,
  frames: number,
  timeOf: (frame: MeasuredOrderFrame) => number | null,
  options: { setting?: OrderSetting; renderer?: RendererChoice; scene?: RendererScene; ready?: boolean } = {},
): Drawn[] {
  const { setting = 'auto', renderer = TILES_CHOSEN, scene = SCENE, ready = true } = options;
  const drawn: Drawn[] = [];
  for (let k = 0; k < frames; k++) {
    const choice = policy.resolve(setting, renderer, scene, ready);
    drawn.push({ order: choice.order, state: choice.state });
    const frame = policy.describeFrame({ way: 'centre-depth', run: 0, draw: 0 });
    policy.record(frame, timeOf(frame));
  }
  return drawn;
}

/** Frame times of a device where the per-pixel frame takes `ratio` × the centre-depth one's 2 ms. */
const costing = (ratio: number) => (frame: MeasuredOrderFrame) => (frame.way === 'per-pixel' ? 2 * ratio : 2);

describe("the order's auto", () => {
  test.each([
    ['per-pixel', PER_PIXEL_MAX_COST - 0.01],
    ['per-pixel', 1.0],
    ['centre-depth', PER_PIXEL_MAX_COST + 0.01],
    ['centre-depth', 2.3],
  ] as const)('keeps %s where the per-pixel frame takes %d× the centre-depth one, drawing both in turn while it measures', (kept, ratio) => {
    const policy = new PixelOrderPolicy();
    const drawn = drawFrames(policy, 40, costing(ratio));
    const measuring = drawn.filter((d) => d.state === 'measuring');
    expect(measuring.length).toBe(2 * (AUTO_WARMUP_FRAMES + AUTO_TIMED_FRAMES));
    expect(new Set(measuring.map((d) => d.order))).toEqual(new Set(['centre-depth', 'per-pixel']));
    expect(drawn.slice(measuring.length).every((d) => d.order === kept && d.state === 'chosen')).toBe(true);
    expect(policy.choice.medianMs).toEqual({ 'centre-depth': 2, 'per-pixel': 2 * ratio });
  });

  test('an order set draws every frame, and is no measure', () => {
    const policy = new PixelOrderPolicy();
    for (const setting of ['centre-depth', 'per-pixel'] as const) {
      expect(drawFrames(policy, 4, () => 1, { setting }).every((d) => d.order === setting && d.state === 'set')).toBe(true);
    }
    expect(policy.choice.medianMs).toEqual({ 'centre-depth': null, 'per-pixel': null });
  });

  test('draws centre depths without measuring while the renderer measures, where quads or a set renderer draw, and until the per-pixel raster is made', () => {
    const policy = new PixelOrderPolicy();
    const cases: [RendererChoice, boolean, SplatOrderChoice['state']][] = [
      [{ ...TILES_CHOSEN, renderer: 'quads', state: 'measuring' }, true, 'waiting'],
      [{ ...TILES_CHOSEN, state: 'measuring' }, true, 'waiting'],
      [{ ...TILES_CHOSEN, renderer: 'quads' }, true, 'quads'],
      [{ ...TILES_CHOSEN, renderer: 'quads', state: 'untimed' }, true, 'quads'],
      [{ ...TILES_CHOSEN, state: 'set' }, true, 'renderer-set'],
      [TILES_CHOSEN, false, 'waiting'],
    ];
    for (const [renderer, ready, state] of cases) {
      expect(drawFrames(policy, 3, () => 1, { renderer, ready })).toEqual(Array(3).fill({ order: 'centre-depth', state }));
    }
    // Then tiles chosen and the raster made: the measure starts, from its first frame.
    const drawn = drawFrames(policy, 2, costing(1));
    expect(drawn.map((d) => d.state)).toEqual(['measuring', 'measuring']);
    expect(drawn.map((d) => d.order)).toEqual(['centre-depth', 'per-pixel']);
  });

  test('measures again on a new scene and a new size; without a GPU timer it keeps centre depths and says so', () => {
    const policy = new PixelOrderPolicy();
    drawFrames(policy, 40, costing(1.05));
    expect(policy.choice.order).toBe('per-pixel');
    const next = { ...SCENE, sceneId: 2 };
    expect(policy.resolve('auto', TILES_CHOSEN, next, true).state).toBe('measuring');
    drawFrames(policy, 40, costing(1.5), { scene: next });
    expect(policy.choice).toMatchObject({ order: 'centre-depth', state: 'chosen' });
    drawFrames(policy, 40, costing(1.02), { scene: { ...next, width: 1920 } });
    expect(policy.choice).toMatchObject({ order: 'per-pixel', state: 'chosen' });

    const untimed = new PixelOrderPolicy();
    expect(drawFrames(untimed, 5, () => null, { scene: { ...SCENE, timed: false } })).toEqual(Array(5).fill({ order: 'centre-depth', state: 'untimed' }));
  });
});
