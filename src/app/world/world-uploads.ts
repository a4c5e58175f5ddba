/**
 * A world's chunk uploads, paced by frames: each frame lets a number of
 * bytes of chunk pages be written to the GPU (UPLOAD_BYTES_A_FRAME in
 * world-options.ts says why), and the rest wait for the next frames, in
 * the order asked. A page written is the unit, so a frame with room
 * writes at least one whole page. The frames are the session's updates
 * (world-session.ts): a page that draws no frames (hidden) writes nothing
 * until it draws again. Pure and DOM-free.
 */
import type { PooledChunk, SplatPool } from '../../scene/splat-pool';
import type { PoolSplats } from '../../scene/splat-packing';

interface Waiting {
  bytes: number;
  go: () => void;
  stop: (why: unknown) => void;
}

export class UploadPacer {
  /** What this frame may still write. */
  private left: number;
  private readonly waiting: Waiting[] = [];
  private closed: unknown = null;
  /**
   * Milliseconds spent writing pages (copied into staging blocks; their
   * copies go to the GPU at the next frame's flush, in the session's
   * update) since the pacer was made: the world benchmark's measure of
   * what the uploads cost the writing thread.
   */
  writeMs = 0;

  constructor(private readonly bytesAFrame: number) {
    this.left = bytesAFrame;
  }

  /** Resolves when `bytes` may be written: at once while this frame has room and none waits before them. */
  room(bytes: number): Promise<void> {
    if (this.closed !== null) return Promise.reject(this.closed);
    if (this.waiting.length === 0 && this.left > 0) {
      this.left -= bytes;
      return Promise.resolve();
    }
    return new Promise((go, stop) => this.waiting.push({ bytes, go, stop }));
  }

  /** A new frame: its room goes to those waiting, first asked first. */
  nextFrame(): void {
    this.left = this.bytesAFrame;
    const waiting = this.waiting;
    let n = 0;
    while (n < waiting.length && this.left > 0) {
      this.left -= waiting[n]!.bytes;
      waiting[n++]!.go();
    }
    // Shifted in place: nothing allocated a frame.
    if (n === 0) return;
    for (let i = n; i < waiting.length; i++) waiting[i - n] = waiting[i]!;
    waiting.length -= n;
  }

  /**
   * Writes a chunk reserved in `pool` from `splats`, page by page, each once
   * a frame has room for it and a staging block is free (the pool's: so
   * the writing thread never waits for the GPU); gives its pages back when
   * `signal` aborts or the pacer closes first. The chunk is drawn only once
   * this resolves, after its last page's block was submitted: the next
   * frame's update sends the blocks' copies before that frame draws it.
   */
  async write(pool: SplatPool, chunk: PooledChunk, splats: PoolSplats, signal: AbortSignal): Promise<void> {
    try {
      for (let k = 0; k < chunk.pages.length; k++) {
        await this.room(pool.pageBytes(chunk, k));
        signal.throwIfAborted();
        const block = await pool.staging.block();
        const started = performance.now();
        try {
          signal.throwIfAborted();
          pool.writePage(chunk, splats, k, block);
        } finally {
          block.submit();
          this.writeMs += performance.now() - started;
        }
      }
    } catch (error) {
      pool.remove(chunk);
      throw error;
    }
  }

  /** Uploads waiting for a frame. */
  get pending(): number {
    return this.waiting.length;
  }

  /** Refuses everything from now on with `why`, those waiting too. */
  close(why: unknown): void {
    this.closed = why;
    for (const w of this.waiting.splice(0)) w.stop(why);
  }
}
