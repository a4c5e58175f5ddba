/**
 * The last check between a decoded file and the GPU: throws SplatFormatError
 * when a SplatCloud holds values the renderer cannot use. DOM-free.
 *
 * Rejected:
 * - no splats at all;
 * - NaN or ±Infinity anywhere in positions, scales, rotations, opacities,
 *   base colours (dc) or the higher SH bands;
 * - absurd magnitudes (see MAX_MAGNITUDE) in positions, scales, base
 *   colours and SH coefficients.
 *
 * Speed: one pass per array over an Int32Array view of its bits, with no
 * branch and no call per element (a float is non-finite exactly when its
 * 8 exponent bits are all ones). Only when a pass finds something does a
 * second, slower pass locate and count the bad splats for the message.
 * Reading the arrays is the whole cost, about 1 ns per float: some 15 ms
 * for a real 1 M-splat scene without higher SH bands (14.7 M floats), 10 ms
 * for 150 K splats of SH degree 3 (8.9 M floats), 2 ms for 150 K of degree 0.
 */
import { shCoefficients, type SplatCloud } from '../scene/splat-cloud';
import { SplatFormatError } from './format-error';

/**
 * The largest position coordinate or scale (in scene units) accepted: 2^32.
 *
 * Why: the renderer works in float32, whose range ends just below 2^128. It
 * squares scales (the covariance R S Sᵀ Rᵀ holds s²) and then multiplies the
 * covariance by the squared projection Jacobian ((focal / depth)²); it also
 * squares depths (the Jacobian divides by depth²). Capping magnitudes at 2^32
 * keeps every such square at or below 2^64, half of float32's exponent range,
 * and leaves the other half (a factor up to 2^64) for the projection, so
 * nothing overflows to Infinity or NaN on the GPU. The colour coefficients
 * get the same bound: the shader sums up to 16 of them times basis values
 * near 1, which stays finite (and free of Inf - Inf = NaN) far beyond 2^32,
 * while real coefficients are below about 10. For a trained scene this
 * means a stored log-scale above ln(2^32) ≈ 22.2 (INRIA ply, compressed ply);
 * real scenes stay far below (the largest scale in the real test scenes is
 * 267, a log-scale of 5.6; SPZ cannot even store more than 5.9), and
 * 2^32 ≈ 4.3e9 is far beyond any real coordinate, geo-referenced ones
 * included (the Earth's radius is 6.4e6 m).
 */
export const MAX_MAGNITUDE = 2 ** 32;

/** Float32 bit pattern of MAX_MAGNITUDE (exponent 127 + 32, mantissa 0). */
const MAX_MAGNITUDE_BITS = (127 + 32) << 23;
/** Float32 bit pattern of the largest finite float: anything above it is ±Inf or NaN. */
const MAX_FINITE_BITS = 0x7f7fffff;

interface Attribute {
  /** Singular name in messages ("position"). */
  one: string;
  /** Plural name in messages ("positions"). */
  many: string;
  array: Float32Array;
  /** Floats per splat. */
  width: number;
  /** Largest accepted float32 bit pattern of |value|. */
  limitBits: number;
}

function bitsOf(array: Float32Array): Int32Array {
  return new Int32Array(array.buffer, array.byteOffset, array.length);
}

/**
 * True when some |value| has a bit pattern above `limitBits`, NaN and ±Inf
 * included (their patterns are the largest). Branch-free: for a value above
 * the limit, (|bits| + (0x7fffffff - limitBits)) reaches 2^31 and sets the
 * sign bit of the accumulator; for any other value it stays below 2^31.
 */
function anyAbove(bits: Int32Array, limitBits: number): boolean {
  const bias = 0x7fffffff - limitBits;
  const n = bits.length;
  const whole = n - (n & 3);
  // Four accumulators: independent chains the CPU can overlap.
  let a0 = 0, a1 = 0, a2 = 0, a3 = 0;
  let i = 0;
  for (; i < whole; i += 4) {
    a0 |= (bits[i]! & 0x7fffffff) + bias;
    a1 |= (bits[i + 1]! & 0x7fffffff) + bias;
    a2 |= (bits[i + 2]! & 0x7fffffff) + bias;
    a3 |= (bits[i + 3]! & 0x7fffffff) + bias;
  }
  for (; i < n; i++) a0 |= (bits[i]! & 0x7fffffff) + bias;
  return (a0 | a1 | a2 | a3) < 0;
}

/** "1,204" */
function count(n: number): string {
  return n.toLocaleString('en-US');
}

function describeValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  return v.toPrecision(3);
}

