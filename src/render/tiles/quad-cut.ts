/**
 * The candidate budget for the quad renderer (DOM-free): before the quads
 * are drawn, the tile binning's first two passes count each entry's
 * candidates (the 16×16 tiles of its quad's box) and keep the nearest
 * entries whose candidates fit the budget (src/render/tiles/tile-pairs.ts),
 * writing drawIndirect's arguments for those alone. A quad's fragments are
 * at most 256 per candidate, so a frame costs at most 256 × the budget in
 * fragments whatever the file: 86,818 window-covering splats were 180G
 * fragments a frame at 1920×1080. The quads draw the same splats as the
 * tiles would, and the painter reports the same notice. Two dispatches a
 * frame over the entries and one workgroup. The quad painter loads it with
 * the tile renderer's chunk, apart from the core, and makes it with the
 * frame (the binning pipelines are shared with the tile renderer); quads
 * are drawn whole until it is made.
 */
import { maxTilePairs } from '../renderer-limits';
import type { SplatDraw } from '../splat-renderer';
import { BIN_GROUP, TileBinning, type BinBuffers } from './tile-binning';
import { keptQuadsDraw, setKeptQuads, TileBuffers } from './tile-buffers';
import { TilePairBudget, type TilePairCounts } from './tile-pairs';
import { TILE_SIZE, tileCount } from './tile-side';
import { setTimestampWrites } from '../../gpu/pass-timer';

/** No chunks: the cut never reaches the raster. */
const NO_CHUNKS = { minPairs: 0, maxChunks: 1, lookBack: false };

export class QuadCut {
  private readonly buffers: [TileBuffers, TileBuffers];
  /** The read ring of the cut's counts (its room, never sorted into, does not grow). */
  private readonly reads: TilePairBudget;
  /** The binning binds pair buffers (keys, values) it never writes in these two passes. */
  private readonly unusedPairs: [GPUBuffer, GPUBuffer];
  // Reused every frame.
  private readonly binBuffers = {} as BinBuffers;
  private readonly groups: [number, number] = [1, 1];
  private readonly passDescriptor: GPUComputePassDescriptor = { label: 'QuadCut' };
  private readonly draws: [SplatDraw, SplatDraw] = [keptQuadsDraw(), keptQuadsDraw()];

  /** `maxPairs`: the most pairs the tile renderer may sort (TileRendererOptions.maxPairs; default the device's), which the budget follows. */
  static async create(device: GPUDevice, frame: GPUBuffer, maxPairs = Infinity): Promise<QuadCut> {
    return new QuadCut(device, await TileBinning.create(device, frame, 'ellipse', TILE_SIZE, /* cutOnly */ true), Math.min(maxTilePairs(device), maxPairs));
  }

  private constructor(
    private readonly device: GPUDevice,
    private readonly binning: TileBinning,
    budgetLimit: number,
  ) {
    this.buffers = [new TileBuffers(device), new TileBuffers(device)];
    this.reads = new TilePairBudget(device, budgetLimit, 1);
    const unused = (label: string) => device.createBuffer({ label, size: 16, usage: GPUBufferUsage.STORAGE });
    this.unusedPairs = [unused('QuadCut.unusedKeys'), unused('QuadCut.unusedValues')];
  }

  /**
   * Records the cut of `draw` (its count: entries) for a `width` × `height`
   * frame, its pass timed from `beginning`, and returns the draw of the
   * kept quads (drawIndirect from the cut's state).
   */
  encode(encoder: GPUCommandEncoder, draw: SplatDraw, maxEntries: number, width: number, height: number, slot: 0 | 1, beginning: GPUComputePassTimestampWrites | undefined): SplatDraw {
    const entries = typeof draw.count === 'number' ? draw.count : maxEntries;
    const tiles = tileCount(width, height, TILE_SIZE);
    const budget = this.reads.candidatesFor(tiles);
    const { state } = this.buffers[slot].forFrame(entries, tiles, 0, budget, [0, 0, 0], NO_CHUNKS);
    this.buffers[slot].copyEntries(encoder, draw.count, slot);
    const bin = this.binBuffers;
    bin.records = draw.records;
    bin.order = draw.order;
    bin.state = state;
    [bin.keys, bin.values] = this.unusedPairs;
    const groups = Math.max(1, Math.ceil(entries / BIN_GROUP));
    this.groups[0] = Math.min(groups, this.device.limits.maxComputeWorkgroupsPerDimension);
    this.groups[1] = Math.ceil(groups / this.groups[0]);
    setTimestampWrites(this.passDescriptor, beginning);
    const pass = encoder.beginComputePass(this.passDescriptor);
    this.binning.encodeCut(pass, bin, this.groups);
    pass.end();
    if (slot === 0) this.reads.recordRead(encoder, state, budget, TILE_SIZE);
    return setKeptQuads(this.draws[slot], draw, state);
  }

  /** The counts of the frame encoded last (after its submit; null when its read was skipped). */
  read(): Promise<TilePairCounts> | null {
    return this.reads.read();
  }

  /** What the last frame read left out (null: nothing). */
  get notice(): string | null {
    return this.reads.cutNotice;
  }

  destroy(): void {
    for (const b of this.buffers) b.destroy();
    this.reads.destroy();
    for (const b of this.unusedPairs) b.destroy();
    this.binning.destroy();
  }
}
