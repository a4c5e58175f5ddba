/**
 * A world's splats on the GPU (docs/streamed-worlds-design.md, part 4): one
 * scene (GpuSplats) of fixed capacity cut into pages of `pageSplats`
 * splats, which the chunks of a Streamed SOG world rent while resident. A
 * chunk takes the pages its splats need, in any order; giving it back
 * frees them for the next. Each frame draws some runs of some chunks:
 * setDrawn sets their splats' bits in the scene's drawn mask (on the GPU,
 * from the stretches of the pool they cover: pool-mask.ts), and the
 * projector culls every other splat of the pool before reading it (its
 * dispatches run only the tiles that hold a drawn splat: drawn-tiles.ts),
 * so the sort and the renderers see one scene in exact order across chunks
 * and levels, with no copy.
 *
 * Beside the mask, each splat has an opacity scale (a byte, 255: as it
 * is), which the projector multiplies its opacity by: a run drawn with an
 * opacity under 1 (a level fading in or out, src/app/world/world-fades.ts)
 * has its splats' bytes set on the GPU with the mask (pool-mask.ts), and
 * set back to 255 once it is drawn whole again. They follow the mask's
 * words in its buffer (drawnMaskWords: the projector finds them from the
 * scene's count), and the list of drawn tiles follows them
 * (drawnTilesOffset).
 *
 * Why pages and a mask rather than a packed copy of the drawn splats: a
 * copy holds every drawn splat twice (the budget's 4M splats of SH degree
 * 3 are 0.98 GB), and must be redone whenever the choice changes. The
 * mask is a bit a splat (0.5 MB for 4M), and the culled splats cost the
 * projector one word read per 32.
 */
import { GpuSplats, type GpuSplatsOptions } from './gpu-splats';
import type { ShDegree } from './splat-cloud';
import type { PoolSplats } from './splat-packing';
import { PoolMaskWriter } from './pool-mask';
import { POOL_PIECE_WORDS } from './splat-layouts';
import { DrawnTiles } from './drawn-tiles';
import { StagingBlocks, type BufferWrites } from '../gpu/staging-blocks';

export interface SplatPoolOptions extends GpuSplatsOptions {
  /** Splats a page (a power of two; default DEFAULT_PAGE_SPLATS, lowered to a chunk buffer's size). */
  pageSplats?: number;
  /** Bytes of pages on their way to the GPU at most (default STAGING_BYTES; at least one page). */
  stagingBytes?: number;
}

/**
 * Bytes of pages on their way to the GPU at most, in staging blocks of a
 * page each (src/gpu/staging-blocks.ts): a world writes 4 MiB of pages a
 * frame (UPLOAD_BYTES_A_FRAME), so this is four frames' worth, whatever a
 * page holds; a block comes back once the GPU has copied from it, a frame
 * or so later on a GPU that keeps up.
 */
export const STAGING_BYTES = 16 * 2 ** 20;

/** Staging blocks of a page of `pageBytes` that `stagingBytes` allows: at least one. */
export const stagingBlocks = (stagingBytes: number, pageBytes: number): number => Math.max(1, Math.ceil(stagingBytes / pageBytes));

/**
 * 16,384 splats: 4 MB of SH degree 3. A chunk loses under a page to
 * rounding (half a page on average): 8K splats against chunks of 128K-512K.
 */
export const DEFAULT_PAGE_SPLATS = 1 << 14;

/** A chunk in the pool: the pages its splats use, in order. */
export interface PooledChunk {
  /** Splats written (the first `count` of the chunk's cloud). */
  readonly count: number;
  /** Page numbers: splat k of the chunk is at pages[k / pageSplats] * pageSplats + k % pageSplats. */
  readonly pages: readonly number[];
}

/** Splats of a chunk to draw: [offset, offset + count), their opacity scaled by `opacity` (default 1). */
export interface PooledRun {
  chunk: PooledChunk;
  offset: number;
  count: number;
  opacity?: number;
}

/**
 * Words of a pool's drawn mask before its opacity scales: a bit a splat,
 * at least 4 (splat_project.wgsl works out the same from the scene's count).
 */
export function drawnMaskWords(count: number): number {
  return Math.max(4, Math.ceil(count / 32));
}

/**
 * Where the drawn tiles' list starts in the mask's buffer, in bytes: after
 * the mask's words and a scale byte a splat (whole words), on a 256-byte
 * boundary, so the keys dispatch can bind it alone (splat_project.wgsl
 * works out the same from the scene's count).
 */
export function drawnTilesOffset(count: number): number {
  return Math.ceil((4 * (drawnMaskWords(count) + Math.ceil(count / 4))) / 256) * 256;
}

/**
 * A list of runs' places (chunk, offset, count), kept to tell whether the
 * next list is the same. Its arrays only grow, and `n` says how much of
 * them is the list. (Made so in place of lengths set to each frame's
 * count; the sampling heap profile of the world benchmark's path gave
 * setDrawn 1.81 MB before and 1.77 MB after: no change measured.)
 */
