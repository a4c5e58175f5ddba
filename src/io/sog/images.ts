/**
 * Reading the images a SOG meta.json names, bounded by what meta.json's
 * count can need: each is refused, before it is read or inflated, when it
 * is larger than such an image can take as WebP (webpByteBound) or than
 * limits.maxBytes, and its header's size is checked against the count
 * before it is decoded. A per-splat image has at most 4 × count + 2^20
 * pixels (perSplatCheck); the SH centroids at most 960 × 1024. DOM-free.
 */
import { SplatFormatError } from '../format-error';
import { checkByteCount, type LoadLimits } from '../load-limits';
import { decodeWebp, type DecodedWebp } from '../webp-decode';
import { readWebpSize, webpByteBound, type WebpSize } from '../webp-header';
import { MAX_PALETTE, PALETTE_ROW } from './meta';

/** The most bytes an image file may hold, and the error for one that holds more. */
export interface EntryBound {
  maxBytes: number;
  /** Throws the error for a file `name` of `bytes` bytes (more than maxBytes). */
  refuse: (name: string, bytes: number) => never;
}

/**
 * The bound for a WebP image of at most `pixels` pixels (`why` says where
 * that number comes from): what such an image can take (webpByteBound), and
 * no more than limits.maxBytes.
 */
export function imageBound(pixels: number, why: string, limits: LoadLimits): EntryBound {
  const most = webpByteBound(pixels);
  return {
    maxBytes: Math.min(most, limits.maxBytes),
    refuse: (name, bytes) => {
      // The count's bound names the cause when it is the one passed; else the device's.
      if (bytes <= most) checkByteCount(bytes, limits, `'${name}'`);
      throw new SplatFormatError(
        `'${name}' is ${bytes.toLocaleString('en-US')} bytes: more than the ${most.toLocaleString('en-US')} ` +
        `that a WebP image of ${why} can take`,
      );
    },
  };
}

export type BoundedReader = (name: string, bound: EntryBound) => Promise<Uint8Array>;

/** Reads an image named in meta.json, checks its header against the count, then decodes it. */
export async function loadImage(
  name: string,
  readEntry: BoundedReader,
  bound: EntryBound,
  check: (width: number, height: number) => void,
): Promise<DecodedWebp> {
  let bytes: Uint8Array;
  try {
    bytes = await readEntry(name, bound);
  } catch (err) {
    if (err instanceof SplatFormatError) throw err;
    throw new SplatFormatError(`Could not read '${name}', which meta.json names: ${(err as Error).message}`);
  }
  if (!(bytes instanceof Uint8Array)) {
    throw new SplatFormatError(`Could not read '${name}', which meta.json names: the reader returned no bytes`);
  }
  if (bytes.length > bound.maxBytes) bound.refuse(name, bytes.length);
  let size: WebpSize;
  try {
    size = readWebpSize(bytes);
  } catch (err) {
    throw new SplatFormatError(`'${name}' is ${(err as Error).message}`);
  }
  // Sizes are checked before decoding: a count the images cannot hold is
  // caught without decoding anything, and no forged header gets a decode of
  // a huge image.
  check(size.width, size.height);
  try {
    return await decodeWebp(bytes);
  } catch (err) {
    if (!(err instanceof SplatFormatError)) throw err;
    throw new SplatFormatError(`'${name}': ${err.message}`);
  }
}

/** The most pixels a per-splat image of `count` splats may have (perSplatCheck). */
export const perSplatPixels = (count: number): number => 4 * count + 2 ** 20;
/** The largest SH centroids image: 64 entries of 15 coefficients a row, 1024 rows (65,536 entries). */
export const MAX_CENTROID_PIXELS = PALETTE_ROW * 15 * (MAX_PALETTE / PALETTE_ROW);

/** A per-splat image must have a pixel for every splat, and not absurdly more. */
export function perSplatCheck(name: string, count: number): (width: number, height: number) => void {
  return (width, height) => {
    const pixels = width * height;
    if (pixels < count) {
      throw new SplatFormatError(
        `'${name}' is ${width}×${height} = ${pixels} pixels, too small for meta.json's count of ${count} splats`,
      );
    }
    // Writers pad to a multiple of 4 or to a power of two on each side, so
    // at most about 4× the count; more means the header or the count lies.
    if (pixels > perSplatPixels(count)) {
      throw new SplatFormatError(
        `'${name}' is ${width}×${height} = ${pixels} pixels, far more than meta.json's count of ${count} splats needs`,
      );
    }
  };
}
