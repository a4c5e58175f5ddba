/**
 * Exact WebP decoding to RGBA8, for images that carry data rather than
 * pictures (SOG scenes store quantised splat attributes in lossless WebP).
 * DOM-free: runs in a module Web Worker and in Node.
 *
 * The decoder is libwebp compiled to WebAssembly (@jsquash/webp). Canvas or
 * createImageBitmap are not used on purpose: browsers may premultiply alpha
 * or colour-manage what they decode, which would change the stored bytes.
 *
 * The container's header is read by webp-header.ts: callers check an image's
 * size before paying for its decode (and the allocation a forged header
 * could ask for).
 */
import decodeWithLibwebp, { init as initLibwebp } from '@jsquash/webp/decode.js';
// In the browser the wasm is fetched from the URL vite gives its emitted copy
// (dev server and build alike), independent of where dependency
// pre-bundling puts the JavaScript.
import wasmUrl from '@jsquash/webp/codec/dec/webp_dec.wasm?url';
import { SplatFormatError } from './format-error';
import { readWebpSize } from './webp-header';

export interface DecodedWebp {
  width: number;
  height: number;
  /** width × height × 4 bytes, RGBA, not premultiplied, row-major from the top left. */
  data: Uint8Array;
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
