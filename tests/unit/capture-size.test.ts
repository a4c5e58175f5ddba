/** The size a screenshot is asked for (capture, capturePixels): whole pixels from 1 to 8192, or an error naming the side. */
import { describe, expect, it } from 'vitest';
import { pictureSide } from '../../src/lib/capture';

describe('a screenshot\'s size', () => {
  it('takes whole numbers of pixels from 1 to 8192', () => {
    expect(pictureSide('width', 1)).toBe(1);
    expect(pictureSide('height', 8192)).toBe(8192);
  });

  it.each([0, -4, 12.5, 8193, Number.NaN, Number.POSITIVE_INFINITY])('refuses %s, naming the side', (value) => {
    expect(() => pictureSide('height', value)).toThrow(RangeError);
    expect(() => pictureSide('height', value)).toThrow(`a picture's height must be a whole number of pixels from 1 to 8192, got ${value}`);
  });
});
