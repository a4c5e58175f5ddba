/**
 * Exact WebP decoding to RGBA8, for images that carry data rather than
 * pictures (SOG scenes store quantised splat attributes in lossless WebP).
 * DOM-free: runs in a module Web Worker and in Node.
 *
 * The decoder is libwebp compiled to WebAssembly (@jsquash/webp). Canvas or
 * createImageBitmap are not used on purpose: browsers may premultiply alpha
 * or colour-manage what they decode, which would change the stored bytes.
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
 * Reading the size first lets callers refuse an image before paying for its
 * decode (and the allocation a forged header could ask for).
 */
import decodeWithLibwebp, { init as initLibwebp } from '@jsquash/webp/decode.js';
// In the browser the wasm is fetched from the URL vite gives its emitted copy
// (dev server and build alike), independent of where dependency
// pre-bundling puts the JavaScript.
import wasmUrl from '@jsquash/webp/codec/dec/webp_dec.wasm?url';
import { SplatFormatError } from './format-error';

export interface DecodedWebp {
  width: number;
  height: number;
  /** width × height × 4 bytes, RGBA, not premultiplied, row-major from the top left. */
  data: Uint8Array;
}

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

// ---------------------------------------------------------------------------
// Loading the wasm. The one environment switch: where the wasm bytes come
// from. Node has no fetch for file: URLs, so there they are read from the
// installed package; everywhere else they are fetched from vite's URL.
// Either way they are compiled here and handed to jsquash's init(module),
// which then never goes looking for the file itself.

const isNode = typeof process !== 'undefined' && typeof process.versions?.node === 'string';

async function wasmBytes(): Promise<ArrayBuffer | Uint8Array> {
  if (isNode) {
    // Specifiers in variables: vite leaves these imports alone, so browser
    // builds neither bundle nor stub Node's modules.
    const moduleName = 'node:module';
    const fsName = 'node:fs/promises';
    const { createRequire } = (await import(/* @vite-ignore */ moduleName)) as typeof import('node:module');
    const { readFile } = (await import(/* @vite-ignore */ fsName)) as typeof import('node:fs/promises');
    const path = createRequire(import.meta.url).resolve('@jsquash/webp/codec/dec/webp_dec.wasm');
    return readFile(path);
  }
  const response = await fetch(wasmUrl);
  if (!response.ok) throw new Error(`HTTP ${response.status} for ${wasmUrl}`);
  return response.arrayBuffer();
}

let compiled: Promise<WebAssembly.Module> | undefined;

/** Compiles the decoder once and (re)starts jsquash's instance of it. */
async function startDecoder(fresh: boolean): Promise<void> {
  const first = compiled === undefined;
  if (first) {
    compiled = wasmBytes().then((bytes) => WebAssembly.compile(bytes as BufferSource));
    // A failed load (say, offline) may be retried by the next call.
    compiled.catch(() => { compiled = undefined; });
  }
  let module: WebAssembly.Module;
  try {
    module = await compiled!;
  } catch (err) {
    throw new Error(`The WebP decoder (webp_dec.wasm) could not be loaded: ${(err as Error).message}`);
  }
  // jsquash's .d.ts declares only init(options), but the function also takes
  // a compiled WebAssembly.Module (its README documents this use).
  if (first || fresh) await initLibwebp(module as unknown as Parameters<typeof initLibwebp>[0]);
}

let started: Promise<void> | undefined;

/**
 * Decodes a WebP image to exact RGBA8. Throws SplatFormatError when the bytes
 * are not a WebP image or libwebp cannot decode them; a plain Error when the
 * decoder itself cannot be loaded.
 */
export async function decodeWebp(bytes: Uint8Array): Promise<DecodedWebp> {
  const header = readWebpSize(bytes);
  started ??= startDecoder(false).catch((err: unknown) => {
    started = undefined;
    throw err;
  });
  await started;

  // jsquash takes an ArrayBuffer; a copy also keeps a view into a larger
  // buffer (a stored zip entry) from being read past its end. Not
  // bytes.slice(): on a Node Buffer that is a view, not a copy.
  const input = new Uint8Array(bytes).buffer;
  let image: ImageData;
  try {
    image = await decodeWithLibwebp(input);
  } catch (err) {
    if (err instanceof WebAssembly.RuntimeError) {
      // The wasm aborted (out of memory, say): its instance is unusable, so
      // the next image gets a fresh one.
      started = startDecoder(true);
      started.catch(() => { started = undefined; });
    }
    throw new SplatFormatError(`WebP image could not be decoded by libwebp (${(err as Error).message})`);
  }
  const { width, height, data } = image;
  if (width !== header.width || height !== header.height || data.length !== width * height * 4) {
    throw new SplatFormatError(
      `WebP image decoded to ${width}×${height} pixels (${data.length} bytes), but its header says ${header.width}×${header.height}`,
    );
  }
  return { width, height, data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) };
}