class RunList {
  private n = 0;
  private readonly chunks: PooledChunk[] = [];
  // Whole splats, within a chunk.
  private offsets = new Int32Array(256);
  private counts = new Int32Array(256);

  same(runs: readonly PooledRun[], n: number): boolean {
    if (n !== this.n) return false;
    for (let r = 0; r < n; r++) {
      const run = runs[r]!;
      if (run.chunk !== this.chunks[r] || run.offset !== this.offsets[r] || run.count !== this.counts[r]) return false;
    }
    return true;
  }

  keep(runs: readonly PooledRun[], n: number): void {
    if (n > this.offsets.length) {
      this.offsets = new Int32Array(Math.max(n, 2 * this.offsets.length));
      this.counts = new Int32Array(this.offsets.length);
    }
    const { chunks, offsets, counts } = this;
    for (let r = 0; r < n; r++) {
      const run = runs[r]!;
      if (r < chunks.length) chunks[r] = run.chunk;
      else chunks.push(run.chunk);
      offsets[r] = run.offset;
      counts[r] = run.count;
    }
    this.n = n;
  }
}

export class SplatPool {
  /** The scene the projector draws (count = capacity); its drawnMask is this pool's. */
  readonly scene: GpuSplats;
  readonly pageSplats: number;
  readonly pages: number;
  /** Bytes one splat holds (its record and SH). */
  readonly bytesPerSplat: number;
  /** Where pages are written on their way to the GPU: a block a page (writePage's `writes`). */
  readonly staging: StagingBlocks;
  private readonly free: number[];
  private readonly maskBuffer: GPUBuffer;
  /** Sets the mask on the GPU from the stretches of the pool the runs cover. */
  private readonly maskWriter: PoolMaskWriter;
  /** The projector tiles the drawn stretches cover, listed beside the mask. */
  private readonly tiles: DrawnTiles;
  /** Those stretches, [first, end) at a scale (POOL_PIECE_WORDS words each), as the last setDrawn found them. */
  private pieces: Uint32Array<ArrayBuffer> = new Uint32Array(256 * POOL_PIECE_WORDS);
  /** Per run of the last setDrawn, 1 where it was drawn at an opacity under 1 (its scales are set back when it is not). */
  private faded = new Uint8Array(256);
  /** The runs the mask was last built from. */
  private readonly drawnRuns = new RunList();

  /** Room for `capacity` splats (rounded down to whole pages) of SH degree `shDegree`. */
  constructor(
    private readonly device: GPUDevice,
    capacity: number,
    shDegree: ShDegree,
    label = 'SplatPool',
    options: SplatPoolOptions = {},
  ) {
    const scene = new GpuSplats(device, { reserve: Math.max(1, capacity), shDegree }, label, options);
    const pageSplats = Math.min(options.pageSplats ?? DEFAULT_PAGE_SPLATS, scene.layout.chunkSplats);
    if (!Number.isInteger(Math.log2(pageSplats))) throw new RangeError(`SplatPool: pageSplats must be a power of two, got ${pageSplats}`);
    this.pageSplats = pageSplats;
    // Pages never straddle chunk buffers: chunk buffers hold a power of two of splats, pages divide it.
    this.pages = Math.floor(capacity / pageSplats);
    this.bytesPerSplat = scene.layout.bytesPerSplat;
    this.free = Array.from({ length: this.pages }, (_, p) => this.pages - 1 - p);
    const words = drawnMaskWords(scene.count);
    const tilesAt = drawnTilesOffset(scene.count);
    this.maskBuffer = device.createBuffer({
      label: `${label}.drawnMask`,
      size: tilesAt + 4 * DrawnTiles.words(device, scene.count),
      usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC,
    });
    // Room for a piece a page four times over (runs shorter than a page, runs crossing pages): the room grew
    // inside the frames of a world's first choices, and destroying the buffer outgrown took 3.8 ms of two frames'
    // main thread in the page (scripts/page-main-thread.mjs --profile, SwiftShader, a world of 1,024 leaves).
    this.maskWriter = new PoolMaskWriter(device, this.maskBuffer, words, Math.ceil(scene.count / 4), 4 * this.pages, `${label}.mask`);
    const pageBytes = pageSplats * this.bytesPerSplat;
    // Batched: a frame's pages go in one submit, at the next frame's flush (staging-blocks.ts).
    this.staging = new StagingBlocks(device, pageBytes, stagingBlocks(options.stagingBytes ?? STAGING_BYTES, pageBytes), `${label}.staging`, true);
    scene.drawnMask = this.maskBuffer;
    scene.drawnMaskPass = (encoder) => this.maskWriter.encode(encoder);
    scene.drawnTiles = this.tiles = new DrawnTiles(device, scene.count, this.maskBuffer, tilesAt);
    this.scene = scene;
  }

  /** Pages a chunk of `count` splats takes. */
  pagesFor(count: number): number {
    return Math.ceil(count / this.pageSplats);
  }

  get freePages(): number {
    return this.free.length;
  }

