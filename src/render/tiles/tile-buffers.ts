/**
 * The tile renderer's buffers that grow with the frame: the pair state (a
 * TileState header, then two words per entry and per group of entries),
 * the entries' pair counters, and each tile's range in the sorted pairs.
 * Made again only when a frame needs more; the header is written every
 * frame from views made once. DOM-free.
 */
import { TILE_STATE } from '../frame-layouts';
import { unbound } from '../../gpu/unbound';
import type { GpuCount } from '../splat-projector';
import type { SplatDraw } from '../splat-renderer';
import { BIN_GROUP } from './tile-binning';
import type { Chunking } from './tile-chunks';

/** A draw of the entries the candidate budget kept (scan_boxes, shaders/tile_bin_budget.wgsl): drawIndirect from a state's fallback words. */
export function keptQuadsDraw(): SplatDraw {
  return { records: unbound<GPUBuffer>(), order: unbound<GPUBuffer>(), count: { buffer: unbound<GPUBuffer>(), offset: TILE_STATE.offset('fallback_vertices') } };
}

/** `kept` (from keptQuadsDraw) set to draw `draw`'s kept quads as `state` counts them. */
export function setKeptQuads(kept: SplatDraw, draw: SplatDraw, state: GPUBuffer): SplatDraw {
  kept.records = draw.records;
  kept.order = draw.order;
  kept.depths = draw.depths;
  (kept.count as GpuCount).buffer = state;
  return kept;
}

/** What a frame binds (the same object every frame). */
export interface TileFrameBuffers {
  state: GPUBuffer;
  ranges: GPUBuffer;
}

export class TileBuffers {
  private readonly current: TileFrameBuffers = { state: unbound<GPUBuffer>(), ranges: unbound<GPUBuffer>() };
  private state: GPUBuffer | null = null;
  private entryCapacity = 0;
  private ranges: GPUBuffer | null = null;
  /** Tiles of the last frame (lastRanges). */
  private tiles = 0;
  private readonly header = new ArrayBuffer(TILE_STATE.offset('words'));
  private readonly headerWords = new Uint32Array(this.header);
  private readonly headerFloats = new Float32Array(this.header);
  /** A draw slot's entry count known on the CPU, on its way into the state. */
  private readonly counts: GPUBuffer;
  private readonly countWord = new Uint32Array(1);

  constructor(private readonly device: GPUDevice) {
    this.counts = device.createBuffer({ label: 'TileBuffers.counts', size: 8, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC });
  }

  /** Records the copy of the frame's entry count (draw `slot`'s; on the CPU or on the GPU) into the state forFrame gave. */
  copyEntries(encoder: GPUCommandEncoder, count: number | GpuCount, slot: 0 | 1): void {
    const state = this.current.state;
    if (typeof count === 'number') {
      this.countWord[0] = count;
      this.device.queue.writeBuffer(this.counts, 4 * slot, this.countWord);
      encoder.copyBufferToBuffer(this.counts, 4 * slot, state, TILE_STATE.offset('entries'), 4);
    } else {
      encoder.copyBufferToBuffer(count.buffer, count.offset, state, TILE_STATE.offset('entries'), 4);
    }
  }

  /**
   * The buffers of a frame of `entries` entries over `tiles` tiles, grown
   * if it needs more, with the state's header written (everything but
   * `entries`, which the frame copies in): room for `pairCapacity` pairs,
   * the most candidates binned, the background, how the raster cuts long runs.
   */
  forFrame(entries: number, tiles: number, pairCapacity: number, candidateBudget: number, background: readonly [number, number, number], chunking: Chunking): TileFrameBuffers {
    const current = this.current;
    current.state = this.stateFor(entries);
    current.ranges = this.rangesFor(tiles);
    this.tiles = tiles;
    const words = this.headerWords;
    const floats = this.headerFloats;
    words[TILE_STATE.word('capacity')] = pairCapacity;
    words[TILE_STATE.word('candidate_budget')] = candidateBudget;
    words[TILE_STATE.word('entry_capacity')] = this.entryCapacity;
    words[TILE_STATE.word('max_groups_x')] = this.device.limits.maxComputeWorkgroupsPerDimension;
    words[TILE_STATE.word('chunk_min_pairs')] = chunking.minPairs;
    words[TILE_STATE.word('max_chunks')] = chunking.maxChunks;
    words[TILE_STATE.word('chunk_look_back')] = chunking.lookBack ? 1 : 0;
    floats[TILE_STATE.word('background_r')] = background[0];
    floats[TILE_STATE.word('background_g')] = background[1];
    floats[TILE_STATE.word('background_b')] = background[2];
    this.device.queue.writeBuffer(current.state, 4, this.header, 4);
    return current;
  }

  /** The last frame's ranges (a [first, end) pair of u32 per tile, row by row), null before one. */
  get lastRanges(): { buffer: GPUBuffer; tiles: number } | null {
    return this.ranges && this.tiles > 0 ? { buffer: this.ranges, tiles: this.tiles } : null;
  }

  destroy(): void {
    this.counts.destroy();
    this.state?.destroy();
    this.ranges?.destroy();
  }

  /** The state buffer: two words per entry and two per group of entries (shaders/tile_state.wgsl), for at least `entries`. */
  private stateFor(entries: number): GPUBuffer {
    if (this.state && entries <= this.entryCapacity) return this.state;
    this.state?.destroy();
    const capacity = Math.max(entries, 2 * this.entryCapacity, BIN_GROUP);
    this.entryCapacity = capacity;
    const words = 2 * capacity + 2 * Math.ceil(capacity / BIN_GROUP);
    this.state = this.device.createBuffer({
      label: 'TileRenderer.state',
      size: TILE_STATE.offset('words') + 4 * words,
      usage: GPUBufferUsage.STORAGE | GPUBufferUsage.INDIRECT | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST,
    });
    return this.state;
  }

  private rangesFor(tiles: number): GPUBuffer {
    const bytes = tiles * 8;
    if (this.ranges && this.ranges.size >= bytes) return this.ranges;
    this.ranges?.destroy();
    // COPY_SRC: the benchmark reads them back (lastRanges).
    this.ranges = this.device.createBuffer({ label: 'TileRenderer.ranges', size: Math.max(16, bytes), usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC });
    return this.ranges;
  }
}
