/**
 * How many (tile, splat) pairs a frame gets room for, and what the last
 * frames needed: the tile renderer's one place for that policy. The pair
 * total is known on the GPU after the binning's scan, before any pair is
 * written; the CPU learns it from a small read of each frame (a ring of
 * staging buffers, never waited on by the frame loop). When a frame needed
 * more than GROW_AT of the room, the next frame gets HEADROOM times what it
 * needed; a frame that needed more than the room drew nothing new (the
 * raster leaves the last complete picture, shaders/tile_raster.wgsl) and
 * the caller draws it again at once.
 *
 * The candidate budget. A splat is binned into the tiles of its quad's box
 * (its candidates); a view whose splats cover the window many times over
 * (a hostile file: 86,818 splats, 95 % larger than the window) needs
 * splats × tiles of them, 708M at 1920×1080, and its frame would cost that
 * in binning and sorting whatever the pixels show. So a frame bins at most
 * candidateBudget candidates: the nearest splats whose candidates fit are
 * drawn, the farther ones left out (TileState.cut_entries, reported in
 * TilePairCounts and by the viewer), and the frame's cost is bounded by
 * the budget instead of the file.
 */
import { TILE_STATE } from '../frame-layouts';
import { TILE_SIZE, type TileSide } from './tile-side';
import { isSoftwareDevice } from '../../gpu/software-adapter';

/** A read frame's pair figures. */
export interface TilePairCounts {
  /** Entries of the order binned (splats drawn, culled ones included for a CPU order). */
  entries: number;
  /** Pair slots the frame needed: every tile of its kept boxes (box slots, tile-binning.ts). */
  total: number;
  /** Pairs whose tile the splat's footprint touches, as far as the room held them: what the raster blends. */
  touched: number;
  /** Pair slots its buffers held. */
  capacity: number;
  /** It needed more than they held: its picture was not drawn (draw it again). */
  overflowed: boolean;
  /** Entries at the order's back (the farthest) left out: their candidates were past the budget. */
  cutEntries: number;
  /** Candidates (tiles of the quads' boxes) of every entry, at most 2^32 - 1. */
  neededCandidates: number;
  /** The candidate budget the frame was binned under. */
  candidateBudget: number;
  /** Pixels along the side of the tiles it was binned to (tile-side.ts). */
  tileSide: TileSide;
}

/**
 * The most candidates a frame bins on a GPU: 2^26 (67M), 4.4 times the
 * most of any real view measured (15.3M: the quads' boxes at 3840×2160,
 * docs/results/2026-11-29-h200-chunks). On an H200 the hostile file at
 * 1920×1080 bins 537M candidates at the device's limit (2^29 pairs) in
 * 31 ms and sorts them in 11 ms, a 44 ms frame; a quad's fragments are at
 * most 256 a candidate, so at the limit the quad renderer's frame passed
 * 130 s. At 2^26 a tile frame bins and sorts an eighth of that, and a
 * quad frame blends at most 1.7e10 fragments.
 */
export const GPU_CANDIDATE_BUDGET = 1 << 26;
/**
 * The most candidates a frame bins on a software adapter: 2^21. Binning
 * and sorting 1.6M pairs took 0.72 + 1.98 s of a frame on SwiftShader
 * (20,000 window-covering splats at 160×120, 2 cores), so a budget of
 * 2^21 keeps such a frame to a few seconds, where the real scenes' frames
 * in the tests and the page bin fewer (the 150k-splat scene at 64×48 bins
 * about 0.3M).
 */
export const SOFTWARE_CANDIDATE_BUDGET = 1 << 21;
/** The most the scan's sums allow (tile_bin.wgsl: the kept groups' firsts stay below 2^32). */
const MAX_CANDIDATE_BUDGET = 2 ** 31;

/**
 * The candidate budget of a frame of `tiles` tiles on a device that sorts
 * `limit` pairs (candidates are at least the pairs they give): a GPU's or
 * a software adapter's budget, but never under a whole window of tiles (one
 * splat covering it is drawn whenever the device can sort its pairs). Its
 * pairs never pass the limit, so every frame is drawn by tiles. `asked`
 * replaces the adapter's budget (still within the limit).
 */
export function candidateBudget(limit: number, software: boolean, tiles: number, asked?: number): number {
  return Math.min(limit, MAX_CANDIDATE_BUDGET, Math.max(tiles, asked ?? (software ? SOFTWARE_CANDIDATE_BUDGET : GPU_CANDIDATE_BUDGET)));
}

/**
 * Grow when a frame uses more than this share of the room, to HEADROOM
 * times its need: a camera turning towards denser parts rarely outruns
 * 1.5× in one frame, and a frame that does is drawn again, not shown short.
 */
const GROW_AT = 0.75;
const HEADROOM = 1.5;
/** Room before any frame was read: 2^20 pairs (16 MiB with the sort's ping-pong). */
export const INITIAL_PAIRS = 1 << 20;
/** Staging buffers for the reads: a frame's read is skipped when all are being mapped. */
const READ_RING = 3;
/** The header fields read back; the read copies TILE_STATE from the first of them to the last. */
const READ_FIELDS = ['entries', 'capacity', 'total', 'cut_entries', 'needed_candidates', 'touched'] as const;
const READ_FROM = Math.min(...READ_FIELDS.map((f) => TILE_STATE.offset(f)));
const READ_BYTES = Math.max(...READ_FIELDS.map((f) => TILE_STATE.offset(f))) + 4 - READ_FROM;

