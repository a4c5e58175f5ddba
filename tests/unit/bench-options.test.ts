import { describe, expect, it } from 'vitest';
import { listOption, wholeNumber, wholeNumbers } from '../../bench/bench-options';

describe('benchmark options', () => {
  it('reads whole numbers and refuses the rest with the option and the value', () => {
    expect(wholeNumber('frames', '60', 2)).toBe(60);
    for (const bad of ['1', '2.5', 'ten', '', ' ']) expect(() => wholeNumber('frames', bad, 2)).toThrow(`--frames: ${bad} is not a whole number ≥ 2`);
  });

  it('reads comma-separated lists', () => {
    expect(wholeNumbers('queue', '16,8,1', 1)).toEqual([16, 8, 1]);
    expect(() => wholeNumbers('queue', '16,,8', 1)).toThrow('--queue:  is not a whole number ≥ 1');
    expect(listOption('order', 'centre-depth,per-pixel', ['centre-depth', 'per-pixel'] as const)).toEqual(['centre-depth', 'per-pixel']);
    expect(() => listOption('order', 'per-splat', ['centre-depth', 'per-pixel'] as const)).toThrow('--order: per-splat is not one of centre-depth, per-pixel');
  });
});
