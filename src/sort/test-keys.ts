/**
 * Deterministic key sets shared by the CPU tests, the GPU tests and the
 * benchmark, so that every sort is judged on the same inputs.
 */

export type KeyPattern = 'random' | 'equal' | 'sorted' | 'reversed' | 'high-bits' | 'low-bits';

export const KEY_PATTERNS: readonly KeyPattern[] = [
  'random',
  'equal',
  'sorted',
  'reversed',
  'high-bits',
  'low-bits',
];

/** xorshift32 (Marsaglia): tiny, fast and reproducible everywhere. */
function xorshift32(seed: number): () => number {
  // Zero is xorshift's fixed point; any other state works.
  let state = seed >>> 0 || 0x9e3779b9;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>>= 0);
  };
}

/**
 * `n` keys of the given pattern:
 * - 'random': uniform over all 32 bits;
 * - 'equal': one value repeated;
 * - 'sorted' / 'reversed': ascending from 0 / descending from 2^32 - 1 in
 *   random steps, with runs of duplicates;
 * - 'high-bits': only the top 8 bits vary, the low 24 are one constant;
 * - 'low-bits': only the low 8 bits vary, the high 24 are one constant.
 * The constant parts are non-zero so that a sort skipping constant digits
 * must still carry them through.
 */
export function makeKeys(pattern: KeyPattern, n: number, seed = 1): Uint32Array<ArrayBuffer> {
  if (!Number.isInteger(n) || n < 0) {
    throw new RangeError(`n must be a non-negative integer, got ${n}`);
  }
  const next = xorshift32(seed);
  const keys = new Uint32Array(n);
  switch (pattern) {
    case 'random':
      for (let i = 0; i < n; i++) keys[i] = next();
      break;
    case 'equal':
      keys.fill(next());
      break;
    case 'sorted':
    case 'reversed': {
      // A quarter of the steps are 0 (duplicates); no step exceeds maxStep,
      // so n steps never overflow 32 bits.
      const maxStep = Math.floor(0xffffffff / Math.max(n, 1));
      let key = 0;
      for (let i = 0; i < n; i++) {
        keys[i] = pattern === 'sorted' ? key : 0xffffffff - key;
        if (next() & 3) key += next() % (maxStep + 1);
      }
      break;
    }
    case 'high-bits': {
      const low = (next() & 0x00ffffff) | 1;
      for (let i = 0; i < n; i++) keys[i] = ((next() & 0xff000000) | low) >>> 0;
      break;
    }
    case 'low-bits': {
      const high = (next() | 0x01000000) & 0xffffff00;
      for (let i = 0; i < n; i++) keys[i] = (high | (next() & 0xff)) >>> 0;
      break;
    }
    default: {
      const unknown: never = pattern;
      throw new RangeError(`unknown key pattern ${String(unknown)}`);
    }
  }
  return keys;
}

/** 0, 1, …, n-1: as values, they record each pair's original position. */
export function identityValues(n: number): Uint32Array<ArrayBuffer> {
  const values = new Uint32Array(n);
  for (let i = 0; i < n; i++) values[i] = i;
  return values;
}
