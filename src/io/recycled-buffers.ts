/**
 * A world's chunk buffers, given back to the worker that packs chunks
 * once their splats are on the GPU, for the next chunks to be packed into.
 * Each chunk's packed arrays (17 MB for 256K splats at SH degree 3) cross
 * to the main thread and were dropped there once written to the GPU: as
 * V8 external memory they pressed the main thread into full collections
 * of its own (7 over 80 such chunks, Node, on this project's probe),
 * and the worker allocated new ones for every chunk. Transferred back,
 * they leave the main thread's heap at once and are filled again. DOM-free.
 */

/**
 * Buffers kept a worker: enough for the records and SH of two chunks in
 * flight, so a worker never holds more than two chunks' worth idle.
 */
export const RECYCLED_BUFFERS = 4;

export class RecycledBuffers {
  private readonly kept: ArrayBuffer[] = [];

  constructor(private readonly most = RECYCLED_BUFFERS) {}

  /** Keeps `buffer` for a later packing; past `most`, the smallest kept is dropped (a larger one serves more chunks). */
  give(buffer: ArrayBuffer): void {
    if (buffer.byteLength === 0) return;
    this.kept.push(buffer);
    if (this.kept.length <= this.most) return;
    let smallest = 0;
    for (let i = 1; i < this.kept.length; i++) if (this.kept[i]!.byteLength < this.kept[smallest]!.byteLength) smallest = i;
    this.kept.splice(smallest, 1);
  }

  /** The smallest kept buffer of at least `bytes`, no longer kept; null where none is large enough. */
  take(bytes: number): ArrayBuffer | null {
    let best = -1;
    for (let i = 0; i < this.kept.length; i++) {
      const size = this.kept[i]!.byteLength;
      if (size >= bytes && (best < 0 || size < this.kept[best]!.byteLength)) best = i;
    }
    return best < 0 ? null : this.kept.splice(best, 1)[0]!;
  }

  /** Buffers kept, and their bytes. */
  get count(): number {
    return this.kept.length;
  }

  get bytes(): number {
    return this.kept.reduce((sum, b) => sum + b.byteLength, 0);
  }
}
