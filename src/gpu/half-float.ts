/**
 * IEEE 754 half floats (f16), both ways: to bits as WGSL's unpack2x16float
 * reads them (the scene's higher-band SH is stored on the GPU two to a
 * 32-bit word, src/scene/gpu-splats.ts), and from bits (.ksplat files
 * store halves, src/io/ksplat/decode.ts).
 */

const scratch = new Float32Array(1);
const scratchBits = new Uint32Array(scratch.buffer);

/** The largest finite half float's bits (65504). */
const LARGEST_HALF = 0x7bff;

/**
 * The bits of the half float nearest `value` (ties to even), through its
 * f32 rounding. Past ±65504 it is ±65504, not infinity, and NaN is 0, so
 * every word holds finite halves.
 */
export function halfBits(value: number): number {
  scratch[0] = value;
  const bits = scratchBits[0]!;
  const sign = (bits >>> 16) & 0x8000;
  const exponent = (bits >>> 23) & 0xff;
  let mantissa = bits & 0x7fffff;
  if (exponent === 0xff) return mantissa ? 0 : sign | LARGEST_HALF;
  const e = exponent - 127 + 15;
  if (e >= 31) return sign | LARGEST_HALF;
  if (e <= 0) {
    // A subnormal half (or zero): the implicit bit shifted in.
    if (e < -10) return sign;
    mantissa |= 0x800000;
    const shift = 14 - e;
    const rest = mantissa & ((1 << shift) - 1);
    const halfway = 1 << (shift - 1);
    let h = mantissa >>> shift;
    if (rest > halfway || (rest === halfway && h & 1)) h++;
    return sign | h;
  }
  const rest = mantissa & 0x1fff;
  let h = (e << 10) | (mantissa >>> 13);
  // Rounding up may carry into the exponent, which is the next half float.
  if (rest > 0x1000 || (rest === 0x1000 && h & 1)) h++;
  return sign | Math.min(h, LARGEST_HALF);
}

/** Two numbers as one word: `low` in bits 0–15, `high` in 16–31 (pack2x16float's order). */
export function packHalves(low: number, high: number): number {
  return (halfBits(low) | (halfBits(high) << 16)) >>> 0;
}

/** The value of a half float's bits (±Infinity and NaN where they say so). */
export function halfValue(bits: number): number {
  const exponent = (bits >> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  const value = exponent === 0 ? fraction * 2 ** -24 : exponent === 31 ? (fraction === 0 ? Infinity : NaN) : (1024 + fraction) * 2 ** (exponent - 25);
  return bits & 0x8000 ? -value : value;
}
