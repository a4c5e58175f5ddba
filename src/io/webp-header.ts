/**
 * The WebP container's header, read without decoding the image: its size
 * and kind, and the most bytes an image of a given size can take. Lets a
 * reader refuse an image before paying for its decode (webp-decode.ts) or
 * reading it all. DOM-free.
 *
 * WebP container, as far as this file reads it (all little endian):
 * "RIFF", uint32 size, "WEBP", then the first chunk: fourcc, uint32 size,
 * payload. The image size is in that payload:
 * - "VP8L" (lossless): signature byte 0x2f, then a uint32 whose bits 0..13
 *   are width − 1 and bits 14..27 height − 1;
 * - "VP8X" (extended): flags byte (bit 1: animation), 3 reserved bytes, then
 *   24-bit width − 1 and 24-bit height − 1;
 * - "VP8 " (lossy): 3-byte frame tag, start code 9d 01 2a, then 16-bit
 *   width and height whose low 14 bits are the size.
 */
import { SplatFormatError } from './format-error';

export type WebpKind = 'lossless' | 'lossy' | 'extended';

export interface WebpSize {
  width: number;
  height: number;
  kind: WebpKind;
}

/** The most pixels along either side that a WebP image can have. */
export const WEBP_MAX_DIMENSION = 16383;

/**
 * The most bytes a WebP image of `pixels` pixels takes when an encoder made
 * it (lets a reader refuse a file, or a zip entry, before reading it all).
 * Lossless (VP8L), which SOG uses, is the largest: its pixels are entropy
 * coded with prefix codes built from the image's own histogram, which on
 * average are never longer than the flat 8-bit code each ARGB channel could
 * have, so at most 4 bytes a pixel; each transform image (predictor,
 * cross-colour: one pixel per block of at least 4×4) adds at most 1/16 of
 * that, 2 × 4/16 = 0.5 bytes a pixel in all; headers, the colour-index
 * palette (≤ 256 pixels) and the prefix-code tables fit in 64 KiB. Lossy VP8
 * (1.5 bytes a pixel of 4:2:0 samples, plus an alpha plane) is smaller.
 * So 4.5 bytes a pixel + 64 KiB: a little over 4 bytes a pixel.
 */
export function webpByteBound(pixels: number): number {
  return Math.ceil(4.5 * pixels) + 64 * 1024;
}

function fourcc(bytes: Uint8Array, at: number): string {
  return String.fromCharCode(bytes[at]!, bytes[at + 1]!, bytes[at + 2]!, bytes[at + 3]!);
}

function describeStart(bytes: Uint8Array): string {
  if (bytes.length === 0) return 'it is empty';
  const head = Array.from(bytes.subarray(0, 4), (b) => b.toString(16).padStart(2, '0')).join(' ');
  return `it starts with bytes ${head}`;
}

/**
 * Width, height and kind of a WebP image, from its header alone. Throws
 * SplatFormatError when the bytes are not a WebP image or the header is cut
 * short; the message is a phrase ("not a WebP image: …", "a truncated WebP
 * image: …") that reads on after a file name and "is".
 */
export function readWebpSize(bytes: Uint8Array): WebpSize {
  if (bytes.length < 12 || fourcc(bytes, 0) !== 'RIFF' || fourcc(bytes, 8) !== 'WEBP') {
    if (bytes.length >= 4 && bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47) {
      throw new SplatFormatError('not a WebP image but a PNG; only WebP images are supported');
    }
    throw new SplatFormatError(`not a WebP image: it does not start with 'RIFF....WEBP' (${describeStart(bytes)})`);
  }
  if (bytes.length < 30) {
    throw new SplatFormatError(`a truncated WebP image: ${bytes.length} bytes, too short for its header`);
  }
  const chunk = fourcc(bytes, 12);
  const p = 20; // first chunk payload
  let size: WebpSize;
  if (chunk === 'VP8L') {
    if (bytes[p] !== 0x2f) throw new SplatFormatError('a damaged WebP image: its lossless header lacks the 0x2f signature');
    const bits = (bytes[p + 1]! | (bytes[p + 2]! << 8) | (bytes[p + 3]! << 16) | (bytes[p + 4]! << 24)) >>> 0;
    size = { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1, kind: 'lossless' };
  } else if (chunk === 'VP8X') {
    if (bytes[p]! & 0x02) throw new SplatFormatError('an animated WebP image, which is not supported');
    const width = (bytes[p + 4]! | (bytes[p + 5]! << 8) | (bytes[p + 6]! << 16)) + 1;
    const height = (bytes[p + 7]! | (bytes[p + 8]! << 8) | (bytes[p + 9]! << 16)) + 1;
    size = { width, height, kind: 'extended' };
  } else if (chunk === 'VP8 ') {
    if (bytes[p + 3] !== 0x9d || bytes[p + 4] !== 0x01 || bytes[p + 5] !== 0x2a) {
      throw new SplatFormatError('a damaged WebP image: its lossy header lacks the VP8 start code');
    }
    const width = (bytes[p + 6]! | (bytes[p + 7]! << 8)) & 0x3fff;
    const height = (bytes[p + 8]! | (bytes[p + 9]! << 8)) & 0x3fff;
    size = { width, height, kind: 'lossy' };
  } else {
    throw new SplatFormatError(`a WebP image whose first chunk '${chunk}' is unknown (expected VP8L, VP8X or VP8)`);
  }
  if (size.width < 1 || size.height < 1 || size.width > WEBP_MAX_DIMENSION || size.height > WEBP_MAX_DIMENSION) {
    throw new SplatFormatError(`a WebP image of impossible size ${size.width}×${size.height}`);
  }
  return size;
}
