import { describe, expect, it } from 'vitest';
import { countPops, POP_LEVELS } from '../../bench/popping';

/** A 2×1 RGBA8 picture from its two pixels' RGB. */
const picture = (a: readonly number[], b: readonly number[]) => Uint8Array.from([...a, 255, ...b, 255]);

describe('countPops', () => {
  const still = picture([100, 100, 100], [50, 50, 50]);

  it('counts a pixel that jumps more than the reference by more than POP_LEVELS, on any channel', () => {
    const jumped = picture([100, 100 + POP_LEVELS + 1, 100], [50, 50, 50]);
    const pops = countPops([still, jumped], [still, still]);
    expect(pops).toEqual({ pixels: 1, perStep: [1], fraction: 0.5, jumps: 1, referenceJumps: 0 });
  });

  it('does not count a jump of exactly POP_LEVELS beyond the reference', () => {
    const jumped = picture([100 + POP_LEVELS, 100, 100], [50, 50, 50]);
    expect(countPops([still, jumped], [still, still]).pixels).toBe(0);
  });

  it('does not count a jump the reference makes too: the scene moving on screen', () => {
    const moved = picture([200, 10, 100], [50, 50, 50]);
    expect(countPops([still, moved], [still, moved]).pixels).toBe(0);
    // Not a pop, but a raw jump of both.
    expect(countPops([still, moved], [still, moved])).toMatchObject({ jumps: 1, referenceJumps: 1 });
    // Where the reference jumps less, only what passes its jump by more than the levels counts.
    const halfway = picture([150, 55, 100], [50, 50, 50]);
    expect(countPops([still, moved], [still, halfway]).pixels).toBe(1);
  });

  it('sums over every pair of consecutive frames, and gives each step its own count', () => {
    const a = picture([0, 0, 0], [0, 0, 0]);
    const b = picture([255, 0, 0], [0, 0, 0]);
    const c = picture([255, 0, 0], [0, 255, 0]);
    const pops = countPops([a, b, c, a], [a, a, a, a]);
    expect(pops.perStep).toEqual([1, 1, 2]);
    expect(pops.pixels).toBe(4);
    expect(pops.jumps).toBe(4);
    expect(pops.referenceJumps).toBe(0);
    // The reference's own jumps, counted on the reference alone.
    expect(countPops([a, a, a, a], [a, b, c, a])).toMatchObject({ pixels: 0, jumps: 0, referenceJumps: 4 });
    expect(pops.fraction).toBeCloseTo(4 / 6);
  });

  it('a custom threshold', () => {
    const jumped = picture([110, 100, 100], [50, 50, 50]);
    expect(countPops([still, jumped], [still, still], 9).pixels).toBe(1);
    expect(countPops([still, jumped], [still, still], 10).pixels).toBe(0);
  });

  it('refuses frames it cannot pair with the reference', () => {
    expect(() => countPops([still, still], [still])).toThrow(/2 frames against 1 reference frames/);
    expect(() => countPops([still], [still])).toThrow(/at least two frames/);
    expect(() => countPops([still, Uint8Array.from([1, 2, 3, 4])], [still, still])).toThrow(/pictures of 8 and 4 bytes/);
  });
});
