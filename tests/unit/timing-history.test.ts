import { describe, expect, it } from 'vitest';
import { ChartScale, PASS_COUNT, TimingHistory, formatMs, niceCeil } from '../../src/ui/timing-history';

describe('TimingHistory', () => {
  it('keeps the newest frames, oldest dropped first, and reads them by age', () => {
    const h = new TimingHistory(3);
    expect(h.stored).toBe(0);
    expect(h.get(0, 0)).toBeNaN();
    expect(h.total(0)).toBe(0);
    for (let i = 1; i <= 5; i++) h.push(i, 10 * i, NaN, NaN);
    expect(h.count).toBe(5);
    expect(h.stored).toBe(3);
    expect([0, 1, 2].map((age) => h.get(age, 0))).toEqual([5, 4, 3]);
    expect([0, 1, 2].map((age) => h.get(age, 1))).toEqual([50, 40, 30]);
    // Older than kept, or in the future: not measured.
    expect(h.get(3, 0)).toBeNaN();
    expect(h.get(-1, 0)).toBeNaN();
    expect(h.total(3)).toBe(0);
  });

  it('stores a pass that was not measured as a gap, and sums only measured passes', () => {
    const h = new TimingHistory(4);
    h.push(NaN, NaN, NaN, 2.5); // a frame with only a CPU order
    h.push(0.1, 0.2, 0.3, NaN); // a frame with a GPU reading
    h.push(-1, Infinity, NaN, NaN); // nonsense is not a time
    expect(h.get(2, 0)).toBeNaN();
    expect(h.get(2, 3)).toBe(2.5);
    expect(h.total(2)).toBe(2.5);
    expect(h.total(1)).toBeCloseTo(0.6, 12);
    for (let p = 0; p < PASS_COUNT; p++) expect(h.get(0, p)).toBeNaN();
    expect(h.total(0)).toBe(0);
  });

  it('finds the peak total among the newest frames only', () => {
    const h = new TimingHistory(5);
    expect(h.peak(5)).toBe(0);
    h.push(9, NaN, NaN, NaN);
    h.push(1, 1, NaN, NaN);
    h.push(0.5, NaN, NaN, 1);
    expect(h.peak(5)).toBe(9);
    expect(h.peak(2)).toBe(2);
    expect(h.peak(1)).toBe(1.5);
    // The 9 falls out of the ring.
    for (let i = 0; i < 3; i++) h.push(1, NaN, NaN, NaN);
    expect(h.peak(100)).toBe(2);
  });

  it('refuses a capacity that is not a positive integer', () => {
    expect(() => new TimingHistory(0)).toThrow(RangeError);
    expect(() => new TimingHistory(2.5)).toThrow(RangeError);
  });
});

describe('niceCeil and formatMs', () => {
  it('rounds up to 1, 1.5, 2, 3, 4, 5, 6, 8 × 10^k without float noise', () => {
    const cases: [number, number][] = [
      [0.05, 0.05], [0.051, 0.06], [0.3, 0.3], [0.30000000000000004, 0.3], [0.7, 0.8], [1, 1], [1.0001, 1.5],
      [7, 8], [8.01, 10], [999.9, 1000], [1000, 1000], [0.0012, 0.0015], [123456, 150000],
    ];
    for (const [x, want] of cases) expect(niceCeil(x), String(x)).toBe(want);
    expect(niceCeil(0)).toBe(0);
    expect(niceCeil(NaN)).toBe(0);
  });

  it('labels the scale in µs below a millisecond, in s from a second', () => {
    expect(formatMs(0.05)).toBe('50 µs');
    expect(formatMs(0.4)).toBe('400 µs');
    expect(formatMs(1.5)).toBe('1.5 ms');
    expect(formatMs(300)).toBe('300 ms');
    expect(formatMs(2000)).toBe('2 s');
  });
});

describe('ChartScale', () => {
  it('starts at its floor and rises at once for a new peak', () => {
    const s = new ChartScale(0.05, 2000);
    expect(s.max).toBe(0.05);
    expect(s.update(0, 0)).toBe(false);
    expect(s.update(0.01, 16)).toBe(false); // under the floor
    expect(s.update(2.2, 32)).toBe(true);
    expect(s.max).toBe(3);
    expect(s.update(2.9, 48)).toBe(false);
    expect(s.update(31, 64)).toBe(true);
    expect(s.max).toBe(40);
  });

  it('eases down slowly once the peak has gone, by time, not by frames, and settles on the new peak', () => {
    const fast = new ChartScale(0.05, 2000);
    const slow = new ChartScale(0.05, 2000);
    fast.update(40, 0);
    slow.update(40, 0);
    // One frame later the peak is 1 ms: the scale does not drop at once.
    fast.update(1, 16);
    expect(fast.max).toBe(40);
    // 120 frames a second and 10 frames a second ease alike.
    const maxima: number[] = [];
    for (let t = 8; t <= 20_000; t += 8) {
      fast.update(1, t);
      if (t % 1000 === 0) maxima.push(fast.max);
    }
    for (let t = 100; t <= 20_000; t += 100) slow.update(1, t);
    // Falls step by step (never rises) and reaches the peak's step within a few time constants.
    for (let i = 1; i < maxima.length; i++) expect(maxima[i]!).toBeLessThanOrEqual(maxima[i - 1]!);
    expect(maxima[0]).toBeGreaterThan(15); // after 1 s: still well above
    expect(fast.max).toBe(1);
    expect(slow.max).toBe(1);
  });

  it('keeps its floor when nothing is measured, and reset() returns to it', () => {
    const s = new ChartScale(0.05, 100);
    s.update(5, 0);
    for (let t = 10; t < 5000; t += 10) s.update(0, t);
    expect(s.max).toBe(0.05);
    s.update(5, 6000);
    s.reset();
    expect(s.max).toBe(0.05);
  });
});
