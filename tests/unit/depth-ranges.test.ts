import { describe, expect, it } from 'vitest';
import { rangesAlone } from '../../bench/depth-ranges';

/** The plain rule: a range is alone when every other range ends before it starts or starts after it ends. */
function aloneByPairs(low: number[], high: number[]): number[] {
  return low.map((l, i) => (low.every((m, j) => j === i || high[j]! < l || m > high[i]!) ? 1 : 0));
}

describe('rangesAlone', () => {
  it('marks the ranges that overlap no other, touching ends counting as overlap', () => {
    expect([...rangesAlone([0, 2, 3, 10], [1, 3, 4, 11])]).toEqual([1, 0, 0, 1]);
    // One long range covers a later short one that is not adjacent to it by low end.
    expect([...rangesAlone([0, 1, 5], [10, 2, 6])]).toEqual([0, 0, 0]);
    expect([...rangesAlone([], [])]).toEqual([]);
    expect([...rangesAlone([4], [5])]).toEqual([1]);
  });

  it('agrees with the rule applied to every pair, on random ranges', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    for (let trial = 0; trial < 200; trial++) {
      const n = Math.floor(random() * 12);
      const low = Array.from({ length: n }, () => Math.floor(random() * 40));
      const high = low.map((l) => l + Math.floor(random() * (random() < 0.2 ? 20 : 3)));
      expect([...rangesAlone(low, high)], `low ${low}, high ${high}`).toEqual(aloneByPairs(low, high));
    }
  });
});