/** The slow pass, run only when anyAbove found something: the message. */
function reject(attr: Attribute, splats: number): never {
  const { array, width, one, many } = attr;
  const limit = attr.limitBits === MAX_FINITE_BITS ? Infinity : MAX_MAGNITUDE;
  let first = -1;
  let firstValue = 0;
  let bad = 0;
  let nonFinite = 0;
  for (let i = 0; i < splats; i++) {
    let splatBad = false;
    let splatNonFinite = false;
    for (let k = 0; k < width; k++) {
      const v = array[i * width + k]!;
      if (v - v !== 0) splatNonFinite = true;
      else if (!(Math.abs(v) <= limit)) splatBad = true;
      else continue;
      if (first < 0) {
        first = i;
        firstValue = v;
      }
    }
    if (splatBad || splatNonFinite) bad++;
    if (splatNonFinite) nonFinite++;
  }
  if (first < 0) throw new SplatFormatError(`${one} values are out of range`); // not reached: anyAbove found one
  const kind = nonFinite === bad ? 'non-finite' : nonFinite === 0 ? 'absurdly large' : 'non-finite or absurdly large';
  const article = kind.startsWith('a') ? 'an' : 'a';
  const summary = bad === 1 ? `1 splat has ${article} ${kind} ${one}` : `${count(bad)} splats have ${kind} ${many}`;
  if (firstValue - firstValue !== 0) {
    const hint = one === 'scale' && firstValue === Infinity
      ? '; a stored log-scale above 88.7 overflows exp() to Infinity in float32'
      : '';
    throw new SplatFormatError(`${one} of splat ${count(first)} is ${describeValue(firstValue)} (${summary}${hint})`);
  }
  const hint = one === 'scale' ? `, i.e. a stored log-scale above ${Math.log(MAX_MAGNITUDE).toFixed(1)}` : '';
  throw new SplatFormatError(
    `${one} of splat ${count(first)} is ${describeValue(firstValue)}, absurdly large: beyond ` +
    `±2^32 = ${count(MAX_MAGNITUDE)}${hint} (${summary})`,
  );
}

/**
 * Throws SplatFormatError, with a message that names the attribute, the
 * first bad splat and how many are bad, unless every value of the cloud is
 * usable. Returns nothing and changes nothing.
 */
export function validateSplatCloud(cloud: SplatCloud): void {
  const n = cloud.count;
  if (!Number.isSafeInteger(n) || n < 0) throw new SplatFormatError(`the file gives an invalid splat count (${n})`);
  if (n === 0) throw new SplatFormatError('the file holds no splats');
  if (!(cloud.shDegree >= 0 && cloud.shDegree <= 3 && Number.isInteger(cloud.shDegree))) {
    throw new SplatFormatError(`the file gives an unsupported SH degree (${cloud.shDegree})`);
  }
  const attributes: Attribute[] = [
    { one: 'position', many: 'positions', array: cloud.positions, width: 3, limitBits: MAX_MAGNITUDE_BITS },
    { one: 'scale', many: 'scales', array: cloud.scales, width: 3, limitBits: MAX_MAGNITUDE_BITS },
    { one: 'rotation', many: 'rotations', array: cloud.rotations, width: 4, limitBits: MAX_FINITE_BITS },
    { one: 'opacity', many: 'opacities', array: cloud.opacities, width: 1, limitBits: MAX_FINITE_BITS },
    { one: 'base colour (f_dc)', many: 'base colours (f_dc)', array: cloud.dc, width: 3, limitBits: MAX_MAGNITUDE_BITS },
    {
      one: 'SH coefficient', many: 'SH coefficients', array: cloud.sh,
      width: shCoefficients(cloud.shDegree) * 3, limitBits: MAX_MAGNITUDE_BITS,
    },
  ];
  for (const attr of attributes) {
    if (attr.array.length !== n * attr.width) {
      throw new SplatFormatError(
        `the decoded ${attr.many} hold ${count(attr.array.length)} values for ${count(n)} splats ` +
        `(expected ${count(n * attr.width)})`,
      );
    }
  }
  for (const attr of attributes) {
    if (anyAbove(bitsOf(attr.array), attr.limitBits)) reject(attr, n);
  }
  const { min, max } = cloud.bounds;
  for (let a = 0; a < 3; a++) {
    if (!Number.isFinite(min[a]) || !Number.isFinite(max[a])) {
      throw new SplatFormatError(`the scene bounds are not finite (${min.join(', ')} to ${max.join(', ')})`);
    }
  }
}
