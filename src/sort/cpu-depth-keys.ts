/**
 * Depth keys on the CPU for the CPU sort mode: the view-space z of every
 * splat (every step rounded to f32) as an order-preserving integer, its
 * high `keyBits` bits kept. At 32 bits they order splats as the GPU's
 * exact keys do (up to a fused multiply-add's last bit); below, they keep
 * the float's top bits (sign, exponent, high mantissa), not the visible
 * range the GPU keys span (shaders/visible_keys.wgsl). Also used by the
 * tests that compare the two paths.
 */
import type { mat4 } from 'gl-matrix';

const scratch = new DataView(new ArrayBuffer(4));

/** The order-preserving u32 of an f32: negative floats flip every bit, positive ones the sign bit. */
export function orderedBits(f: number): number {
  scratch.setFloat32(0, f, true);
  const bits = scratch.getUint32(0, true);
  return (bits & 0x80000000 ? ~bits : bits | 0x80000000) >>> 0;
}

/** Inverse of orderedBits, for tests and diagnostics. */
export function fromOrderedBits(key: number): number {
  const bits = key & 0x80000000 ? key & 0x7fffffff : ~key;
  scratch.setUint32(0, bits >>> 0, true);
  return scratch.getFloat32(0, true);
}

/**
 * Writes keys[i] = orderedBits(view-space z of splat i) >>> (32 - keyBits)
 * and values[i] = i for the first `count` splats.
 */
export function computeDepthKeys(
  positions: Float32Array,
  count: number,
  view: mat4,
  keyBits: number,
  keys: Uint32Array,
  values: Uint32Array,
): void {
  const f = Math.fround;
  const m2 = f(view[2]), m6 = f(view[6]), m10 = f(view[10]), m14 = f(view[14]);
  const shift = 32 - keyBits;
  for (let i = 0; i < count; i++) {
    const z = f(f(f(f(m2 * positions[3 * i]!) + f(m6 * positions[3 * i + 1]!)) + f(m10 * positions[3 * i + 2]!)) + m14);
    keys[i] = shift === 32 ? 0 : orderedBits(z) >>> shift;
    values[i] = i;
  }
}
