/**
 * The contract every sort in Splatsort keeps, GPU and CPU alike:
 *
 *   Given `count` pairs (u32 key, u32 value), reorder them so that
 *   `key & keyMask(keyBits)` is ascending, and pairs with equal masked keys
 *   keep their input order (stable). Bits above `keyBits` are ignored.
 *
 * Values are opaque u32s; the viewer stores splat indices there, the tests
 * store the original position so that any instability shows.
 */

/** Bits a key may carry. */
export const MAX_KEY_BITS = 32;

/** Mask of the low `keyBits` bits (keyBits in 1..32), as an unsigned u32. */
export function keyMask(keyBits: number): number {
  checkKeyBits(keyBits);
  return keyBits === 32 ? 0xffffffff : ((1 << keyBits) >>> 0) - 1;
}

export function checkKeyBits(keyBits: number): void {
  if (!Number.isInteger(keyBits) || keyBits < 1 || keyBits > MAX_KEY_BITS) {
    throw new RangeError(`keyBits must be an integer in 1..32, got ${keyBits}`);
  }
}
