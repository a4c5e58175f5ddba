/**
 * The tile raster's chunks (shaders/tile_chunk.wgsl): a tile whose run of
 * pairs is long is drawn by several workgroups at once, each into a
 * partial picture of the tile, and the partials are blended in order
 * (shaders/tile_merge.wgsl). This module holds the policy (how long a chunk
 * is, how many a frame may have), the two passes around the raster (the
 * split after the ranges, the merge after the raster) and their buffers,
 * made again only when a frame needs more. DOM-free.
 */
import commonSource from '../../../shaders/splat_common.wgsl?raw';
import recordsSource from '../../../shaders/splat_records.wgsl?raw';
import stateSource from '../../../shaders/tile_state.wgsl?raw';
import dispatchSource from '../../../shaders/dispatch.wgsl?raw';
import footprintSource from '../../../shaders/tile_footprint.wgsl?raw';
import chunkSource from '../../../shaders/tile_chunk.wgsl?raw';
import splitSource from '../../../shaders/tile_chunks.wgsl?raw';
import mergeSource from '../../../shaders/tile_merge.wgsl?raw';
import { createCheckedShaderModule } from '../../gpu/shader';
import { computePipeline } from '../../gpu/pipeline-cache';
import { readBufferU32 } from '../../gpu/readback';
import { TILE_CHUNKS_SLOTS, TILE_MERGE_SLOTS } from '../frame-layouts';
import type { SplatOrder } from '../frame-renderer';
import { BIN_GROUP } from './tile-binning';
import type { TileSide } from './tile-side';

/** Bytes of a partial picture of a tile `side` pixels across: a vec4<f32> per pixel. */
const partialBytes = (side: TileSide) => side * side * 16;
/** Words of chunk_words before the tiles' splits (CHUNK_HEADER in shaders/tile_chunk.wgsl). */
export const CHUNK_HEADER = 4;
/** Words of a split tile and of a chunk item (SPLIT_WORDS, ITEM_WORDS). */
export const SPLIT_WORDS = 4;
export const ITEM_WORDS = 2;

/**
 * The fewest pairs a chunk holds. A run this short is drawn by its tile's
 * workgroup alone: almost every run of the tile benchmark's cameras of the
 * 9k and 150k scenes at 1080p (0–72 tiles of 8160 are cut there), whose
 * frames the chunks leave as fast as before (docs/benchmarks.md). A
 * shorter chunk splits more of the work but stops less of it early: every
 * chunk of a tile starts at transmittance 1, only a whole opaque chunk
 * stops the ones after it.
 */
export const CHUNK_MIN_PAIRS = 1024;

/**
 * The most chunks past the runs' first a frame may have, by tile side;
 * past that the chunks grow. Each costs at most two partials (4 KiB at
 * 16, 1 KiB at 8) and their published transmittances: 40 MiB in all at
 * 4096 chunks of 16-pixel tiles, 20 MiB at 8192 of 8-pixel tiles.
 * A workgroup of 8-pixel tiles has a quarter of the invocations of one of
 * 16 and walks a chunk's pairs 64 at a time, not 256, so a chunk of the
 * same pairs takes it about four times the batches: 8-pixel runs are cut
 * into more. On an H200 at 1920×1080 (docs/benchmarks.md, "More chunks
 * on 8-pixel tiles"), 8192 drew the replicated scene's 8-pixel poses in
 * 0.960–0.994× the frame time of 4096 (the raster 0.90–0.99×); 16384 no
 * faster (0.958–0.997×); 8192 at 16 too cost its 16-pixel poses from
 * inside 1.02× (shorter chunks stop less work early).
 * The raster and the merge dispatch a workgroup for each whether the frame
 * has it or not: on a GPU an idle one costs next to nothing, on a software
 * adapter about a millisecond (src/gpu/software-adapter.ts), so there a
 * frame has at most SOFTWARE_MAX_CHUNKS.
 */
export const MAX_CHUNKS: Record<TileSide, number> = { 16: 4096, 8: 8192 };
export const SOFTWARE_MAX_CHUNKS = 8;

/** How a frame's runs are cut (TileState's chunk_min_pairs and max_chunks). */
export interface Chunking {
  /** The fewest pairs a chunk holds; 0: runs are never cut. */
  minPairs: number;
  /** The most chunks past the runs' first. */
  maxChunks: number;
  /**
   * A later chunk stops the pixels that the chunks before it, where they
   * have finished, left opaque. Faster where chunks run one after another
   * (on an H200 at 3840×2160 the replicated scene's frames 0.94–0.96×), but
   * what a chunk blends then depends on which chunks finished first: the
   * picture may differ from frame to frame by under 1e-4 of a colour (an
   * 8-bit level in a rare pixel). Off on software adapters, where the tests
   * compare pictures byte for byte.
   */
  lookBack: boolean;
}

