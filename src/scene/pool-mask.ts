/**
 * The page pool's drawn mask and opacity scales, set on the GPU
 * (shaders/pool_mask.wgsl): the CPU sends the stretches of the pool's
 * splats the frame draws, three words each (first, end, opacity scale),
 * and a pass clears the mask, sets their bits and writes their scale
 * bytes; a frame whose runs are the same but whose opacities moved (levels
 * fading) sends the stretches of the runs fading alone, and the pass
 * writes their scales. Building the mask on the CPU (a bit a splat of the
 * pool: 1.6 MB for the viewer's 13M-splat pool) and writing it whole
 * whenever the runs changed took about 1.5 ms of a frame's main thread in
 * a CPU profile of the Node world benchmark on an H200's host
 * (docs/benchmarks.md, "The world's main thread in the Node benchmark"),
 * and 0.29 ms measured alone in Node on SwiftShader, where this takes
 * 0.09 (bench/pool-frames.ts: 4M of 13M splats drawn, 80 of 800 runs
 * changing a frame). The scales were filled on the CPU and their pages
 * written, 0.4 ms a frame on average in the H200 profile of
 * docs/benchmarks.md ("The world benchmark's path chooses in a worker
 * thread"). The stretches are a few thousand at most (one a page of a
 * drawn run, fewer where neighbouring pages join). The scales of splats
 * no run draws are left as they were: the projector reads a splat's scale
 * only where its bit is set. DOM-free.
 */
import dispatchSource from '../../shaders/dispatch.wgsl?raw';
import poolMaskSource from '../../shaders/pool_mask.wgsl?raw';
import { computePipelineNow } from '../gpu/pipeline-cache';
import { shaderModuleNow } from '../gpu/shader';
import { POOL_MASK_SLOTS, POOL_PIECE, POOL_PIECE_COUNT, POOL_PIECE_WORDS } from './splat-layouts';

const COUNT_WORD = POOL_PIECE_COUNT.word('count');
const SET_MASK_WORD = POOL_PIECE_COUNT.word('set_mask');
const SCALES_AT_WORD = POOL_PIECE_COUNT.word('scales_at');

export class PoolMaskWriter {
  private readonly pipeline: GPUComputePipeline;
  private readonly countBuffer: GPUBuffer;
  private readonly count = new Uint32Array(POOL_PIECE_COUNT.size / 4);
  private piecesBuffer: GPUBuffer;
  private bindGroup: GPUBindGroup;
  /** The last write, until a frame's encoder (or a flush) records it. */
  private pending: { n: number; setMask: boolean } | null = null;

  constructor(
    private readonly device: GPUDevice,
    /** The buffer whose first `words` words are the mask, and the next `scaleWords` the scales (4 bytes a word). */
    private readonly mask: GPUBuffer,
    private readonly words: number,
    private readonly scaleWords: number,
    /** Pieces the first frames may send (more grow the room: a buffer made, the old one destroyed, inside a frame). */
    expectedPieces: number,
    private readonly label = 'PoolMaskWriter',
  ) {
    // The pool is made mid-frame (its first chunk arrives), so its pipeline is made at once.
    const module = shaderModuleNow(device, 'pool_mask.wgsl', `${dispatchSource}\n${poolMaskSource}`);
    this.pipeline = computePipelineNow(device, { label: `${label}.pipeline`, layout: 'auto', compute: { module, entryPoint: 'set_pieces' } });
    this.countBuffer = device.createBuffer({ label: `${label}.count`, size: POOL_PIECE_COUNT.size, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
    this.piecesBuffer = this.makePieces(Math.max(256, expectedPieces));
    this.bindGroup = this.makeBindGroup();
  }

  /**
   * From the next `encode` (or `flush`) on, with `setMask`: the mask holds
   * exactly the bits of pieces [first, end) of the first `n` of `pieces`
   * (POOL_PIECE's words a piece: splat numbers within the pool, each
   * piece's end past its first or empty, none past the mask's bits, no two
   * overlapping), and their splats' scales are the pieces' scales.
   * Without: the mask stays, and only the pieces' scales are written. A
   * write not yet recorded is flushed first: the buffers it reads are
   * about to be overwritten.
   */
  write(pieces: Uint32Array<ArrayBuffer>, n: number, setMask: boolean): void {
    if (POOL_PIECE_WORDS * n > pieces.length) throw new RangeError(`PoolMaskWriter.write: ${n} pieces in ${pieces.length / POOL_PIECE_WORDS}`);
    if (!setMask && n === 0) return;
    this.flush();
    const device = this.device;
    const room = this.piecesBuffer.size / POOL_PIECE.size;
    if (n > room) {
      this.piecesBuffer.destroy();
      this.piecesBuffer = this.makePieces(Math.max(n, 2 * room));
      this.bindGroup = this.makeBindGroup();
    }
    if (n > 0) device.queue.writeBuffer(this.piecesBuffer, 0, pieces, 0, n * POOL_PIECE_WORDS);
    const count = this.count;
    count[COUNT_WORD] = n;
    count[SET_MASK_WORD] = setMask ? 1 : 0;
    count[SCALES_AT_WORD] = this.words;
    device.queue.writeBuffer(this.countBuffer, 0, count);
    this.pending = { n, setMask };
  }

  /** Records the last write's clear and pass into `encoder`, if it has not been recorded yet: a frame's, ahead of the passes that read the mask. */
  encode(encoder: GPUCommandEncoder): void {
    const pending = this.pending;
    if (!pending) return;
    this.pending = null;
    if (pending.setMask) encoder.clearBuffer(this.mask, 0, this.words * 4);
    if (pending.n === 0) return;
    const pass = encoder.beginComputePass({ label: `${this.label}.set` });
    pass.setPipeline(this.pipeline);
    pass.setBindGroup(0, this.bindGroup);
    // A workgroup a piece, in rows within the device's limit on one dimension.
    const x = Math.min(pending.n, this.device.limits.maxComputeWorkgroupsPerDimension);
    pass.dispatchWorkgroups(x, Math.ceil(pending.n / x));
    pass.end();
  }

  /** Submits the last write on its own, if no frame has recorded it: for a reader of the mask outside a frame. */
  flush(): void {
    if (!this.pending) return;
    const encoder = this.device.createCommandEncoder({ label: `${this.label}.set` });
    this.encode(encoder);
    this.device.queue.submit([encoder.finish()]);
  }

  destroy(): void {
    this.piecesBuffer.destroy();
    this.countBuffer.destroy();
  }

  /** Room for `pieces` pieces. */
  private makePieces(pieces: number): GPUBuffer {
    return this.device.createBuffer({ label: `${this.label}.pieces`, size: POOL_PIECE.size * Math.max(1, pieces), usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
  }

  private makeBindGroup(): GPUBindGroup {
    return this.device.createBindGroup({
      label: `${this.label}.bindGroup`,
      layout: this.pipeline.getBindGroupLayout(0),
      entries: POOL_MASK_SLOTS.entries({
        pieces: { buffer: this.piecesBuffer },
        mask: { buffer: this.mask, offset: 0, size: (this.words + this.scaleWords) * 4 },
        piece_count: { buffer: this.countBuffer },
      }),
    });
  }
}
