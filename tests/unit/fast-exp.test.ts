import { describe, expect, it } from 'vitest';
import { expForFloat32 } from '../../src/io/fast-exp';

describe('expForFloat32', () => {
  it('rounds to the same float32 as Math.exp, but for rare one-step differences', () => {
    const a = new Float32Array(1), b = new Float32Array(1);
    const ai = new Int32Array(a.buffer), bi = new Int32Array(b.buffer);
    let differ = 0;
    const n = 1_000_000;
    for (let i = 0; i <= n; i++) {
      const x = -103 + (191.7 * i) / n;
      a[0] = Math.exp(x);
      b[0] = expForFloat32(x);
      if (ai[0] !== bi[0]) {
        differ++;
        expect(Math.abs(ai[0]! - bi[0]!), `at x = ${x}`).toBe(1);
      }
    }
    expect(differ).toBeLessThan(n * 1e-4);
  });

  it('is exact where the answer is, and keeps the special values', () => {
    expect(expForFloat32(0)).toBe(1);
    expect(Math.fround(expForFloat32(Math.LN2 * 3))).toBe(8);
    expect(expForFloat32(NaN)).toBeNaN();
    expect(expForFloat32(Infinity)).toBe(Infinity);
    expect(expForFloat32(-Infinity)).toBe(0);
    expect(Math.fround(expForFloat32(88.75))).toBe(Infinity);
    expect(expForFloat32(1000)).toBe(Infinity);
    expect(expForFloat32(-1000)).toBe(0);
    expect(Math.fround(expForFloat32(-100))).toBe(Math.fround(Math.exp(-100)));
  });
});