/** Field `field` of a read's words. */
function readField(words: Uint32Array, field: (typeof READ_FIELDS)[number]): number {
  return words[(TILE_STATE.offset(field) - READ_FROM) / 4]!;
}

type ReadState = 'free' | 'recorded' | 'mapping';
interface ReadSlot {
  buffer: GPUBuffer;
  state: ReadState;
  /** The budget of the frame whose counts it holds, and the side of its tiles. */
  candidateBudget: number;
  tileSide: TileSide;
}

export class TilePairBudget {
  /** Pairs the next frame should have room for. */
  wanted: number;
  /** The last frame read (null before one). */
  last: TilePairCounts | null = null;
  /** The notice of `last` (made once per read, not per frame). */
  private noticeOf: TilePairCounts | null = null;
  private notice: string | null = null;

  /** What the last frame read left out, the farthest splats past its candidate budget; null when it drew them all. */
  get cutNotice(): string | null {
    const last = this.last;
    if (last !== this.noticeOf) {
      this.noticeOf = last;
      this.notice = last && last.cutEntries > 0 ? splatsLeftOut(last) : null;
    }
    return this.notice;
  }
  private readonly reads: ReadSlot[] = [];
  private recorded: ReadSlot | null = null;
  private readonly software: boolean;

  constructor(
    device: GPUDevice,
    /** The most pairs the device can sort (maxTilePairs). */
    readonly limit: number,
    initial = INITIAL_PAIRS,
    /** The candidate budget asked for (TileRendererOptions.candidateBudget); default the adapter's. */
    private readonly askedCandidates?: number,
  ) {
    this.software = isSoftwareDevice(device);
    this.wanted = Math.max(1, Math.min(initial, limit));
    for (let i = 0; i < READ_RING; i++) {
      this.reads.push({
        buffer: device.createBuffer({ label: `TilePairBudget.read${i}`, size: READ_BYTES, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ }),
        state: 'free',
        candidateBudget: 0,
        tileSide: TILE_SIZE,
      });
    }
  }

  /** The candidate budget of a frame of `tiles` tiles (candidateBudget). */
  candidatesFor(tiles: number): number {
    return candidateBudget(this.limit, this.software, tiles, this.askedCandidates);
  }

  /** Records the copy of this frame's counts from the state buffer (skipped while every staging buffer is being read). */
  recordRead(encoder: GPUCommandEncoder, state: GPUBuffer, candidateBudget: number, tileSide: TileSide): void {
    const slot = this.recorded?.state === 'recorded' ? this.recorded : this.reads.find((r) => r.state === 'free');
    if (!slot) {
      this.recorded = null;
      return;
    }
    encoder.copyBufferToBuffer(state, READ_FROM, slot.buffer, 0, READ_BYTES);
    slot.state = 'recorded';
    slot.candidateBudget = candidateBudget;
    slot.tileSide = tileSide;
    this.recorded = slot;
  }

  /**
   * The counts of the frame recorded last, once the GPU has run it (call
   * after its submit); null when its read was skipped or is already taken.
   * Sets the room the next frames want.
   */
  read(): Promise<TilePairCounts> | null {
    const slot = this.recorded;
    if (!slot || slot.state !== 'recorded') return null;
    slot.state = 'mapping';
    this.recorded = null;
    return slot.buffer.mapAsync(GPUMapMode.READ).then(
      () => {
        const words = new Uint32Array(slot.buffer.getMappedRange(), 0, READ_BYTES / 4);
        const total = readField(words, 'total');
        const capacity = readField(words, 'capacity');
        const counts: TilePairCounts = {
          entries: readField(words, 'entries'),
          total,
          touched: readField(words, 'touched'),
          capacity,
          overflowed: total > capacity,
          cutEntries: readField(words, 'cut_entries'),
          neededCandidates: readField(words, 'needed_candidates'),
          candidateBudget: slot.candidateBudget,
          tileSide: slot.tileSide,
        };
        slot.buffer.unmap();
        slot.state = 'free';
        this.update(counts);
        return counts;
      },
      (error: unknown) => {
        slot.state = 'free';
        throw error;
      },
    );
  }

  /** Room for at least `pairs` in the next frames (never past the device's limit): a frame about to bin more tiles. */
  expect(pairs: number): void {
    this.wanted = Math.min(this.limit, Math.max(this.wanted, Math.ceil(pairs)));
  }

  /** What a read frame teaches: room for HEADROOM × its need when it came near the room (never past the device's limit). */
  update(counts: TilePairCounts): void {
    this.last = counts;
    if (counts.total > counts.capacity * GROW_AT) this.wanted = Math.min(this.limit, Math.max(this.wanted, Math.ceil(counts.total * HEADROOM)));
  }

  destroy(): void {
    for (const r of this.reads) r.buffer.destroy();
  }
}

/** The message for a frame that left its farthest splats out: their candidates were past the frame's budget (tile-pairs.ts). */
function splatsLeftOut(counts: { entries: number; cutEntries: number; neededCandidates: number; candidateBudget: number }): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const needed = counts.neededCandidates >= 0xffffffff ? `over ${n(counts.neededCandidates)}` : n(counts.neededCandidates);
  return (
    `this view's splats reach ${needed} tiles in all, more than the ${n(counts.candidateBudget)} this GPU bins in a frame ` +
    `(they cover the window many times over): the farthest ${n(counts.cutEntries)} of ${n(counts.entries)} splats are not drawn`
  );
}
