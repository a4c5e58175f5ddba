/**
 * Room for the bytes that chunks being decoded hold, shared by every chunk
 * of a world decoding at once (its images' pixels and its splats' arrays,
 * sogDecodedBytes), so that what they hold is bounded together and not
 * one by one: a chunk takes what it may hold before its images are read
 * and gives it back once its splats are handed over; one that finds no
 * room waits, in the order they asked, and one that needs more than the
 * whole room is refused. DOM-free.
 *
 * Eight 12 KB WebP-bomb chunks (each within the load limits, images
 * declaring the most pixels their count allows) held 3.3 GB of the page at
 * peak while they decoded side by side; under one room they hold at most
 * what the room allows.
 */
import { SplatLimitError, type LoadLimits } from './load-limits';
import { sogDecodedBytes } from './sog/decode';
import type { ShDegree } from '../scene/splat-cloud';
import { packedBytesPerSplat } from '../scene/splat-packing';

/** Takes `bytes` of room, waiting for it; resolves with what gives it back, rejects with the signal's reason once it aborts. */
export type TakeRoom = (bytes: number, signal?: AbortSignal) => Promise<() => void>;

/**
 * The room of a world's chunks under `limits`: what one chunk at the
 * limits may hold while it decodes (the most splats of the SH degree at
 * which that is largest). No chunk the limits let through is refused for
 * want of room, it is only made to wait; and chunks decoding side by side
 * hold together no more than one such chunk. Under the default limits
 * (4.2M splats of SH degree 2) that is 1,081,081,856 bytes; a chunk of
 * 256K splats of SH degree 3 (the worlds built here) may hold 128 MB, so
 * eight decode side by side, more than the four fetched at once.
 *
 * `packed`: the chunks are also packed where they are decoded (the page's
 * workers, world-files.ts readPacked), at the pool's SH degree, which may
 * be 3 whatever the chunk's: each holds its packed splats beside its
 * decoded ones, up to 156 bytes a splat more (1,735,393,280 bytes under
 * the default limits).
 */
export function decodeRoomFor(limits: LoadLimits, packed = false): number {
  let most = 0;
  for (let degree = 0; degree < 4; degree++) {
    const splats = limits.maxSplats[degree]!;
    most = Math.max(most, sogDecodedBytes(splats, degree as ShDegree) + (packed ? splats * packedBytesPerSplat(3) : 0));
  }
  return most;
}

interface Waiter {
  bytes: number;
  grant: () => void;
}

const count = (n: number): string => n.toLocaleString('en-US');

export class DecodeRoom {
  private used = 0;
  private readonly waiting: Waiter[] = [];

  constructor(readonly capacity: number) {}

  /** Bytes taken now (the tests read it). */
  get inUse(): number {
    return this.used;
  }

  /**
   * Takes `bytes` once they fit beside what is taken (at once when nothing
   * waits before them); the function it resolves with gives them back (once,
   * however often it is called). Rejects with a SplatLimitError when they
   * are more than the whole room, and with the signal's reason once it
   * aborts while waiting.
   */
  readonly take: TakeRoom = (bytes, signal) => {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (bytes > this.capacity) {
      return Promise.reject(new SplatLimitError(
        `decoding it may hold ${count(bytes)} bytes (its images and splats): more than the ${count(this.capacity)} that the chunks decoding at once may hold together`,
      ));
    }
    return new Promise((resolve, reject) => {
      let given = false;
      const giveBack = () => {
        if (given) return;
        given = true;
        this.used -= bytes;
        this.grantWaiting();
      };
      const waiter: Waiter = {
        bytes,
        grant: () => {
          signal?.removeEventListener('abort', abort);
          this.used += bytes;
          resolve(giveBack);
        },
      };
      const abort = () => {
        const at = this.waiting.indexOf(waiter);
        if (at < 0) return;
        this.waiting.splice(at, 1);
        reject(signal!.reason);
        // The head gone, those behind it may fit.
        this.grantWaiting();
      };
      signal?.addEventListener('abort', abort, { once: true });
      this.waiting.push(waiter);
      this.grantWaiting();
    });
  };

  /** Grants the waiting in order while the first fits: a large chunk is not passed for ever by small ones. */
  private grantWaiting(): void {
    while (this.waiting.length > 0 && this.used + this.waiting[0]!.bytes <= this.capacity) this.waiting.shift()!.grant();
  }
}
