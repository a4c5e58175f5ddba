/**
 * What a load may cost on this device (src/io/load-limits.ts says how the
 * loader uses it): the renderer's buffers decide how many splats fit, and
 * the machine's memory how many a load may hold, so the limits are
 * computed here, where the scene's chunk layout and the projector's record
 * size are both known, and handed down to the loader as plain data.
 */
import { chunkLayout, storageBufferLimit } from '../scene/gpu-splats';
import { shCoefficients, type ShDegree } from '../scene/splat-cloud';
import { SPLAT } from '../scene/splat-layouts';
import { boundByMemory, DEFAULT_HOST_MEMORY_BYTES, HEADER_SLACK_BYTES, PLY_ROW_BYTES, type HeldBytesPerSplat, type LoadLimits } from '../io/load-limits';
import { GpuRadixSort } from '../sort/gpu-radix-sort';
import { PROJECTED_SPLAT } from './frame-layouts';

/**
 * Copies of the decoded splats (SplatCloud floats) a load holds on the CPU
 * at its peak, per splat: the decoder's arrays growing by doubling (old and
 * new alive at once: up to 3× the splats), the worker's copies of each
 * preview range, the page's preview store growing the same way. Measured
 * by pushing an endless .splat and a 513k-splat SH-3 PLY through
 * loadSplatStream with the preview sender and store in one Node process
 * (peak of process.memoryUsage().arrayBuffers over the splats): 198 bytes
 * a splat at SH 0 (3.5 × its 56 bytes of floats), 575 at SH 3 (2.4 × 236).
 */
const CPU_COPIES = 3.5;
/**
 * Copies of a splat's GPU data (its scene record and SH, its projected
 * record, its sort key and value in two buffers each): a preview's scene
 * is uploaded while the one before it is still alive, and so is the
 * whole scene while the last preview shows. On a software GPU
 * (SwiftShader) and in the browser's staging, these are the machine's
 * memory too.
 */
const GPU_COPIES = 2;
/** Sort keys and values, each in two buffers (the radix sort's ping-pong). */
const SORT_BYTES_PER_SPLAT = 4 * 4;

/**
 * Bytes a load holds per splat at its peak, by SH degree (420 at SH 0,
 * 1,410 at SH 3): what the machine's memory is divided by.
 */
export function heldBytesPerSplat(): HeldBytesPerSplat {
  return ([0, 1, 2, 3] as const).map((d) => {
    const shBytes = 3 * shCoefficients(d) * 4;
    const decoded = (3 + 3 + 4 + 1 + 3) * 4 + shBytes;
    const gpu = SPLAT.size + shBytes + PROJECTED_SPLAT.size + SORT_BYTES_PER_SPLAT;
    return Math.ceil(CPU_COPIES * decoded + GPU_COPIES * gpu);
  }) as unknown as HeldBytesPerSplat;
}

/**
 * The limits of a renderer whose storage buffers hold `storageBufferBytes`
 * each (storageBufferLimit(device) in src/scene/gpu-splats.ts): the scene's
 * chunked layout and the projector's one record buffer (a ProjectedSplat
 * per splat) decide how many splats fit, and the largest file of that many
 * splats bounds the bytes.
 */
export function loadLimitsFor(storageBufferBytes: number): LoadLimits {
  const degrees: ShDegree[] = [0, 1, 2, 3];
  const records = Math.floor(storageBufferBytes / PROJECTED_SPLAT.size);
  const maxSplats = degrees.map((d) => Math.min(chunkLayout(0, d, storageBufferBytes).maxSplats, records)) as [number, number, number, number];
  const maxBytes = Math.max(...degrees.map((d) => maxSplats[d] * PLY_ROW_BYTES[d])) + HEADER_SLACK_BYTES;
  return { maxSplats, maxBytes };
}

/**
 * The load limits of `device` on a machine of `hostMemoryBytes`: what its
 * storage buffers let the renderer draw, and what that memory lets a load
 * hold (the page passes navigator.deviceMemory where the browser gives
 * it, Node tools os.totalmem()).
 */
export function deviceLoadLimits(device: GPUDevice, hostMemoryBytes = DEFAULT_HOST_MEMORY_BYTES): LoadLimits {
  return boundByMemory(loadLimitsFor(storageBufferLimit(device)), hostMemoryBytes, heldBytesPerSplat());
}

/**
 * The most (tile, splat) pairs the tile renderer can sort in a frame on
 * `device`: what one radix sort holds (a u32 key and a u32 value a pair,
 * each in one storage buffer; 16 bytes a pair with the ping-pong): 2^27
 * pairs, 2 GiB of pair buffers, where buffers hold 2 GiB.
 */
export function maxTilePairs(device: GPUDevice): number {
  return GpuRadixSort.maxCapacity(device);
}

