/** The renderer choice and auto's measure (src/app/frame/renderer-policy.ts), with injected GPU times. */
import { describe, expect, test } from 'vitest';
import {
  AUTO_DECISIVE_RATIO, AUTO_MAX_FRAMES, AUTO_TIMED_FRAMES, AUTO_WARMUP_FRAMES, RendererPolicy, median, type MeasuredFrame, type RendererChoice, type RendererScene,
} from '../../src/app/frame/renderer-policy';
import type { FrameRenderer, RendererSetting } from '../../src/render/frame-renderer';

const SCENE: RendererScene = { sceneId: 1, width: 800, height: 600, timed: true };

interface Drawn { renderer: FrameRenderer; state: RendererChoice['state']; frame: MeasuredFrame }

/**
 * Frames of `setting` drawn one after another, every `timeEvery`-th frame
 * timed, its time read back `lag` frames later (as the viewer core reads
 * them: one read at a time, the frames meanwhile untimed); `timeOf` gives
 * a frame's render time.
 */
function drawFrames(
  policy: RendererPolicy,
  frames: number,
  timeOf: (frame: MeasuredFrame) => number | null,
  options: { setting?: RendererSetting; scene?: RendererScene; lag?: number } = {},
): Drawn[] {
  const { setting = 'auto', scene = SCENE, lag = 0 } = options;
  const drawn: Drawn[] = [];
  let pending: { frame: MeasuredFrame; due: number } | null = null;
  for (let k = 0; k < frames; k++) {
    const choice = policy.resolve(setting, scene);
    const frame = policy.describeFrame({ way: 'quads', run: 0, draw: 0 });
    drawn.push({ renderer: choice.renderer, state: choice.state, frame });
    if (!pending) pending = { frame, due: k + lag };
    if (pending.due <= k) {
      policy.record(pending.frame, timeOf(pending.frame));
      pending = null;
    }
  }
  return drawn;
}

/** Render times of a device where tiles take `tiles` ms and quads `quads` ms; warm-up draws take 100 ms. */
const device = (quads: number, tiles: number) => (frame: MeasuredFrame) =>
  frame.draw < AUTO_WARMUP_FRAMES ? 100 : frame.way === 'tiles' ? tiles : quads;

