/**
 * What a load may cost: the most splats this device can hold, per SH
 * degree, and the most bytes the loader may hold for one file (a gathered
 * file, a decompressed stream, a zip entry). Two things bound them: what
 * the renderer's GPU buffers hold, and what the machine's memory can give
 * a load (a share of it, never past a fixed ceiling), whichever is
 * smaller. Every decoder gets these before it allocates or inflates
 * anything, so a file that lies about its size, a stream that never ends
 * or a decompression bomb is refused as soon as it passes what a real
 * scene of this device could be, with a SplatLimitError that says which
 * limit it passed and where that limit comes from. DOM-free: the limits
 * are plain data, computed on the main thread from the device and the
 * memory figure the page or tool hands in (deviceLoadLimits in
 * src/render/renderer-limits.ts, where the renderer's buffers are known)
 * and sent to the load worker.
 */
import type { ShDegree } from '../scene/splat-cloud';
import { SplatFormatError } from './format-error';

export interface LoadLimits {
  /** The most splats of SH degree 0, 1, 2 and 3 a scene may have. */
  maxSplats: readonly [number, number, number, number];
  /** The most bytes held for one file, or one stream or entry decompressed from it. */
  maxBytes: number;
  /**
   * Where the machine's memory bounds the load (boundByMemory): the memory
   * figure, the bytes a load may hold of it, and the splats those bytes
   * allow; a limit above equal to one of these comes from the memory, not
   * the GPU, and its message says so.
   */
  memory?: MemoryBound;
}

export interface MemoryBound {
  /** The machine's memory as the page or tool gave it, in bytes. */
  hostBytes: number;
  /** What a load may hold of it: HOST_MEMORY_SHARE of it, at most MAX_LOAD_HOLD_BYTES. */
  budgetBytes: number;
  /** The most splats of each SH degree those bytes hold while loading (HeldBytesPerSplat). */
  maxSplats: readonly [number, number, number, number];
}

/** Bytes a load holds per splat of SH degree 0..3 at its peak (renderer-limits.ts works them out). */
export type HeldBytesPerSplat = readonly [number, number, number, number];

/**
 * The share of the machine's memory one load may hold. The page, the
 * browser and the system need the rest; Chromium reports at most 8 GiB
 * (navigator.deviceMemory), so on any desktop a load may hold 4 GiB: a
 * 3.0M-splat SH-3 scene or a 10M-splat SH-0 one (HeldBytesPerSplat of
 * 1,410 and 420 bytes). An endless stream on an 8 GiB machine took
 * Chromium to 8.0 GB before this bound.
 */
export const HOST_MEMORY_SHARE = 1 / 2;
/**
 * The most a load holds whatever the memory (a Node tool on a 512 GiB
 * machine): 16 GiB. It holds the largest scene this project draws at all
 * (the big-scene benchmark's 9M SH-3 splats on an H100: 12.7 GB at 1,410
 * bytes a splat); a stream past it is no scene anyone views. In the
 * browser the share of memory binds first (Chromium reports at most 8 GiB).
 */
export const MAX_LOAD_HOLD_BYTES = 16 * 2 ** 30;
/**
 * The memory figure where the browser gives none (navigator.deviceMemory
 * is Chromium's only): Chromium's own most, 8 GiB, so that a browser that
 * does not say is bounded as a desktop Chromium is.
 */
export const DEFAULT_HOST_MEMORY_BYTES = 8 * 2 ** 30;
/**
 * The share of the scene's bound a preview (the scene drawn while it
 * loads) grows to. The final scene may be larger, up to the bound: the
 * preview's copies (the page's growing store of the splats received, its
 * GPU scene, the worker's copies of each range) are dropped when the whole
 * scene arrives, but they are alive while the whole scene is handed over
 * and uploaded; a preview as large as the scene would double that peak. At
 * a quarter they add at most a quarter, and what a preview is for (seeing
 * the scene come) needs no more.
 */
