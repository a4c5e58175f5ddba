/** Comparisons of decoded scenes for the loader tests. */
import { expect } from 'vitest';
import type { SplatCloud } from '../../src/scene/splat-cloud';

/**
 * Index of the first bitwise difference between two float arrays, or -1
 * (instead of toEqual, whose failure diff of 10^5 floats takes minutes).
 */
export function firstDifference(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return Math.min(a.length, b.length);
  const ua = new Uint32Array(a.buffer, a.byteOffset, a.length);
  const ub = new Uint32Array(b.buffer, b.byteOffset, b.length);
  for (let i = 0; i < ua.length; i++) if (ua[i] !== ub[i]) return i;
  return -1;
}

/** Bit-for-bit equality of two float arrays (vitest's deep equality is slow on large arrays). */
export function sameValues(a: Float32Array, b: Float32Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}

/** Same count, SH degree and bounds, and bit-identical arrays. */
export function expectSameCloud(actual: SplatCloud, expected: SplatCloud): void {
  expect({ count: actual.count, shDegree: actual.shDegree, bounds: actual.bounds })
    .toEqual({ count: expected.count, shDegree: expected.shDegree, bounds: expected.bounds });
  for (const key of ['positions', 'scales', 'rotations', 'opacities', 'dc', 'sh'] as const) {
    expect(firstDifference(actual[key], expected[key]), `first differing float of ${key}`).toBe(-1);
  }
}
