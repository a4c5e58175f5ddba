/**
 * CPU sorts with the same contract as the GPU sort (see sort-contract.ts):
 * stable, ascending by `key & keyMask(keyBits)`, pairs sorted in place.
 *
 * They serve as the viewer's fallback when WebGPU is missing (run inside a
 * Web Worker, so nothing here touches the DOM or Node) and as the tests'
 * fast reference. Scratch buffers belong to the sorter and only ever grow,
 * so a warm sorter allocates no buffers per frame.
 */

import { checkKeyBits, keyMask } from './sort-contract';

export interface CpuSorter {
  readonly name: string;
  /** Pairs the scratch buffers hold without growing (high-water mark). */
  readonly capacity: number;
  /**
   * Sorts the first `count` pairs of keys/values in place. Entries past
   * `count` are left untouched; key bits above `keyBits` are ignored for
   * ordering but preserved in the output.
   */
  sort(keys: Uint32Array, values: Uint32Array, count: number, keyBits?: number): void;
}

/**
 * Widest radix digit. Measured on random keys, Node 20 (V8), both widths
 * interleaved in one process, median of 15 runs, 2-core x86-64 VM:
 *
 *   pairs  keyBits   8-bit max (passes)   11-bit max (passes)
 *   256K     32        5.8 ms  (4×8)         5.0 ms  (3×11)
 *   1M       32       25.1 ms  (4×8)        23.4 ms  (3×11)
 *   4M       32      119.1 ms  (4×8)       120.5 ms  (3×11)
 *   1M       20       18.1 ms  (3×7)        15.7 ms  (2×10)
 *   4M       20      100.9 ms  (3×7)        65.8 ms  (2×10)
 *
 * At 32 bits the saved pass is eaten by the wider scatter's cache misses at
 * millions of pairs (a tie within noise), but 11 bits is faster at smaller
 * counts and clearly faster wherever it saves a pass (9..11, 17..22 bits). Key bits are split evenly
 * over the fewest passes (16 bits: 8+8, not 11+5).
 */
const MAX_DIGIT_BITS = 11;
const MAX_PASSES = Math.ceil(32 / MAX_DIGIT_BITS);

function checkCapacity(capacity: number): void {
  if (!Number.isInteger(capacity) || capacity < 0) {
    throw new RangeError(`capacity must be a non-negative integer, got ${capacity}`);
  }
}

function checkSortArgs(keys: Uint32Array, values: Uint32Array, count: number): void {
  if (!(keys instanceof Uint32Array) || !(values instanceof Uint32Array)) {
    throw new TypeError('keys and values must be Uint32Arrays');
  }
  if (keys.length !== values.length) {
    throw new RangeError(
      `keys and values must have the same length, got ${keys.length} and ${values.length}`,
    );
  }
  if (!Number.isInteger(count) || count < 0) {
    throw new RangeError(`count must be a non-negative integer, got ${count}`);
  }
  if (count > keys.length) {
    throw new RangeError(`count ${count} exceeds the array length ${keys.length}`);
  }
}

/**
 * Copies the first `count` sorted pairs from scratch back to the caller's
 * arrays. `set` is a memcpy, several ms faster than an element loop at 4M;
 * its two short-lived views are the only per-call garbage.
 */
function copyBack(
  fromKeys: Uint32Array,
  fromValues: Uint32Array,
  toKeys: Uint32Array,
  toValues: Uint32Array,
  count: number,
): void {
  toKeys.set(fromKeys.subarray(0, count));
  toValues.set(fromValues.subarray(0, count));
}

/** Exact LSD radix sort for any keyBits in 1..32. */
export class CpuRadixSort implements CpuSorter {
  readonly name = 'cpu-radix';
  private scratchKeys: Uint32Array;
  private scratchValues: Uint32Array;
  /** One histogram per pass, all filled in a single read of the keys. */
  private readonly histograms = new Uint32Array(MAX_PASSES << MAX_DIGIT_BITS);

  constructor(capacity = 0) {
    checkCapacity(capacity);
    this.scratchKeys = new Uint32Array(capacity);
    this.scratchValues = new Uint32Array(capacity);
  }

  get capacity(): number {
    return this.scratchKeys.length;
  }

