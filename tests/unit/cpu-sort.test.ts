import { describe, expect, it } from 'vitest';
import { CpuCountingSort16, CpuRadixSort, type CpuSorter } from '../../src/sort/cpu-sort';
import { referenceSortPairs } from '../support/reference-sort';
import { KEY_PATTERNS, identityValues, makeKeys } from '../../src/sort/test-keys';

// Around the 256 and 65,536 bucket boundaries, plus a large odd size.
const SIZES = [0, 1, 2, 255, 256, 257, 65535, 65536, 65537, 100003];
const RADIX_KEY_BITS = [16, 24, 32];
const COUNTING_KEY_BITS = [16, 8];

/** Index of the first difference, or -1; far cheaper than a deep equal on 100k items. */
function firstMismatch(a: Uint32Array, b: Uint32Array): number {
  if (a.length !== b.length) return Math.min(a.length, b.length);
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return i;
  return -1;
}

function expectSame(actual: Uint32Array, expected: Uint32Array, what: string): void {
  const i = firstMismatch(actual, expected);
  expect(i, `${what}: first difference at ${i} (got ${actual[i]}, want ${expected[i]})`).toBe(-1);
}

/** Sorts copies of keys (values = original index) and checks against the oracle. */
function checkSort(
  sorter: CpuSorter,
  keys: Uint32Array,
  keyBits: number,
  expected = referenceSortPairs(keys, identityValues(keys.length), keyBits),
): void {
  const k = keys.slice();
  const v = identityValues(keys.length);
  sorter.sort(k, v, k.length, keyBits);
  const what = `${sorter.name} n=${keys.length} keyBits=${keyBits}`;
  expectSame(k, expected.keys, `${what} keys`);
  expectSame(v, expected.values, `${what} values`);
}

// Shared across the matrix, so every case also exercises scratch reuse.
const radix = new CpuRadixSort();
const counting = new CpuCountingSort16();

describe.each(KEY_PATTERNS)('CPU sorts on %s keys', (pattern) => {
  it.each(SIZES)('n = %i matches the reference', (n) => {
    const keys = makeKeys(pattern, n, 7);
    const values = identityValues(n);
    for (const keyBits of new Set([...RADIX_KEY_BITS, ...COUNTING_KEY_BITS])) {
      const expected = referenceSortPairs(keys, values, keyBits);
      if (RADIX_KEY_BITS.includes(keyBits)) checkSort(radix, keys, keyBits, expected);
      if (COUNTING_KEY_BITS.includes(keyBits)) checkSort(counting, keys, keyBits, expected);
    }
  });
});

describe('CpuRadixSort', () => {
  it('sorts exactly for every keyBits in 1..32 (uneven digit splits)', () => {
    const keys = makeKeys('random', 3001, 11);
    for (let keyBits = 1; keyBits <= 32; keyBits++) checkSort(radix, keys, keyBits);
  });

  it('defaults to 32 key bits', () => {
    const keys = makeKeys('random', 1000, 3);
    const k = keys.slice();
    const v = identityValues(k.length);
    new CpuRadixSort().sort(k, v, k.length);
    expectSame(k, referenceSortPairs(keys, identityValues(keys.length)).keys, 'keys');
  });
});

describe('CpuCountingSort16', () => {
  it('rejects more than 16 key bits', () => {
    const keys = new Uint32Array(4);
    expect(() => counting.sort(keys, new Uint32Array(4), 4, 17)).toThrow(RangeError);
    expect(() => counting.sort(keys, new Uint32Array(4), 4, 32)).toThrow(/at most 16/);
  });

  it('defaults to 16 key bits', () => {
    const keys = makeKeys('random', 1000, 3);
    const k = keys.slice();
    new CpuCountingSort16().sort(k, identityValues(k.length), k.length);
    expectSame(k, referenceSortPairs(keys, identityValues(keys.length), 16).keys, 'keys');
  });
});

describe.each([
  ['CpuRadixSort', (capacity?: number): CpuSorter => new CpuRadixSort(capacity)],
  ['CpuCountingSort16', (capacity?: number): CpuSorter => new CpuCountingSort16(capacity)],
])('%s', (_, create) => {
  it('orders by the masked key and keeps the bits above keyBits', () => {
    const keys = Uint32Array.of(0xffff0002, 0x00000001, 0xabcd0001, 0x12340000, 0x00010002);
    const values = Uint32Array.of(10, 11, 12, 13, 14);
    create().sort(keys, values, keys.length, 16);
    expect(Array.from(keys)).toEqual([0x12340000, 0x00000001, 0xabcd0001, 0xffff0002, 0x00010002]);
    expect(Array.from(values)).toEqual([13, 11, 12, 10, 14]);
  });

  it('sorts keys that are all equal but one', () => {
    // Guards the constant-digit shortcut: one outlier must still be moved.
    for (const outlier of [0x12340001, 0x1234ffff]) {
      for (const at of [0, 1, 500, 999]) {
        const keys = new Uint32Array(1000).fill(0x12345678);
        keys[at] = outlier;
        checkSort(create(), keys, 16);
      }
    }
  });

  it('reuses one object across growing and shrinking sizes', () => {
    const sorter = create();
    expect(sorter.capacity).toBe(0);
    let highWater = 0;
    for (const n of [300, 70000, 5, 0, 65537, 100003, 2, 1000]) {
      checkSort(sorter, makeKeys('random', n, n + 1), 16);
      highWater = Math.max(highWater, n < 2 ? 0 : n);
      expect(sorter.capacity).toBe(highWater);
    }
  });

  it('keeps a presized capacity when sorting fewer pairs', () => {
    const sorter = create(5000);
    expect(sorter.capacity).toBe(5000);
    checkSort(sorter, makeKeys('random', 4000), 16);
    expect(sorter.capacity).toBe(5000);
  });

  it('sorts only the first count pairs and leaves the tail untouched', () => {
    const keys = makeKeys('random', 1000, 5);
    const values = identityValues(1000);
    const k = keys.slice();
    const v = values.slice();
    create().sort(k, v, 600, 16);
    const head = referenceSortPairs(keys.subarray(0, 600), values.subarray(0, 600), 16);
    expectSame(k.subarray(0, 600), head.keys, 'head keys');
    expectSame(v.subarray(0, 600), head.values, 'head values');
    expectSame(k.subarray(600), keys.subarray(600), 'tail keys');
    expectSame(v.subarray(600), values.subarray(600), 'tail values');
  });

  it('rejects bad arguments', () => {
    const sorter = create();
    const k = new Uint32Array(8);
    const v = new Uint32Array(8);
    expect(() => sorter.sort(k, v, 9, 16)).toThrow(/exceeds/);
    expect(() => sorter.sort(k, new Uint32Array(7), 4, 16)).toThrow(/same length/);
    expect(() => sorter.sort(k, v, -1, 16)).toThrow(RangeError);
    expect(() => sorter.sort(k, v, 2.5, 16)).toThrow(RangeError);
    expect(() => sorter.sort(k, v, 8, 0)).toThrow(/keyBits/);
    expect(() => sorter.sort(k, v, 8, 33)).toThrow(/keyBits/);
    expect(() => sorter.sort(k, v, 8, 7.5)).toThrow(/keyBits/);
    expect(() => sorter.sort(new Int32Array(8) as unknown as Uint32Array, v, 8, 16)).toThrow(
      TypeError,
    );
    expect(() => create(-1)).toThrow(RangeError);
    expect(() => create(1.5)).toThrow(RangeError);
  });
});
