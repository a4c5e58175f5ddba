import { describe, expect, it } from 'vitest';
import { describeOrder, describeRenderer, formatBytes, formatDuration, formatExtent, FrameRate } from '../../src/ui/scene-facts';

describe('scene facts', () => {
  it('writes sizes in B, KB, MB and GB, three digits', () => {
    expect(formatBytes(null)).toBe('—');
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(2_253_000)).toBe('2.25 MB');
    expect(formatBytes(66_380_000)).toBe('66.4 MB');
    expect(formatBytes(2_400_000_000)).toBe('2.40 GB');
  });

  it('writes durations in ms under a second, else in s', () => {
    expect(formatDuration(840.4)).toBe('840 ms');
    expect(formatDuration(3210)).toBe('3.2 s');
    expect(formatDuration(12_345)).toBe('12.3 s');
  });

  it('says which renderer draws and, for auto, the times behind its choice', () => {
    const medianMs = { quads: 6.3, tiles: 2.1 };
    expect(describeRenderer({ renderer: 'tiles', state: 'chosen', medianMs }).text).toBe('tiles (2.1 ms vs quads 6.3 ms)');
    expect(describeRenderer({ renderer: 'quads', state: 'chosen', medianMs: { quads: 0.84, tiles: 12.5 } }).text).toBe('quads (840 µs vs tiles 12.5 ms)');
    expect(describeRenderer({ renderer: 'quads', state: 'measuring', medianMs: { quads: 1, tiles: null } }).text).toBe('measuring…');
    expect(describeRenderer({ renderer: 'tiles', state: 'set', medianMs }).text).toBe('tiles');
    const untimed = describeRenderer({ renderer: 'quads', state: 'untimed', medianMs: { quads: null, tiles: null } });
    expect(untimed.text).toBe('quads (not timed)');
    expect(untimed.why).toMatch(/no GPU times/);
  });

  it("says which order is drawn and why: as set, or auto's state and the ratio of the two frames behind its choice", () => {
    const medianMs = { 'centre-depth': 0.5, 'per-pixel': 1.06 };
    expect(describeOrder({ order: 'per-pixel', state: 'set', medianMs }).text).toBe('per pixel');
    const costly = describeOrder({ order: 'centre-depth', state: 'chosen', medianMs });
    expect(costly.text).toBe('centre depth (per pixel 2.12×)');
    expect(costly.why).toMatch(/more than 1\.10× the centre-depth frame here \(median GPU frame 1\.06 ms per pixel, 500 µs centre depth\)/);
    expect(describeOrder({ order: 'per-pixel', state: 'chosen', medianMs: { 'centre-depth': 1, 'per-pixel': 1.06 } }).text).toBe('per pixel (1.06× the centre-depth frame)');
    const none = { 'centre-depth': null, 'per-pixel': null };
    expect(describeOrder({ order: 'centre-depth', state: 'measuring', medianMs: none }).text).toBe('measuring…');
    expect(describeOrder({ order: 'centre-depth', state: 'quads', medianMs: none }).why).toMatch(/only tiles draw the per-pixel order/);
    expect(describeOrder({ order: 'centre-depth', state: 'renderer-set', medianMs: none }).why).toMatch(/renderer is set/);
    expect(describeOrder({ order: 'centre-depth', state: 'waiting', medianMs: none }).text).toBe('centre depth (auto: waiting)');
    expect(describeOrder({ order: 'centre-depth', state: 'untimed', medianMs: none }).text).toBe('centre depth (not timed)');
  });

  it('says when the pixels were blended in the per-pixel order, and nothing of the centre-depth order', () => {
    const medianMs = { quads: null, tiles: null };
    const perPixel = describeRenderer({ renderer: 'tiles', state: 'set', medianMs }, 'per-pixel');
    expect(perPixel.text).toBe('tiles, per-pixel order');
    expect(perPixel.why).toMatch(/^tiles, as set; the per-pixel order, .*depth along its ray/);
    expect(describeRenderer({ renderer: 'tiles', state: 'set', medianMs }, 'centre-depth').text).toBe('tiles');
    expect(describeRenderer({ renderer: 'quads', state: 'set', medianMs }).text).toBe('quads');
  });

  it('writes the extent of the bounds', () => {
    expect(formatExtent({ min: [-0.39, -3.11, -0.5], max: [0.31, -0.04, 0.55] })).toBe('0.700 × 3.07 × 1.05');
  });

  it('measures the frame rate over a second or more, from the frame counter', () => {
    const rate = new FrameRate();
    rate.sample(0, 100);
    expect(rate.text).toBe('—');
    rate.sample(500, 130);
    expect(rate.text).toBe('—');
    rate.sample(1000, 160);
    expect(rate.text).toBe('60');
    rate.sample(3000, 163);
    expect(rate.text).toBe('1.5');
  });
});
