/**
 * What a load may cost: the most splats the renderer of this device can
 * hold, per SH degree, and the most bytes the loader may hold for one file
 * (a gathered file, a decompressed stream, a zip entry). Every decoder gets
 * these before it allocates or inflates anything, so a file that lies about
 * its size, a stream that never ends or a decompression bomb is refused as
 * soon as it passes what a real scene of this device could be, with a
 * SplatLimitError that says which limit it passed. DOM-free: the limits are
 * plain data, computed on the main thread from the device (loadLimitsFor in
 * src/render/renderer-limits.ts, where the renderer's buffers are known)
 * and sent to the load worker.
 */
import type { ShDegree } from '../scene/splat-cloud';
import { SplatFormatError } from './format-error';

export interface LoadLimits {
  /** The most splats of SH degree 0, 1, 2 and 3 the renderer can hold. */
  maxSplats: readonly [number, number, number, number];
  /** The most bytes held for one file, or one stream or entry decompressed from it. */
  maxBytes: number;
}

/**
 * Bytes per splat of the largest format a scene of each SH degree can come
 * in: an INRIA PLY row of float32s (x y z, nx ny nz, 3 f_dc, 3K f_rest,
 * opacity, 3 scales, 4 rotation). Every other format packs a splat tighter.
 */
export const PLY_ROW_BYTES: readonly [number, number, number, number] = [68, 104, 164, 248];
/** Room for headers, tables and the elements a PLY may carry beside its vertices. */
export const HEADER_SLACK_BYTES = 16 * 2 ** 20;

/**
 * The limits when a caller names none: those of the WebGPU default storage
 * buffer binding size (128 MiB), which every device offers. They are
 * loadLimitsFor(128 MiB) written out, since the loader sits below the
 * renderer that decides them (tests/unit/load-bounds.test.ts holds the two
 * equal): 4.2M splats of SH degree 0 or 1, 2.1M of degree 2 or 3, and the
 * PLY of 2.1M degree-3 splats plus HEADER_SLACK_BYTES.
 */
export const DEFAULT_LOAD_LIMITS: LoadLimits = {
  maxSplats: [4_194_304, 4_194_304, 2_097_152, 2_097_152],
  maxBytes: 536_870_912,
};

/** A file that would need more than the limits allow: a size, count or stream past what this device can show. */
export class SplatLimitError extends SplatFormatError {
  constructor(message: string) {
    super(message);
    this.name = 'SplatLimitError';
  }
}

const count = (n: number) => n.toLocaleString('en-US');
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(bytes < 10 * 2 ** 20 ? 1 : 0)} MiB`;

/**
 * Throws SplatLimitError when `splats` splats of `shDegree` are more than
 * the renderer can hold. `what` names where the number comes from ("the PLY
 * header declares", "the stream has delivered").
 */
export function checkSplatCount(splats: number, shDegree: ShDegree, limits: LoadLimits, what: string): void {
  const max = limits.maxSplats[shDegree];
  if (splats > max) {
    throw new SplatLimitError(
      `${what} ${count(splats)} splats of SH degree ${shDegree}: more than the ${count(max)} this GPU can draw`,
    );
  }
}

/**
 * Throws SplatLimitError when `bytes` is more than the loader may hold for
 * one file. `what` names the bytes ("the file", "the gzip stream"); for a
 * stream still arriving, `bytes` is what has arrived so far.
 */
export function checkByteCount(bytes: number, limits: LoadLimits, what: string): void {
  if (bytes > limits.maxBytes) {
    throw new SplatLimitError(
      `${what} is ${mib(bytes)}: more than the ${mib(limits.maxBytes)} that the largest scene this GPU can draw takes`,
    );
  }
}

/**
 * `new Uint8Array(bytes)` that reports a failed
 * allocation as a SplatLimitError naming what it was for, instead of the
 * engine's bare "Array buffer allocation failed".
 */
export function allocateBytes(bytes: number, what: string): Uint8Array {
  try {
    return new Uint8Array(bytes);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw new SplatLimitError(`Could not allocate ${mib(bytes)} for ${what}: ${(error as Error).message}`);
  }
}