/**
 * The chunking of a frame in `order` on tiles `side` pixels across whose
 * buffers hold `pairCapacity` pairs, on a software adapter or not;
 * `chosen` (tests, benchmarks) sets either part. The per-pixel order is
 * never cut: a pixel's queue would be emptied at each chunk's end, and
 * with it the order's promise.
 */
export function chunkingFor(order: SplatOrder, side: TileSide, pairCapacity: number, software: boolean, chosen: Partial<Chunking> = {}): Chunking {
  const minPairs = order === 'per-pixel' ? 0 : (chosen.minPairs ?? CHUNK_MIN_PAIRS);
  // Nothing cut: no room for chunks either.
  if (minPairs === 0) return { minPairs: 0, maxChunks: 1, lookBack: false };
  const most = software ? SOFTWARE_MAX_CHUNKS : MAX_CHUNKS[side];
  const maxChunks = chosen.maxChunks ?? Math.min(most, Math.ceil(pairCapacity / minPairs));
  return { minPairs, maxChunks: Math.max(1, maxChunks), lookBack: chosen.lookBack ?? !software };
}

/** Rows of workgroups past the tile grid that the chunk items need, `across` to a row. */
export function chunkRows(chunking: Chunking, across: number): number {
  return chunking.minPairs === 0 ? 0 : Math.ceil(chunking.maxChunks / across);
}

/** How the last frame's runs were cut: its chunk items (chunks past a run's first) and split tiles. */
export interface ChunkCounts {
  items: number;
  splits: number;
}

export interface ChunkBuffers {
  chunkWords: GPUBuffer;
  partials: GPUBuffer;
}

/** A bind group and what it binds (the split binds no picture: a canvas's new view each frame makes no new split group). */
interface Bound {
  state: GPUBuffer;
  ranges: GPUBuffer | null;
  words: GPUBuffer;
  partials: GPUBuffer | null;
  picture: GPUTextureView | null;
  group: GPUBindGroup;
}

/** The group of `key` in `bound` (the last two kept: the difference view draws two pictures a frame), made by `make` where none is. */
function keptGroup(bound: Bound[], key: Omit<Bound, 'group'>, make: () => GPUBindGroup): GPUBindGroup {
  for (const b of bound) if (b.state === key.state && b.ranges === key.ranges && b.words === key.words && b.partials === key.partials && b.picture === key.picture) return b.group;
  const made: Bound = { ...key, group: make() };
  if (bound.length === 2) bound.pop();
  bound.unshift(made);
  return made.group;
}

export class TileChunks {
  private readonly buffers: ChunkBuffers;
  private tiles = 0;
  private maxChunks = 0;
  private splits: Bound[] = [];
  private merges: Bound[] = [];

  /** The chunks of tiles `side` pixels across. */
  static async create(device: GPUDevice, frame: GPUBuffer, format: GPUTextureFormat, side: TileSide): Promise<TileChunks> {
    const prelude = [commonSource, recordsSource, stateSource, dispatchSource, footprintSource, chunkSource].join('\n');
    const [splitModule, mergeModule] = await Promise.all([
      createCheckedShaderModule(device, 'TileChunks.split', `${prelude}\n${splitSource}`),
      createCheckedShaderModule(device, 'TileChunks.merge', `${prelude}\n${mergeSource.replace('texture_storage_2d<PICTURE_FORMAT', `texture_storage_2d<${format}`)}`),
    ]);
    const [split, merge] = await Promise.all([
      computePipeline(device, { label: `TileChunks.split(tiles ${side})`, layout: 'auto', compute: { module: splitModule, entryPoint: 'main', constants: { TILE_SIZE: side } } }),
      computePipeline(device, { label: `TileChunks.merge(${format}, tiles ${side})`, layout: 'auto', compute: { module: mergeModule, entryPoint: 'main', constants: { TILE_SIZE: side } } }),
    ]);
    return new TileChunks(device, frame, side, split, merge);
  }

  private constructor(
    private readonly device: GPUDevice,
    private readonly frame: GPUBuffer,
    private readonly side: TileSide,
    private readonly splitPipeline: GPUComputePipeline,
    private readonly mergePipeline: GPUComputePipeline,
  ) {
    this.buffers = { chunkWords: this.makeWords(0, 1), partials: this.makePartials(1) };
  }

