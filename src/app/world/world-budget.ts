/**
 * The arithmetic of the level choice's splat budget (world-lod.ts): the
 * lowest threshold at which the chosen levels fit, found from each leaf's
 * breakpoints in one selection instead of a search that chooses every
 * leaf's level forty times over. Pure and DOM-free.
 */

/** Distances closer than this count as this (a leaf the eye is in), for errors in pixels. */
export const NEAREST = 1e-9;

/** A leaf's error at `distance`, in pixels. */
export function projected(error: number, distance: number, pixelsPerUnit: number): number {
  return error === 0 ? 0 : (error * pixelsPerUnit) / Math.max(distance, NEAREST);
}

/**
 * The smallest key k with the weights of all keys ≤ k summing to at least
 * `need` (> 0), over keys[0, count) with weights ≥ 0; Infinity if they all
 * sum to less. Overwrites both arrays. Linear, no sort: the weights are
 * summed into buckets of 1/16 of an octave of the keys, and only the bucket
 * where the sum reaches `need` goes to a quickselect that keeps the weight
 * of each side of its pivot.
 */
export function selectWeighted(keys: Float64Array, weights: Float64Array, count: number, need: number): number {
  if (count >= NARROW_FROM) {
    const narrowed = narrowToBucket(keys, weights, count, need);
    if (narrowed === null) return Infinity;
    [count, need] = narrowed;
  }
  let lo = 0;
  let hi = count;
  // The pivot's position comes from a fixed sequence: the answer does not depend on it, the time would on a chosen order.
  let seed = count | 1;
  while (lo < hi) {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    const pivot = keys[lo + (seed % (hi - lo))]!;
    // Three parts: [lo, less) below the pivot, [less, at) equal, [more, hi) above.
    let less = lo;
    let at = lo;
    let more = hi;
    let below = 0;
    let equal = 0;
    while (at < more) {
      const key = keys[at]!;
      if (key < pivot) {
        below += weights[at]!;
        swap(keys, weights, at++, less++);
      } else if (key > pivot) {
        swap(keys, weights, at, --more);
      } else {
        equal += weights[at++]!;
      }
    }
    if (below >= need) hi = less;
    else if (below + equal >= need) return pivot;
    else {
      need -= below + equal;
      lo = more;
    }
  }
  return Infinity;
}

/**
 * The smallest breakpoint at which the splats shed reach `need`: breakpoint
 * j sheds shed[j] splats from a threshold of pixels[j] on (a leaf moving
 * to a coarser level). Where every breakpoint sheds (coarser levels never
 * hold more splats), that is a weighted selection; otherwise the
 * breakpoints are swept in order and the first at which the running total
 * reaches `need` is taken. Infinity: none does.
 */
export function fittingThreshold(pixels: Float64Array, shed: Float64Array, count: number, need: number): number {
  let sheds = true;
  for (let j = 0; j < count && sheds; j++) sheds = shed[j]! >= 0;
  if (sheds) return selectWeighted(pixels, shed, count, need);
  const order = Array.from({ length: count }, (_, j) => j).sort((a, b) => pixels[a]! - pixels[b]!);
  let total = 0;
  for (let j = 0; j < count; ) {
    const at = pixels[order[j]!]!;
    // Breakpoints at the same threshold all apply there.
    while (j < count && pixels[order[j]!] === at) total += shed[order[j++]!]!;
    if (total >= need) return at;
  }
  return Infinity;
}

/** Below this many keys a quickselect alone is as fast (2-core machine, Node 20). */
const NARROW_FROM = 256;
/** The most buckets a narrowing sums into: 256 octaves of keys, far more than a world's errors or distances span. */
const MOST_BUCKETS = 4096;
/** Which 32-bit half of a float64 holds its sign and exponent: the second on little-endian machines. */
const HIGH_HALF = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;
let bucketOf = new Uint16Array(0);
const bucketWeights = new Float64Array(MOST_BUCKETS);

/**
 * Moves the keys (and weights) of the bucket where the weights' running
 * sum, over buckets in key order, reaches `need` to the front; returns
 * their count and what they still need to reach, or null if no bucket
 * does. A bucket is the top 16 bits of a key, made to sort as the keys
 * do (sign, exponent, 4 bits of mantissa, all flipped for negative keys);
 * keys spread over more than MOST_BUCKETS (keys of both signs are) are
 * left as they are.
 */
function narrowToBucket(keys: Float64Array, weights: Float64Array, count: number, need: number): [number, number] | null {
  if (bucketOf.length < count) bucketOf = new Uint16Array(2 * count);
  const halves = new Uint32Array(keys.buffer, keys.byteOffset, 2 * count);
  let first = 0xffff;
  let last = 0;
  for (let j = 0; j < count; j++) {
    const high = halves[2 * j + HIGH_HALF]!;
    const bucket = high >>> 31 ? (~high >>> 16) & 0x7fff : (high >>> 16) | 0x8000;
    bucketOf[j] = bucket;
    if (bucket < first) first = bucket;
    if (bucket > last) last = bucket;
  }
  if (last - first >= MOST_BUCKETS) return [count, need];
  bucketWeights.fill(0, 0, last - first + 1);
  for (let j = 0; j < count; j++) bucketWeights[bucketOf[j]! - first] += weights[j]!;
  let below = 0;
  let at = 0;
  while (at <= last - first && below + bucketWeights[at]! < need) below += bucketWeights[at++]!;
  if (at > last - first) return null;
  let kept = 0;
  for (let j = 0; j < count; j++) {
    if (bucketOf[j] !== at + first) continue;
    keys[kept] = keys[j]!;
    weights[kept++] = weights[j]!;
  }
  return [kept, need - below];
}

function swap(keys: Float64Array, weights: Float64Array, i: number, j: number): void {
  const key = keys[i]!;
  keys[i] = keys[j]!;
  keys[j] = key;
  const weight = weights[i]!;
  weights[i] = weights[j]!;
  weights[j] = weight;
}