  sort(keys: Uint32Array, values: Uint32Array, count: number, keyBits = 32): void {
    checkSortArgs(keys, values, count);
    checkKeyBits(keyBits);
    if (count < 2) return;
    if (count > this.scratchKeys.length) {
      this.scratchKeys = new Uint32Array(count);
      this.scratchValues = new Uint32Array(count);
    }

    const passes = Math.ceil(keyBits / MAX_DIGIT_BITS);
    const digitBits = Math.ceil(keyBits / passes);
    const radix = 1 << digitBits;
    const digitMask = radix - 1;
    // The last digit may be narrower; masking it drops bits above keyBits.
    const topMask = keyMask(keyBits - (passes - 1) * digitBits);
    const hist = this.histograms;
    hist.fill(0, 0, passes * radix);

    for (let i = 0; i < count; i++) {
      const k = keys[i];
      for (let p = 0, shift = 0, base = 0; p < passes; p++, shift += digitBits, base += radix) {
        const mask = p === passes - 1 ? topMask : digitMask;
        hist[base + ((k >>> shift) & mask)]++;
      }
    }

    let srcK = keys;
    let srcV = values;
    let dstK = this.scratchKeys;
    let dstV = this.scratchValues;
    const firstKey = keys[0];
    for (let p = 0, shift = 0, base = 0; p < passes; p++, shift += digitBits, base += radix) {
      const mask = p === passes - 1 ? topMask : digitMask;
      // Depth keys often share their high digits; such a pass would only copy.
      // The digit multiset is order-independent, so keys[0] still represents it.
      if (hist[base + ((firstKey >>> shift) & mask)] === count) continue;

      // Exclusive prefix sum turns counts into each digit's first slot.
      let sum = 0;
      for (let d = base, end = base + radix; d < end; d++) {
        const c = hist[d];
        hist[d] = sum;
        sum += c;
      }
      // Scanning the source in order keeps equal digits in order: stable.
      for (let i = 0; i < count; i++) {
        const k = srcK[i];
        const slot = hist[base + ((k >>> shift) & mask)]++;
        dstK[slot] = k;
        dstV[slot] = srcV[i];
      }
      const tmpK = srcK;
      srcK = dstK;
      dstK = tmpK;
      const tmpV = srcV;
      srcV = dstV;
      dstV = tmpV;
    }

    if (srcK !== keys) copyBack(srcK, srcV, keys, values, count);
  }
}

/**
 * One counting sort over the 65,536 buckets of the low 16 key bits: the
 * approach of the classic web splat viewers, which quantise depth to 16 bits.
 * keyBits defaults to 16 and may be lower (the key is masked), never higher.
 */
export class CpuCountingSort16 implements CpuSorter {
  readonly name = 'cpu-counting-16';
  private scratchKeys: Uint32Array;
  private scratchValues: Uint32Array;
  private readonly counts = new Uint32Array(1 << 16);

  constructor(capacity = 0) {
    checkCapacity(capacity);
    this.scratchKeys = new Uint32Array(capacity);
    this.scratchValues = new Uint32Array(capacity);
  }

  get capacity(): number {
    return this.scratchKeys.length;
  }

  sort(keys: Uint32Array, values: Uint32Array, count: number, keyBits = 16): void {
    checkSortArgs(keys, values, count);
    checkKeyBits(keyBits);
    if (keyBits > 16) {
      throw new RangeError(`${this.name} sorts keys of at most 16 bits, got keyBits ${keyBits}`);
    }
    if (count < 2) return;
    if (count > this.scratchKeys.length) {
      this.scratchKeys = new Uint32Array(count);
      this.scratchValues = new Uint32Array(count);
    }

    const mask = keyMask(keyBits);
    const buckets = 1 << keyBits;
    const counts = this.counts;
    counts.fill(0, 0, buckets);
    for (let i = 0; i < count; i++) counts[keys[i] & mask]++;
    if (counts[keys[0] & mask] === count) return; // all keys equal: already sorted

    let sum = 0;
    for (let d = 0; d < buckets; d++) {
      const c = counts[d];
      counts[d] = sum;
      sum += c;
    }
    const outK = this.scratchKeys;
    const outV = this.scratchValues;
    for (let i = 0; i < count; i++) {
      const k = keys[i];
      const slot = counts[k & mask]++;
      outK[slot] = k;
      outV[slot] = values[i];
    }
    copyBack(outK, outV, keys, values, count);
  }
}