  /** The buffers of a frame of `tiles` tiles cut by `chunking`, grown if it needs more. */
  forFrame(tiles: number, chunking: Chunking): ChunkBuffers {
    if (tiles > this.tiles || chunking.maxChunks > this.maxChunks) {
      this.tiles = Math.max(tiles, this.tiles);
      this.maxChunks = Math.max(chunking.maxChunks, this.maxChunks);
      this.buffers.chunkWords.destroy();
      this.buffers.partials.destroy();
      this.buffers.chunkWords = this.makeWords(this.tiles, this.maxChunks);
      this.buffers.partials = this.makePartials(this.maxChunks);
      this.splits = [];
      this.merges = [];
    }
    return this.buffers;
  }

  /** Records the split (after the ranges, in their pass): each long run's chunks. */
  encodeSplit(pass: GPUComputePassEncoder, state: GPUBuffer, ranges: GPUBuffer, tiles: number): void {
    const words = this.buffers.chunkWords;
    const group = keptGroup(this.splits, { state, ranges, words, partials: null, picture: null }, () =>
      this.device.createBindGroup({
        label: 'TileChunks.splitBindGroup',
        layout: this.splitPipeline.getBindGroupLayout(0),
        entries: TILE_CHUNKS_SLOTS.entries({ state: { buffer: state }, ranges: { buffer: ranges }, chunk_words: { buffer: words }, frame: { buffer: this.frame } }),
      }),
    );
    pass.setPipeline(this.splitPipeline);
    pass.setBindGroup(0, group);
    pass.dispatchWorkgroups(Math.ceil(tiles / BIN_GROUP));
  }

  /** Records the merge (after the raster, in its pass): each split tile's partials into the picture. */
  encodeMerge(pass: GPUComputePassEncoder, state: GPUBuffer, picture: GPUTextureView, chunking: Chunking): void {
    if (chunking.minPairs === 0) return;
    const { chunkWords: words, partials } = this.buffers;
    const group = keptGroup(this.merges, { state, ranges: null, words, partials, picture }, () =>
      this.device.createBindGroup({
        label: 'TileChunks.mergeBindGroup',
        layout: this.mergePipeline.getBindGroupLayout(0),
        entries: TILE_MERGE_SLOTS.entries({ frame: { buffer: this.frame }, state: { buffer: state }, chunk_words: { buffer: words }, partials: { buffer: partials }, picture }),
      }),
    );
    const across = Math.min(chunking.maxChunks, this.device.limits.maxComputeWorkgroupsPerDimension);
    pass.setPipeline(this.mergePipeline);
    pass.setBindGroup(0, group);
    pass.dispatchWorkgroups(across, Math.ceil(chunking.maxChunks / across));
  }

  /** Clears the frame's counts (before the split's pass). */
  clearCounts(encoder: GPUCommandEncoder): void {
    encoder.clearBuffer(this.buffers.chunkWords, 0, 4 * CHUNK_HEADER);
  }

  /** The chunks' words (shaders/tile_chunk.wgsl's layout): tests write into them. */
  get words(): GPUBuffer {
    return this.buffers.chunkWords;
  }

  /** The counts of the last frame encoded (after its submit): for tests and benchmarks, it waits on the GPU. */
  async readCounts(): Promise<ChunkCounts> {
    const words = await readBufferU32(this.device, this.buffers.chunkWords, CHUNK_HEADER);
    return { items: words[0]!, splits: words[1]! };
  }

  destroy(): void {
    this.buffers.chunkWords.destroy();
    this.buffers.partials.destroy();
  }

  private makeWords(tiles: number, maxChunks: number): GPUBuffer {
    // The header, each tile's split, the splits and items, and each partial's published transmittances.
    const words = CHUNK_HEADER + tiles + (SPLIT_WORDS + ITEM_WORDS) * maxChunks + 2 * maxChunks * this.side * this.side;
    return this.device.createBuffer({ label: 'TileChunks.words', size: 4 * words, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC });
  }

  /** A split tile's chunks are its run's first and its items: at most 2 · maxChunks partials in all. */
  private makePartials(maxChunks: number): GPUBuffer {
    return this.device.createBuffer({ label: 'TileChunks.partials', size: 2 * maxChunks * partialBytes(this.side), usage: GPUBufferUsage.STORAGE });
  }
}