describe('the renderer choice', () => {
  test('a renderer set draws every frame, and is no measure', () => {
    const policy = new RendererPolicy();
    for (const setting of ['quads', 'tiles'] as const) {
      const drawn = drawFrames(policy, 5, () => 1, { setting });
      expect(drawn.every((d) => d.renderer === setting && d.state === 'set' && d.frame.run === -1)).toBe(true);
    }
    expect(policy.choice.medianMs).toEqual({ quads: null, tiles: null });
  });

  test.each([
    ['tiles', 6.3, 2.1],
    ['quads', 1.5, 4.0],
  ] as const)('auto keeps the faster (%s: quads %d ms, tiles %d ms), drawing both in turn while it measures', (faster, quadsMs, tilesMs) => {
    const policy = new RendererPolicy();
    const drawn = drawFrames(policy, 60, device(quadsMs, tilesMs));
    const measuring = drawn.filter((d) => d.state === 'measuring');
    // Every frame timed at once: the warm-up and the timed draws of each, alternating.
    expect(measuring.length).toBe(2 * (AUTO_WARMUP_FRAMES + AUTO_TIMED_FRAMES));
    expect(measuring.slice(0, 4).map((d) => d.renderer)).toEqual(['quads', 'tiles', 'quads', 'tiles']);
    expect(drawn.slice(measuring.length).every((d) => d.renderer === faster && d.state === 'chosen')).toBe(true);
    expect(policy.choice.medianMs).toEqual({ quads: quadsMs, tiles: tilesMs });
  });

  test('the warm-up draws of each renderer are not counted', () => {
    const policy = new RendererPolicy();
    // Each draw a millisecond slower than the one before: the medians say which draws were counted.
    drawFrames(policy, 40, (f) => (f.way === 'tiles' ? 1 : 5) + f.draw);
    const middle = AUTO_WARMUP_FRAMES + (AUTO_TIMED_FRAMES - 1) / 2;
    expect(policy.choice).toMatchObject({ renderer: 'tiles', state: 'chosen', medianMs: { quads: 5 + middle, tiles: 1 + middle } });
  });

  test('keeps the median: one outlier of each does not decide', () => {
    const policy = new RendererPolicy();
    let tilesTimed = 0;
    const timeOf = (f: MeasuredFrame) => {
      if (f.draw < AUTO_WARMUP_FRAMES) return 1;
      if (f.way === 'quads') return 4;
      return ++tilesTimed === 1 ? 50 : 2; // one hitch in tiles' times
    };
    drawFrames(policy, 40, timeOf);
    expect(policy.choice).toMatchObject({ renderer: 'tiles', medianMs: { quads: 4, tiles: 2 } });
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  test('with only every few frames timed, and times read frames late, both renderers are still timed', () => {
    const policy = new RendererPolicy();
    // A read pending over the next frame: frames 0, 2, 4, ... are timed; alternating blindly would time quads alone.
    const drawn = drawFrames(policy, AUTO_MAX_FRAMES, device(5, 2), { lag: 1 });
    expect(policy.choice).toMatchObject({ renderer: 'tiles', state: 'chosen', medianMs: { quads: 5, tiles: 2 } });
    expect(drawn.findIndex((d) => d.state === 'chosen')).toBeLessThan(AUTO_MAX_FRAMES / 2);
  });

  test('measures again on a new scene and on a new frame size, and times of the run before count for nothing', () => {
    const policy = new RendererPolicy();
    drawFrames(policy, 40, device(6, 2));
    expect(policy.choice.renderer).toBe('tiles');

    // A frame of the first run whose time arrives only after the scene changed.
    const late = policy.describeFrame({ way: 'quads', run: 0, draw: 0 });
    const secondScene = { ...SCENE, sceneId: 2 };
    expect(policy.resolve('auto', secondScene)).toMatchObject({ state: 'measuring', medianMs: { quads: null, tiles: null } });
    policy.record({ ...late, draw: AUTO_WARMUP_FRAMES }, 0.001);
    expect(policy.choice.medianMs).toEqual({ quads: null, tiles: null });
    drawFrames(policy, 40, device(1, 3), { scene: secondScene });
    expect(policy.choice).toMatchObject({ renderer: 'quads', state: 'chosen', medianMs: { quads: 1, tiles: 3 } });

    const resized = { ...secondScene, width: 1920, height: 1080 };
    expect(policy.resolve('auto', resized).state).toBe('measuring');
    drawFrames(policy, 40, device(9, 4), { scene: resized });
    expect(policy.choice).toMatchObject({ renderer: 'tiles', state: 'chosen', medianMs: { quads: 9, tiles: 4 } });

    // Same scene, same size: the choice stands, also across frames with a renderer set in between.
    drawFrames(policy, 3, () => 100, { setting: 'quads', scene: resized });
    expect(policy.resolve('auto', resized)).toMatchObject({ renderer: 'tiles', state: 'chosen' });
  });

  test('without a GPU timer, auto keeps quads and says it is untimed', () => {
    const policy = new RendererPolicy();
    const drawn = drawFrames(policy, 10, () => null, { scene: { ...SCENE, timed: false } });
    expect(drawn.every((d) => d.renderer === 'quads' && d.state === 'untimed' && d.frame.run === -1)).toBe(true);
    expect(policy.choice.medianMs).toEqual({ quads: null, tiles: null });
  });

  test('a timer that never answers ends the measure after AUTO_MAX_FRAMES draws, with quads', () => {
    const policy = new RendererPolicy();
    const drawn = drawFrames(policy, AUTO_MAX_FRAMES + 5, () => null);
    expect(drawn.filter((d) => d.state === 'measuring').length).toBe(AUTO_MAX_FRAMES);
    expect(drawn.at(-1)).toMatchObject({ renderer: 'quads', state: 'untimed' });
  });
});

test('until the tile renderer can draw, quads draw and auto measures nothing; its measure starts with the first frame both can draw', () => {
  const policy = new RendererPolicy();
  const preparing = { ...SCENE, tilesReady: false };
  const early = drawFrames(policy, 10, () => 1, { scene: preparing });
  expect(early.every((d) => d.renderer === 'quads' && d.state === 'measuring' && d.frame.run === -1)).toBe(true);
  expect(drawFrames(policy, 1, () => 1, { setting: 'tiles', scene: preparing })[0]).toMatchObject({ renderer: 'quads', state: 'set' });
  // Ready: both drawn in turn from the first frame, warm-up included, then a choice (tiles at 1 ms, quads at 4).
  const drawn = drawFrames(policy, 2 * (AUTO_WARMUP_FRAMES + AUTO_TIMED_FRAMES) + 1, (f) => (f.way === 'tiles' ? 1 : 4));
  expect(drawn.slice(0, 4).map((d) => d.renderer)).toEqual(['quads', 'tiles', 'quads', 'tiles']);
  expect(drawn.at(-1)).toMatchObject({ renderer: 'tiles', state: 'chosen' });
});

test(`renderers whose first times are ${AUTO_DECISIVE_RATIO}× apart decide at once, warm-up draws included (a CPU adapter drawing tiles)`, () => {
  const policy = new RendererPolicy();
  // Times read one frame late, as in the page.
  const drawn = drawFrames(policy, 12, (f) => (f.way === 'tiles' ? 4760 : 170), { lag: 1 });
  const decided = drawn.findIndex((d) => d.state === 'chosen');
  expect(decided).toBeGreaterThan(0);
  expect(drawn.slice(0, decided).filter((d) => d.renderer === 'tiles').length).toBeLessThanOrEqual(3);
  expect(policy.choice).toMatchObject({ renderer: 'quads', state: 'chosen', medianMs: { quads: 170, tiles: 4760 } });
  // Just under the ratio: the full measure.
  const close = new RendererPolicy();
  const all = drawFrames(close, 40, (f) => (f.way === 'tiles' ? 1 : AUTO_DECISIVE_RATIO * 0.9));
  expect(all.filter((d) => d.state === 'measuring').length).toBe(2 * (AUTO_WARMUP_FRAMES + AUTO_TIMED_FRAMES));
});
