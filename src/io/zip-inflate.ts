/**
 * Inflating a zip entry at a cost bounded by the size its archive states
 * (zip-directory.ts reads that size). Inflating is fflate's streaming
 * Inflate fed in small slices into a buffer of the stated size, and it stops
 * at the first slice whose output passes that size: fflate's inflateSync
 * with a preallocated `out` goes on inflating past a short buffer (it grows
 * a copy), so a deflate bomb behind a small stated size would cost its
 * whole inflation. DOM-free.
 */
import { Inflate } from 'fflate';
import { allocateBytes } from './load-limits';
import { SplatFormatError } from './format-error';

/**
 * The most bytes deflate can expand one compressed byte to: a 258-byte
 * match coded in 2 bits is about 1032:1. A stated size beyond that of its
 * compressed size is damaged or forged.
 */
export const MAX_DEFLATE_RATIO = 1032;

/**
 * Compressed bytes per push into the inflater. Deflate expands at most
 * about 1032:1, so one push yields at most ~4 MiB (in a buffer fflate
 * doubles to at most 8 MiB) before the size check can stop it; real
 * entries pay a few copies of fflate's 32 KiB window per slice.
 */
const INFLATE_SLICE = 4 * 1024;

/**
 * Inflates a raw deflate stream that must come to exactly `size` bytes:
 * allocates `size` once and stops as soon as the output would pass it.
 * `what` names the entry in messages (SplatFormatError).
 */
export function inflateExactly(compressed: Uint8Array, size: number, what: string): Uint8Array {
  const out = allocateBytes(size, what);
  let at = 0;
  const inflate = new Inflate((chunk) => {
    if (at + chunk.length > size) {
      throw new SplatFormatError(`${what} inflates to more than the ${size.toLocaleString('en-US')} bytes its zip header states: the archive is damaged or forged`);
    }
    out.set(chunk, at);
    at += chunk.length;
  });
  try {
    let p = 0;
    do {
      const end = Math.min(compressed.length, p + INFLATE_SLICE);
      inflate.push(compressed.subarray(p, end), end === compressed.length);
      p = end;
    } while (p < compressed.length);
  } catch (err) {
    if (err instanceof SplatFormatError) throw err;
    throw new SplatFormatError(`${what} could not be inflated (truncated or damaged?): ${(err as Error).message}`);
  }
  if (at !== size) {
    throw new SplatFormatError(`${what} inflated to ${at.toLocaleString('en-US')} bytes instead of the ${size.toLocaleString('en-US')} its zip header states: the archive is truncated or damaged`);
  }
  return out;
}
