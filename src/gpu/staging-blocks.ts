/**
 * Writes to GPU buffers that never hold the calling thread: bytes are
 * copied into a mapped staging buffer (a block), and the block's copies to
 * their buffers are submitted at once; the block comes back mapped, for
 * the next writes, once the GPU has copied from it (mapAsync).
 *
 * Why not queue.writeBuffer: its bytes travel in the command stream, and
 * in Chromium a write larger than the stream's free room holds the calling
 * thread until the GPU process has read everything before it. A world's
 * chunk pages written so (8 MiB a frame) held the page's main thread for
 * 26-28 s in one frame while SwiftShader drew the frame before
 * (scripts/page-main-thread.mjs on a published 9.9M-splat world; 55 s of
 * the path's profile inside writeBuffer). A block's bytes go through
 * memory the GPU process maps instead; while every block is in flight,
 * the next write waits (block() resolves later), on a promise, not on the
 * thread: how far uploads may run ahead of the GPU is the blocks' count.
 *
 * Batched (a world's pool), the blocks submitted are sent together, in one
 * command buffer and one submit, by the next `flush`: a world's frame
 * flushes before it records, and a task queued with the first block
 * flushes where no frame comes. A world writes a frame's pages (4 MiB) a
 * block a page, each with a submit of its own: 0.2 ms a frame of the
 * world benchmark's frames' thread on the H200's host went to those
 * submits (docs/benchmarks.md, "The pool's mask pass in the frame's
 * encoder").
 *
 * DOM-free: the page, the Node tools and the tests use it alike.
 */

/** A place to write buffer contents: the queue itself (queueWrites) or a staging block. */
export interface BufferWrites {
  /** Writes `count` elements of `data`, from element `from`, to `buffer` at byte `offset` (all multiples of 4 bytes). */
  write(buffer: GPUBuffer, offset: number, data: Float32Array<ArrayBuffer> | Uint32Array<ArrayBuffer>, from: number, count: number): void;
}

/** Writes straight through the queue (queue.writeBuffer): for writes made once, where nothing is drawn yet. */
export const queueWrites = (device: GPUDevice): BufferWrites => ({
  write: (buffer, offset, data, from, count) => device.queue.writeBuffer(buffer, offset, data, from, count),
});

interface Copy {
  target: GPUBuffer;
  offset: number;
  from: number;
  bytes: number;
}

/** One staging buffer, mapped for writing while it is taken (StagingBlocks.block). */
export class StagingBlock implements BufferWrites {
  private used = 0;
  private readonly copies: Copy[] = [];
  /** Taken by a caller (StagingBlocks.block) and not yet submitted. */
  taken = true;

  constructor(
    private readonly owner: StagingBlocks,
    readonly buffer: GPUBuffer,
    private mapped: ArrayBuffer,
  ) {}

  /** Bytes still free in the block. */
  get room(): number {
    return this.buffer.size - this.used;
  }

  write(target: GPUBuffer, offset: number, data: Float32Array<ArrayBuffer> | Uint32Array<ArrayBuffer>, from: number, count: number): void {
    if (!this.taken) throw new Error('StagingBlock.write: the block was submitted; take another (StagingBlocks.block)');
    const bytes = count * 4;
    if (bytes > this.room) throw new RangeError(`StagingBlock: ${bytes} bytes do not fit the ${this.room} left of ${this.buffer.size}`);
    if (bytes === 0) return;
    new Uint8Array(this.mapped, this.used, bytes).set(new Uint8Array(data.buffer, data.byteOffset + from * 4, bytes));
    this.copies.push({ target, offset, from: this.used, bytes });
    this.used += bytes;
  }

  /**
   * Sends what was written: the block is unmapped, its copies submitted in
   * one command buffer, and it is mapped again to come back once the GPU
   * has done. A block with nothing written comes back at once.
   */
  submit(): void {
    if (!this.taken) throw new Error('StagingBlock.submit: the block was submitted already');
    this.taken = false;
    this.owner.submitted(this, this.copies);
  }

  /** Back from the GPU (StagingBlocks only): nothing written, `mapped` its range where it was mapped again. */
  reset(mapped: ArrayBuffer | null): void {
    this.copies.length = 0;
    this.used = 0;
    if (mapped) this.mapped = mapped;
  }
}

