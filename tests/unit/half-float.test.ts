/**
 * Half floats both ways (src/gpu/half-float.ts), as the GPU's
 * unpack2x16float reads them: known values decode to what IEEE 754 says,
 * every finite half round-trips, ties go to the even half, and nothing
 * encodes as infinite or NaN.
 */
import { describe, expect, test } from 'vitest';
import { halfBits, halfValue, packHalves } from '../../src/gpu/half-float';

describe('halfValue', () => {
  test('ones, signs, the largest, subnormals, infinities and NaN', () => {
    expect(halfValue(0x3c00)).toBe(1);
    expect(halfValue(0xc000)).toBe(-2);
    expect(halfValue(0x3c01)).toBe(1 + 2 ** -10);
    expect(halfValue(0x7bff)).toBe(65504);
    expect(halfValue(0x0400)).toBe(2 ** -14);
    expect(halfValue(0x0001)).toBe(2 ** -24);
    expect(halfValue(0x03ff)).toBe(1023 * 2 ** -24);
    expect(Object.is(halfValue(0x8000), -0)).toBe(true);
    expect(halfValue(0x7c00)).toBe(Infinity);
    expect(halfValue(0xfc00)).toBe(-Infinity);
    expect(halfValue(0x7e00)).toBeNaN();
  });
});


describe('halfBits', () => {
  test('every finite half float comes back as itself', () => {
    for (let bits = 0; bits < 0x10000; bits++) {
      if (((bits >> 10) & 0x1f) === 31) continue;
      const back = halfBits(halfValue(bits));
      // -0 and +0 both stay zero of their sign.
      if (back !== bits) expect.fail(`half 0x${bits.toString(16)} (${halfValue(bits)}) came back as 0x${back.toString(16)}`);
    }
  });

  test('the nearest half, ties to the even one, in the normal and the subnormal range', () => {
    expect(halfBits(1)).toBe(0x3c00);
    expect(halfBits(-2)).toBe(0xc000);
    expect(halfBits(1 + 2 ** -11)).toBe(0x3c00);
    expect(halfBits(1 + 3 * 2 ** -11)).toBe(0x3c02);
    expect(halfBits(1 + 1.01 * 2 ** -11)).toBe(0x3c01);
    expect(halfBits(2 ** -24)).toBe(0x0001);
    expect(halfBits(2 ** -25)).toBe(0x0000);
    expect(halfBits(3 * 2 ** -25)).toBe(0x0002);
    expect(halfBits(1.5 * 2 ** -24)).toBe(0x0002);
    expect(halfBits(-(2 ** -30))).toBe(0x8000);
    // The largest subnormal rounds up into the smallest normal.
    expect(halfBits(2 ** -14 - 2 ** -26)).toBe(0x0400);
    // Between two normals of different exponents: up into the next.
    expect(halfBits(2 - 2 ** -12)).toBe(0x4000);
  });

  test('past the largest half it is the largest half; NaN is zero', () => {
    expect(halfBits(65504)).toBe(0x7bff);
    expect(halfBits(65519)).toBe(0x7bff);
    expect(halfBits(65520)).toBe(0x7bff);
    expect(halfBits(1e30)).toBe(0x7bff);
    expect(halfBits(-Infinity)).toBe(0xfbff);
    expect(halfBits(NaN)).toBe(0);
  });

  test('two halves to a word, the first in the low bits', () => {
    expect(packHalves(1, -2)).toBe(0xc0003c00);
    expect(packHalves(0, 0)).toBe(0);
  });
});
