/**
 * Test oracle for the sort contract (sort-contract.ts), written to be
 * obviously correct rather than fast: order the indices by masked key, ties
 * by original index, then gather. Shares no code with the real sorts.
 */

import { keyMask } from '../../src/sort/sort-contract';

export function referenceSortPairs(
  keys: Uint32Array,
  values: Uint32Array,
  keyBits = 32,
): { keys: Uint32Array; values: Uint32Array } {
  if (keys.length !== values.length) {
    throw new RangeError(
      `keys and values must have the same length, got ${keys.length} and ${values.length}`,
    );
  }
  const mask = keyMask(keyBits);
  // `>>> 0` keeps masked keys unsigned so that keys >= 2^31 compare correctly.
  const masked = Array.from(keys, (k) => (k & mask) >>> 0);
  const order = Array.from(keys, (_, i) => i);
  order.sort((a, b) => masked[a]! - masked[b]! || a - b);
  return {
    keys: Uint32Array.from(order, (i) => keys[i]!),
    values: Uint32Array.from(order, (i) => values[i]!),
  };
}
