/** The "auto" key width (src/app/frame/key-bits-policy.ts). */
import { describe, expect, test } from 'vitest';
import {
  AUTO_KEY_BITS_THRESHOLD, FIRST_PATIENCE, MAX_PATIENCE, initialAutoKeyBits, isGoodMeasure, keyBitsOf, nextAutoKeyBits, type AutoKeyBits, type KeyWidth,
} from '../../src/app/frame/key-bits-policy';

const good = { invertedFraction: 0, beyond: 0 };
const bad = { invertedFraction: 0.3, beyond: 0 };

/** Runs the policy against a scene whose error at each width is given, for `measures` measures; returns the widths drawn. */
function run(errorAt: Record<KeyWidth, { invertedFraction: number; beyond: number }>, measures: number, from = initialAutoKeyBits()): { drawn: KeyWidth[]; state: AutoKeyBits } {
  let state = from;
  const drawn: KeyWidth[] = [];
  for (let k = 0; k < measures; k++) {
    drawn.push(state.bits);
    state = nextAutoKeyBits(state, errorAt[state.bits]);
  }
  return { drawn, state };
}

describe('auto key bits', () => {
  test('the threshold: at most 1 % of pairs inverted and none beyond a 16-bit step', () => {
    expect(isGoodMeasure({ invertedFraction: AUTO_KEY_BITS_THRESHOLD.invertedFraction, beyond: 0 })).toBe(true);
    expect(isGoodMeasure({ invertedFraction: 0.0101, beyond: 0 })).toBe(false);
    expect(isGoodMeasure({ invertedFraction: 0, beyond: 1 })).toBe(false);
  });

  test('starts exact, and a sparse scene settles at 16 bits', () => {
    expect(initialAutoKeyBits().bits).toBe(32);
    const { drawn, state } = run({ 16: good, 24: good, 32: good }, 10);
    expect(drawn.slice(0, 2 + FIRST_PATIENCE)).toEqual([32, 32, 24, 24]);
    expect(state.bits).toBe(16);
    expect(drawn.at(-1)).toBe(16);
  });

  test('a dense scene settles at 24 when 24 is good and 16 is not, trying 16 ever more rarely', () => {
    const { drawn, state } = run({ 16: bad, 24: good, 32: good }, 200);
    expect(state.bits).toBe(24);
    const probes = drawn.filter((b) => b === 16).length;
    expect(probes).toBeGreaterThan(2);
    expect(probes).toBeLessThan(12); // the waits double up to MAX_PATIENCE
    expect(state.patience).toBe(MAX_PATIENCE);
  });

  test('a very dense scene stays at 32', () => {
    const { drawn, state } = run({ 16: bad, 24: bad, 32: good }, 100);
    expect(state.bits).toBe(32);
    expect(drawn.filter((b) => b !== 32).length).toBeLessThan(10);
  });

  test('a bad measure climbs at once; a failed probe is undone at once', () => {
    expect(nextAutoKeyBits({ bits: 16, good: 5, patience: 2, probing: false }, bad)).toEqual({ bits: 24, good: 0, patience: 2, probing: false });
    expect(nextAutoKeyBits({ bits: 24, good: 0, patience: 2, probing: true }, bad)).toEqual({ bits: 32, good: 0, patience: 4, probing: false });
    expect(nextAutoKeyBits({ bits: 24, good: 0, patience: 2, probing: true }, good)).toEqual({ bits: 24, good: 0, patience: 2, probing: false });
    expect(nextAutoKeyBits({ bits: 32, good: 0, patience: 2, probing: false }, bad).bits).toBe(32);
  });

  test('a fixed setting draws its own width; auto draws the policy\'s', () => {
    const state = { bits: 24 as const, good: 0, patience: 2, probing: false };
    expect(keyBitsOf(16, state)).toBe(16);
    expect(keyBitsOf(32, state)).toBe(32);
    expect(keyBitsOf('auto', state)).toBe(24);
  });
});
