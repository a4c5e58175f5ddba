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
 * frame over the entries and one workgroup. The quad painter loads it
 * apart from the core, as the tile renderer is loaded, and makes it with
 * the frame (the binning pipelines are shared with the tile renderer);
 * quads are drawn whole until it is made.
 */
import { TILE_STATE } from './frame-layouts';
import { maxTilePairs } from './renderer-limits';
import type { SplatDraw } from './splat-renderer';
import { BIN_GROUP, TileBinning, type BinBuffers } from './tiles/tile-binning';
import { TileBuffers } from './tiles/tile-buffers';
import { candidateBudget, TilePairBudget, type TilePairCounts } from './tiles/tile-pairs';
import { TILE_SIZE } from './tiles/tile-raster';
import { isSoftwareDevice } from '../gpu/software-adapter';
import { unbound } from '../gpu/unbound';
import { setTimestampWrites } from '../gpu/pass-timer';

/** No chunks: the cut never reaches the raster. */
const NO_CHUNKS = { minPairs: 0, maxChunks: 1, lookBack: false };

export class QuadCut {
  private binning: TileBinning | null = null;
  private making: Promise<void> | null = null;
  private readonly buffers: [TileBuffers, TileBuffers];
  private readonly reads: TilePairBudget;
  private readonly budgetLimit: number;
  private readonly software: boolean;
  /** The binning binds pair buffers (keys, values) it never writes in these two passes. */
  private readonly unusedPairs: [GPUBuffer, GPUBuffer];
  // Reused every frame.
  private readonly binBuffers = {} as BinBuffers;
  private readonly groups: [number, number] = [1, 1];
  private readonly passDescriptor: GPUComputePassDescriptor = { label: 'QuadCut' };
  private readonly draws: [SplatDraw, SplatDraw];

  constructor(
    private readonly device: GPUDevice,
    private readonly frame: GPUBuffer,
    /** The most pairs the tile renderer may sort (TileRendererOptions.maxPairs; default the device's): the budget follows it. */
    maxPairs = Infinity,
  ) {
    this.buffers = [new TileBuffers(device), new TileBuffers(device)];
    this.budgetLimit = Math.min(maxTilePairs(device), maxPairs);
    this.software = isSoftwareDevice(device);
    this.reads = new TilePairBudget(device, this.budgetLimit, 1);
    const unused = (label: string) => device.createBuffer({ label, size: 16, usage: GPUBufferUsage.STORAGE });
    this.unusedPairs = [unused('QuadCut.unusedKeys'), unused('QuadCut.unusedValues')];
    const drawOfState = (): SplatDraw => ({ records: unbound<GPUBuffer>(), order: unbound<GPUBuffer>(), count: { buffer: unbound<GPUBuffer>(), offset: TILE_STATE.offset('fallback_vertices') } });
    this.draws = [drawOfState(), drawOfState()];
  }

  /**
   * Records the cut of `draw` (its count: entries) for a `width` × `height`
   * frame (its pass timed from `beginning`) and returns the draw of the
   * kept quads (drawIndirect from the cut's state); null, recording
   * nothing, until prepare() has made the binning.
   */
  encode(encoder: GPUCommandEncoder, draw: SplatDraw, maxEntries: number, width: number, height: number, slot: 0 | 1, beginning: GPUComputePassTimestampWrites | undefined): SplatDraw | null {
    const binning = this.binning;
    if (!binning) return null;
    const entries = typeof draw.count === 'number' ? draw.count : maxEntries;
    const tiles = Math.ceil(width / TILE_SIZE) * Math.ceil(height / TILE_SIZE);
    const budget = candidateBudget(this.budgetLimit, this.software, tiles);
    const { state, entryPairs } = this.buffers[slot].forFrame(entries, tiles, 0, budget, [0, 0, 0], NO_CHUNKS);
    this.buffers[slot].copyEntries(encoder, draw.count, slot);
    const bin = this.binBuffers;
    bin.records = draw.records;
    bin.order = draw.order;
    bin.state = state;
    [bin.keys, bin.values] = this.unusedPairs;
    bin.entryPairs = entryPairs;
    const groups = Math.max(1, Math.ceil(entries / BIN_GROUP));
    this.groups[0] = Math.min(groups, this.device.limits.maxComputeWorkgroupsPerDimension);
    this.groups[1] = Math.ceil(groups / this.groups[0]);
    setTimestampWrites(this.passDescriptor, beginning);
    const pass = encoder.beginComputePass(this.passDescriptor);
    binning.encodeCut(pass, bin, this.groups);
    pass.end();
    if (slot === 0) this.reads.recordRead(encoder, state, budget);
    const cut = this.draws[slot];
    cut.records = draw.records;
    cut.order = draw.order;
    cut.depths = draw.depths;
    (cut.count as { buffer: GPUBuffer }).buffer = state;
    return cut;
  }

  /** Makes the cut's binning (once); frames encoded before it resolves draw uncut. */
  prepare(): Promise<void> {
    this.making ??= TileBinning.create(this.device, this.frame).then((made) => {
      this.binning = made;
    });
    return this.making;
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
    this.binning?.destroy();
  }
}