  /** The pool's GPU memory: its chunk buffers, mask (with the scales and the tile list) and the staging blocks made so far. */
  get bytes(): number {
    return this.scene.layout.chunks.reduce((sum, c) => sum + c.bytes, 0) + this.maskBuffer.size + this.staging.made * this.staging.blockBytes;
  }

  /**
   * Writes splats 0 .. count - 1 of `splats` (decoded, or packed where they
   * were decoded) into free pages; null when there are not enough (nothing
   * is taken then).
   */
  add(splats: PoolSplats, count = splats.count): PooledChunk | null {
    const chunk = this.reserve(count);
    if (chunk) for (let k = 0; k < chunk.pages.length; k++) this.writePage(chunk, splats, k);
    return chunk;
  }

  /** Takes the free pages for `count` splats, written later page by page (writePage); null when there are not enough. */
  reserve(count: number): PooledChunk | null {
    const n = this.pagesFor(count);
    if (n > this.free.length) return null;
    return { count, pages: this.free.splice(this.free.length - n, n).reverse() };
  }

  /**
   * Writes page `k` of a reserved chunk from `splats` (its splats
   * k · pageSplats on): into `writes`, a block of this pool's staging
   * (a page's bytes fit one), or straight through the queue.
   */
  writePage(chunk: PooledChunk, splats: PoolSplats, k: number, writes?: BufferWrites): void {
    const first = k * this.pageSplats;
    this.scene.writeSplats(this.device, chunk.pages[k]! * this.pageSplats, splats, first, Math.min(this.pageSplats, chunk.count - first), writes);
  }

  /** Bytes page `k` of a chunk writes. */
  pageBytes(chunk: PooledChunk, k: number): number {
    return Math.min(this.pageSplats, chunk.count - k * this.pageSplats) * this.bytesPerSplat;
  }

  /** Gives a chunk's pages back (its splats stay until overwritten; the mask no longer draws them once setDrawn leaves them out). */
  remove(chunk: PooledChunk): void {
    for (let k = chunk.pages.length - 1; k >= 0; k--) this.free.push(chunk.pages[k]!);
  }

  /**
   * Draws exactly the first `n` of `runs` from the next frame on, each at
   * its opacity. Sets the mask (on the GPU, in the next frame's encoder:
   * the projector records it, or `flushMask`) only when the runs changed;
   * while they are the same, sets the opacity scales only of the runs drawn
   * at under 1 now or at the last call. Returns the splats drawn.
   */
  setDrawn(runs: readonly PooledRun[], n = runs.length): number {
    // While fades run, a frame changes the opacities of the same runs: the mask is set only when the runs change.
    const sameRuns = this.drawnRuns.same(runs, n);
    if (n > this.faded.length) this.faded = new Uint8Array(Math.max(n, 2 * this.faded.length));
    const faded = this.faded;
    let pieces = 0;
    let drawn = 0;
    const size = this.pageSplats;
    for (let r = 0; r < n; r++) {
      const { chunk, offset, count, opacity = 1 } = runs[r]!;
      if (offset < 0 || count < 0 || offset + count > chunk.count) {
        throw new RangeError(`SplatPool.setDrawn: run ${offset}+${count} passes its chunk's ${chunk.count} splats`);
      }
      drawn += count;
      const scale = Math.round(255 * Math.min(1, Math.max(0, opacity)));
      if (sameRuns && scale === 255 && !faded[r]) continue;
      faded[r] = scale < 255 ? 1 : 0;
      // Split at page boundaries: each piece is contiguous in the pool.
      for (let k = offset; k < offset + count; ) {
        const page = Math.floor(k / size);
        const end = Math.min(offset + count, (page + 1) * size);
        const at = chunk.pages[page]! * size + (k - page * size);
        pieces = this.addPiece(pieces, at, at + (end - k), scale);
        k = end;
      }
    }
    if (!sameRuns) {
      this.drawnRuns.keep(runs, n);
      this.tiles.set(this.pieces, pieces);
    }
    this.maskWriter.write(this.pieces, pieces, !sameRuns);
    return drawn;
  }

  /** Adds [from, to) at `scale` to the pieces (joined to the last where it goes on from it at the same scale); returns their number. */
  private addPiece(n: number, from: number, to: number, scale: number): number {
    const W = POOL_PIECE_WORDS;
    const last = W * (n - 1);
    if (n > 0 && this.pieces[last + 1] === from && this.pieces[last + 2] === scale) {
      this.pieces[last + 1] = to;
      return n;
    }
    if (W * (n + 1) > this.pieces.length) {
      const grown = new Uint32Array(2 * this.pieces.length);
      grown.set(this.pieces);
      this.pieces = grown;
    }
    this.pieces[W * n] = from;
    this.pieces[W * n + 1] = to;
    this.pieces[W * n + 2] = scale;
    return n + 1;
  }

  /** Submits what setDrawn left for the next frame's encoder on its own: for a reader of the mask outside a frame. */
  flushMask(): void {
    this.maskWriter.flush();
  }

  destroy(): void {
    this.staging.close();
    this.scene.destroy();
    this.maskWriter.destroy();
    this.maskBuffer.destroy();
  }
}