export class StagingBlocks {
  private readonly free: StagingBlock[] = [];
  private readonly all: StagingBlock[] = [];
  private readonly waiting: { take: (block: StagingBlock) => void; refuse: (why: unknown) => void }[] = [];
  private closed: unknown = null;

  /** Blocks submitted whose copies wait for the next flush (batched), with their copies. */
  private readonly ready: StagingBlock[] = [];
  private readonly readyCopies: (readonly Copy[])[] = [];

  /** At most `maxBlocks` blocks of `blockBytes` (a multiple of 4), made as they are first needed; `batched`: their copies sent at each flush. */
  constructor(
    private readonly device: GPUDevice,
    readonly blockBytes: number,
    readonly maxBlocks: number,
    private readonly label = 'StagingBlocks',
    private readonly batched = false,
  ) {
    if (blockBytes <= 0 || blockBytes % 4 !== 0) throw new RangeError(`StagingBlocks: a block's bytes must be a positive multiple of 4, got ${blockBytes}`);
    if (!Number.isInteger(maxBlocks) || maxBlocks < 1) throw new RangeError(`StagingBlocks: at least one block, got ${maxBlocks}`);
  }

  /** Blocks made so far (their GPU memory: made × blockBytes). */
  get made(): number {
    return this.all.length;
  }

  /** Resolves with a block mapped for writing: at once while one is free or more may be made, else when the GPU gives one back. */
  block(): Promise<StagingBlock> {
    if (this.closed !== null) return Promise.reject(this.closed);
    const free = this.free.pop();
    if (free) {
      free.taken = true;
      return Promise.resolve(free);
    }
    if (this.all.length < this.maxBlocks) {
      const buffer = this.device.createBuffer({ label: `${this.label}[${this.all.length}]`, size: this.blockBytes, usage: GPUBufferUsage.MAP_WRITE | GPUBufferUsage.COPY_SRC, mappedAtCreation: true });
      const made = new StagingBlock(this, buffer, buffer.getMappedRange());
      this.all.push(made);
      return Promise.resolve(made);
    }
    // Every block is out: those submitted and not yet sent go now, or none would come back.
    this.flush();
    return new Promise((take, refuse) => this.waiting.push({ take, refuse }));
  }

  /** StagingBlock.submit's work: the copies sent now, or (batched) with the others at the next flush. */
  submitted(block: StagingBlock, copies: readonly Copy[]): void {
    if (this.closed !== null) return;
    if (copies.length === 0) return this.giveBack(block, null);
    block.buffer.unmap();
    this.ready.push(block);
    this.readyCopies.push(copies);
    if (!this.batched) return this.flush();
    if (this.ready.length === 1) setTimeout(this.flush, 0);
  }

  /** Sends the copies of every block submitted and not yet sent, in one command buffer; each block comes back once the GPU has done. */
  readonly flush = (): void => {
    const ready = this.ready;
    if (this.closed !== null || ready.length === 0) return;
    const encoder = this.device.createCommandEncoder({ label: `${this.label}.copies` });
    for (let b = 0; b < ready.length; b++) {
      for (const c of this.readyCopies[b]!) encoder.copyBufferToBuffer(ready[b]!.buffer, c.from, c.target, c.offset, c.bytes);
    }
    this.device.queue.submit([encoder.finish()]);
    for (const block of ready) {
      block.buffer.mapAsync(GPUMapMode.WRITE).then(
        () => {
          if (this.closed === null) this.giveBack(block, block.buffer.getMappedRange());
        },
        // Destroyed (closed) or the device lost: the block is not given back, and its waiters wait for the close.
        () => {},
      );
    }
    ready.length = 0;
    this.readyCopies.length = 0;
  };

  /** Destroys every block; whoever waits for one is refused with `why`. */
  close(why: unknown = new DOMException('the staging blocks were closed', 'AbortError')): void {
    if (this.closed !== null) return;
    this.closed = why;
    for (const w of this.waiting.splice(0)) w.refuse(why);
    this.ready.length = 0;
    this.readyCopies.length = 0;
    for (const block of this.all) block.buffer.destroy();
    this.free.length = 0;
  }

  private giveBack(block: StagingBlock, mapped: ArrayBuffer | null): void {
    block.reset(mapped);
    const next = this.waiting.shift();
    if (next) {
      block.taken = true;
      next.take(block);
    } else this.free.push(block);
  }
}