export const PREVIEW_SHARE = 1 / 4;

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
 * equal): 4.2M splats of SH degree 0, 1 or 2, 2.1M of degree 3, and the
 * PLY of 4.2M degree-2 splats plus HEADER_SLACK_BYTES.
 */
export const DEFAULT_LOAD_LIMITS: LoadLimits = {
  maxSplats: [4_194_304, 4_194_304, 4_194_304, 2_097_152],
  maxBytes: 704_643_072,
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
const gib = (bytes: number) => `${+(bytes / 2 ** 30).toFixed(bytes < 10 * 2 ** 30 ? 2 : 0)} GiB`;

/**
 * `limits` (the GPU's) bounded by the machine's memory too: a load may hold
 * HOST_MEMORY_SHARE of `hostBytes`, at most MAX_LOAD_HOLD_BYTES, and holds
 * `heldPerSplat` bytes a splat at its peak; a gathered file's bytes count
 * against the same budget.
 */
export function boundByMemory(limits: LoadLimits, hostBytes: number, heldPerSplat: HeldBytesPerSplat): LoadLimits {
  const budgetBytes = Math.min(Math.floor(hostBytes * HOST_MEMORY_SHARE), MAX_LOAD_HOLD_BYTES);
  const memorySplats = heldPerSplat.map((bytes) => Math.floor(budgetBytes / bytes)) as [number, number, number, number];
  return {
    maxSplats: limits.maxSplats.map((n, d) => Math.min(n, memorySplats[d]!)) as [number, number, number, number],
    maxBytes: Math.min(limits.maxBytes, budgetBytes),
    memory: { hostBytes, budgetBytes, maxSplats: memorySplats },
  };
}

/** The most splats of `shDegree` a preview of a load under `limits` shows (PREVIEW_SHARE of the scene's bound). */
export function previewSplatLimit(limits: LoadLimits, shDegree: ShDegree): number {
  return Math.max(1, Math.floor(limits.maxSplats[shDegree] * PREVIEW_SHARE));
}

/** The bytes a load may hold under `memory`, and from what: "4 GiB a load may hold of this device's memory (8 GiB)". */
function budgetText(memory: MemoryBound): string {
  const capped = memory.budgetBytes < Math.floor(memory.hostBytes * HOST_MEMORY_SHARE);
  return capped
    ? `${gib(memory.budgetBytes)} a load may hold at most, whatever the memory`
    : `${gib(memory.budgetBytes)} a load may hold of this device's memory (${gib(memory.hostBytes)})`;
}

/**
 * Throws SplatLimitError when `splats` splats of `shDegree` are more than
 * the renderer can hold. `what` names where the number comes from ("the PLY
 * header declares", "the stream has delivered").
 */
export function checkSplatCount(splats: number, shDegree: ShDegree, limits: LoadLimits, what: string): void {
  const max = limits.maxSplats[shDegree];
  if (splats > max) {
    const memory = limits.memory?.maxSplats[shDegree] === max ? limits.memory : undefined;
    const bound = memory ? `that fit in the ${budgetText(memory)}` : 'this GPU can draw';
    throw new SplatLimitError(`${what} ${count(splats)} splats of SH degree ${shDegree}: more than the ${count(max)} ${bound}`);
  }
}

/**
 * Throws SplatLimitError when `bytes` is more than the loader may hold for
 * one file. `what` names the bytes ("the file", "the gzip stream"); for a
 * stream still arriving, `bytes` is what has arrived so far.
 */
export function checkByteCount(bytes: number, limits: LoadLimits, what: string): void {
  if (bytes > limits.maxBytes) {
    const memory = limits.memory?.budgetBytes === limits.maxBytes ? limits.memory : undefined;
    const bound = memory ? `the ${budgetText(memory)}` : `the ${mib(limits.maxBytes)} that the largest scene this GPU can draw takes`;
    throw new SplatLimitError(`${what} is ${mib(bytes)}: more than ${bound}`);
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
