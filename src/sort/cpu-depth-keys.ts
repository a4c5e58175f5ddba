/**
 * Depth keys on the CPU, bit for bit the keys of shaders/depth_keys.wgsl as
 * far as float arithmetic allows (every step rounded to f32; a GPU may fuse
 * a multiply-add, so a depth can differ in its last bit). Used by the CPU
 * sort mode and by the tests that compare the two paths.
 */
import type { mat4 } from 'gl-matrix';

const scratch = new DataView(new ArrayBuffer(4));

/** The order-preserving u32 of an f32 (see ordered_bits in depth_keys.wgsl). */
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
