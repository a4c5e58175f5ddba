/**
 * The compute tile renderer (DOM-free): draws the projector's records in a
 * draw order, as the quad renderer does, but tile by tile in compute, front
 * to back, each pixel stopping once opaque and written once. Recorded into
 * the frame's encoder after the order is made:
 *
 *   binning (tile-binning.ts)    the order's splats → (tile, splat) pairs,
 *                                in the order's order, a slot for every
 *                                tile of a kept box (NO_TILE where the
 *                                splat does not touch it); the slot total
 *   pair sort                    the project's GpuRadixSort on the tile id
 *                                alone (13 bits at 1920×1080: two 8-bit
 *                                digit passes); stable, so each tile's
 *                                splats keep the order's exact depth order,
 *                                and the NO_TILE slots come last
 *   ranges, raster (tile-raster.ts)  each tile's run; a workgroup per tile,
 *                                and for a long run one per chunk of it,
 *                                blended in order (tile-chunks.ts)
 *
 * In the per-pixel order (after preparePerPixel) the binning's pass also
 * works out each drawn splat's ray shape (tile-ray-shapes.ts), and the
 * raster blends each pixel's splats by their depth along its ray: a small
 * per-pixel queue over the tile's centre-depth order
 * (docs/per-pixel-order-design.md).
 *
 * The picture goes to a storage texture: the output itself where it is
 * writable, else one the caller resolves. A frame bins the nearest splats
 * whose candidates fit its budget; room for their pairs follows what
 * frames needed (tile-pairs.ts). A frame needing more than the room is
 * drawn by quads: the raster writes the background alone, the painter
 * (SplatResolve.encodeTilePicture or encodeTileFallback) draws the kept
 * quads with drawIndirect, whose vertex count the binning sets (none when
 * the pairs fit: the `fallback` draw encode returns). No frame shows a
 * tile with pairs missing; readPairs reports the overflow, the room grows
 * (the render command draws such a frame again, for tiles alone). A quad
 * pass of its own cost 0.30 ms a frame (H100, 1920×1080) drawing nothing;
 * docs/tile-renderer-design.md argues the choices.
 */
import { GpuPassTimer, setTimestampWrites } from '../../gpu/pass-timer';
import { GpuRadixSort, type SortedBuffers } from '../../sort/gpu-radix-sort';
import { boundsGpuCounts } from '../../sort/count-bound';
import { TILE_BIN_ARGS, TILE_STATE } from '../frame-layouts';
import { maxTilePairs } from '../renderer-limits';
import type { SplatDraw } from '../splat-renderer';
import { BIN_GROUP, pairKeyBits, type BinBuffers } from './tile-binning';
import { rasterWalkFor, type RasterBuffers, type RasterWalk, type TilePictureFormat } from './tile-raster';
import { SMALL_TILE_PAIRS, TILE_SIZE, tileCount, type TileSide } from './tile-side';
import { TileSideKits } from './tile-side-kits';
import { TileRayShapes, type RayShapeBuffers } from './tile-ray-shapes';
import { INITIAL_PAIRS, TilePairBudget, type TilePairCounts } from './tile-pairs';
import { setKeptQuads, TileBuffers } from './tile-buffers';
import { chunkingFor, type Chunking, type ChunkCounts } from './tile-chunks';
import type { SplatOrder } from '../frame-renderer';
import { isSoftwareDevice } from '../../gpu/software-adapter';
import { unbound } from '../../gpu/unbound';
import type { TileRendererOptions } from './tile-renderer-options';
import { fallbackOf, type TileDrawSlot, type TileDrawTarget, type TileFallback } from './tile-draw';

export type { TileFootprint } from './tile-binning';
export type { TilePairCounts } from './tile-pairs';
export type { TilePictureFormat } from './tile-raster';
export type { TileRendererOptions } from './tile-renderer-options';
export type { TileDrawSlot, TileDrawTarget, TileFallback } from './tile-draw';
export { QuadCut } from './quad-cut'; // in this module's chunk: quad-painter.ts imports it from here

/**
 * The tile renderer's passes, as the profile times them. 'shapes': the
 * per-pixel order's ray shapes (null in the centre-depth order);
 * 'resolve': the painter's pass that draws the tile picture into the
 * output (TilePainter; timed with the others so the profiled span's rest
 * is what no pass holds: clears, copies, and the gaps between passes).
 */
export type TilePass = 'bin' | 'shapes' | 'pairSort' | 'ranges' | 'raster' | 'resolve';
export const TILE_PASSES: readonly TilePass[] = ['bin', 'shapes', 'pairSort', 'ranges', 'raster', 'resolve'];

export class TileRenderer {
  private readonly buffers: TileBuffers;
  /** The pair sort is dispatched for the pair room, not from the count (sort/count-bound.ts). */
  private readonly boundsPairCounts: boolean;
  private readonly profiler: GpuPassTimer<TilePass> | null;
  /** The passes timed since the last finishProfile, and those the last finished profile timed (readProfile gives null for the others). */
  private timing = new Set<TilePass>();
  private profiled = new Set<TilePass>();
  private sorted: SortedBuffers | null = null;
  private readonly binBuffers = {} as BinBuffers; // these four reused every frame: nothing allocated once warm
  private readonly binGroups: [number, number] = [1, 1];
  private readonly rasterBuffers = {} as RasterBuffers;
  private readonly passDescriptors = new Map<string, GPUComputePassDescriptor>();

  /** A compute pass descriptor per label, its timestamp writes set for this frame. */
  private passDescriptor(label: string, timestampWrites: GPUComputePassTimestampWrites | undefined): GPUComputePassDescriptor {
    let descriptor = this.passDescriptors.get(label);
    if (!descriptor) this.passDescriptors.set(label, (descriptor = { label }));
    setTimestampWrites(descriptor, timestampWrites);
    return descriptor;
  }

  /** Per draw slot, reused every frame. */
  private readonly fallback: [TileFallback, TileFallback] = [fallbackOf(), fallbackOf()];
  private readonly sortOptions = { countBuffer: { buffer: unbound<GPUBuffer>(), offset: TILE_STATE.offset('pairs') }, countBound: undefined as number | undefined, keyBits: 1, timestampWrites: undefined as GPUComputePassTimestampWrites | undefined };
  private readonly clearAttachment: GPURenderPassColorAttachment = { view: unbound<GPUTextureView>(), clearValue: { r: 0, g: 0, b: 0, a: 1 }, loadOp: 'clear', storeOp: 'store' };

  static async create(device: GPUDevice, frame: GPUBuffer, format: TilePictureFormat, options: TileRendererOptions = {}): Promise<TileRenderer> {
    const limit = Math.min(maxTilePairs(device), options.maxPairs ?? Infinity);
    const initial = Math.min(limit, Math.max(1, options.initialPairs ?? INITIAL_PAIRS));
    const [kits, sorter] = await Promise.all([
      TileSideKits.create(device, frame, format, options),
      GpuRadixSort.create(device, { capacity: initial, label: 'TileRenderer.pairSort' }),
    ]);
    return new TileRenderer(device, frame, kits, sorter, new TilePairBudget(device, limit, initial, options.candidateBudget), options);
  }

  private rayShapes: TileRayShapes | null = null;
  /** A software adapter: few chunks (tile-chunks.ts). */
  private readonly software: boolean;
  /** The chunking of each order at the pair room and tile side it was made for (made again when either changes). */
  private readonly chunkings: Record<SplatOrder, { capacity: number; side: TileSide; chunking: Chunking }> = {
    'centre-depth': { capacity: -1, side: TILE_SIZE, chunking: { minPairs: 0, maxChunks: 1, lookBack: false } },
    'per-pixel': { capacity: -1, side: TILE_SIZE, chunking: { minPairs: 0, maxChunks: 1, lookBack: false } },
  };
  private perPixelMade: Promise<void> | null = null;
  /** The side of the last frame encoded. */
  private side: TileSide = TILE_SIZE;
  private readonly chosenChunking: Partial<Chunking>;

  private constructor(
    private readonly device: GPUDevice,
    private readonly frame: GPUBuffer,
    /** The binning and raster of each tile side. */
    private readonly kits: TileSideKits,
    private readonly sorter: GpuRadixSort,
    private readonly budget: TilePairBudget,
    options: TileRendererOptions,
  ) {
    this.software = isSoftwareDevice(device);
    this.buffers = new TileBuffers(device);
    this.boundsPairCounts = boundsGpuCounts(device);
    this.profiler = options.profile ? new GpuPassTimer(device, TILE_PASSES, 'TileRenderer.profile') : null;
    this.chosenChunking = options.chunking ?? {};
  }

  /** Makes what the per-pixel order needs (its raster pipeline and the ray-shape pass); frames may ask for it once this resolves. */
  preparePerPixel(): Promise<void> {
    this.perPixelMade ??= Promise.all([this.kits.get(TILE_SIZE).raster.preparePerPixel(), TileRayShapes.create(this.device, this.frame)]).then(([, shapes]) => {
      this.rayShapes = shapes;
    });
    return this.perPixelMade;
  }

  /** The per-pixel order can be drawn. */
  get perPixelReady(): boolean {
    return this.rayShapes !== null && this.kits.get(TILE_SIZE).raster.perPixelReady;
  }

  /** Bytes of the per-pixel order's ray shapes (0 before its first frame): room for the splats the projector may keep. */
  get rayShapeBytes(): number {
    return this.rayShapes?.shapeBytes ?? 0;
  }

  /**
   * Makes the passes of tiles `side` pixels across, and with `perPixel` their
   * per-pixel raster (frames make them when they first want them, and draw
   * 16-pixel tiles until then).
   */
  prepareTileSide(side: TileSide, perPixel = false): Promise<void> {
    return this.kits.prepare(side, perPixel);
  }

  /** Pixels along the side of the last frame's tiles (tile-side.ts). */
  get lastTileSide(): TileSide {
    return this.side;
  }

  /** Pairs the buffers hold now. */
  get capacity(): number {
    return this.sorter.capacity;
  }

  /**
   * Where the last frame encoded leaves each tile's run in the sorted pairs
   * (borrowed, read-only: a [first, end) pair of u32 per tile, row by row,
   * `tiles` of them): what the benchmark reads to see how the pairs spread
   * over the tiles. Null before a frame was binned.
   */
  get lastRanges(): { buffer: GPUBuffer; tiles: number } | null {
    return this.buffers.lastRanges;
  }

  /** The last frame read (null before one). */
  get lastPairs(): TilePairCounts | null {
    return this.budget.last;
  }

  /** How the last frame encoded walked its batches (rasterWalkFor: from the frame read before it). */
  get lastWalk(): RasterWalk {
    return this.kits.get(this.side).raster.lastWalk;
  }

  /** Makes the raster's block-list pipeline of the order at `side` (frames make it when they first want it, and walk every splat until then). */
  async prepareBlockLists(perPixel: boolean, side: TileSide = TILE_SIZE): Promise<void> {
    await this.kits.prepare(side);
    return this.kits.get(side).raster.prepare(perPixel ? 'per-pixel' : 'centre-depth', 'lists');
  }

  /**
   * Where the last frame encoded leaves its pairs sorted by tile (borrowed,
   * read-only: keys the tile, values the splat, as many as it wrote: its
   * total, at most its capacity, the touched pairs first, then NO_TILE
   * slots): what the tests read back to check the order within each tile.
   */
  get sortedPairs(): SortedBuffers | null {
    return this.sorted;
  }

  /** What the last frame read left out, the farthest splats past its candidate budget (tile-pairs.ts); null when it drew them all. */
  get cutNotice(): string | null {
    return this.budget.cutNotice;
  }

  /**
   * Records the tile draw of `draw` (null: the background alone) into
   * `target.picture`. `maxEntries` bounds a count read on the GPU (the
   * order's maxCount). `beginning` times the whole draw from the first
   * pass recorded here (the caller puts the end on its resolve). Returns
   * what the resolve needs to draw the frame whole when its pairs did not
   * fit (SplatResolve.encodeTilePicture): the pair state and the quads'
   * indirect draw; null when there was nothing to bin (the picture is the
   * background).
   */
  encode(
    encoder: GPUCommandEncoder,
    target: TileDrawTarget,
    draw: SplatDraw | null,
    maxEntries: number,
    slot: TileDrawSlot = 0,
    beginning?: GPUComputePassTimestampWrites & GPURenderPassTimestampWrites,
  ): TileFallback | null {
    if (!draw || draw.count === 0) {
      this.encodeClear(encoder, target, beginning);
      return null;
    }
    const device = this.device;
    const entries = typeof draw.count === 'number' ? draw.count : maxEntries;
    const perPixel = target.perPixelScene ?? null;
    const last = this.budget.last;
    const side = this.kits.sideFor(last, this.budget.limit, perPixel !== null);
    const { binning, raster } = this.kits.get(side);
    // The first frame of smaller tiles gets room for the pairs they add.
    if (last && last.tileSide !== side && side !== TILE_SIZE) this.budget.expect(last.total * SMALL_TILE_PAIRS);
    this.sorter.ensureCapacity(this.budget.wanted);
    const tiles = tileCount(target.width, target.height, side);
    const chunking = this.chunkingFor(perPixel ? 'per-pixel' : 'centre-depth', side);
    const budget = this.budget.candidatesFor(tiles);
    const { state, ranges } = this.buffers.forFrame(entries, tiles, this.sorter.capacity, budget, target.background, chunking);
    this.buffers.copyEntries(encoder, draw.count, slot);

    const profiler = this.profiler;
    if (profiler && beginning) encoder.beginComputePass({ label: 'TileRenderer.start', timestampWrites: beginning }).end();
    const groups = Math.max(1, Math.ceil(entries / BIN_GROUP));
    const x = Math.min(groups, device.limits.maxComputeWorkgroupsPerDimension);
    const binPass = encoder.beginComputePass(this.passDescriptor('TileRenderer.bin', profiler ? this.timed('bin') : beginning));
    const bin = this.binBuffers;
    bin.records = draw.records;
    bin.order = draw.order;
    bin.state = state;
    bin.keys = this.sorter.keys;
    bin.values = this.sorter.values;
    this.binGroups[0] = x;
    this.binGroups[1] = Math.ceil(groups / x);
    binning.encode(binPass, bin, this.binGroups);
    if (perPixel && !this.rayShapes) throw new Error('TileRenderer: the per-pixel order was asked for before preparePerPixel finished');
    let rayShapes: RayShapeBuffers | null = null;
    if (perPixel) {
      // In the binning's pass unless each pass is timed.
      let shapesPass = binPass;
      if (profiler) {
        binPass.end();
        shapesPass = encoder.beginComputePass(this.passDescriptor('TileRenderer.shapes', this.timed('shapes')));
      }
      rayShapes = this.rayShapes!.encode(shapesPass, perPixel, draw.kept);
      shapesPass.end();
    } else {
      binPass.end();
    }

    const sort = this.sortOptions;
    sort.countBuffer.buffer = state;
    // Dispatched directly for every pair the buffers hold where that beats sizing them from the count
    // (count-bound.ts): on an H200, 1M pairs under a bound of 16M sort in 0.111 ms against 0.147 indirectly.
    sort.countBound = this.boundsPairCounts ? this.sorter.capacity : undefined;
    sort.keyBits = pairKeyBits(tiles);
    sort.timestampWrites = this.timed('pairSort');
    const sorted = this.sorter.encode(encoder, sort);
    this.sorted = sorted;

    encoder.clearBuffer(ranges, 0, tiles * 8);
    const buffers = this.rasterBuffers;
    const chunkBuffers = raster.prepareChunks(encoder, tiles, chunking);
    buffers.chunkWords = chunkBuffers.chunkWords;
    buffers.partials = chunkBuffers.partials;
    buffers.state = state;
    buffers.ranges = ranges;
    buffers.sortedKeys = sorted.keys;
    buffers.sortedSplats = sorted.values;
    buffers.records = draw.records;
    buffers.rayShapes = rayShapes?.shapes ?? null;
    buffers.raySlots = rayShapes?.slots ?? null;
    // Ranges and raster share a pass, split only when each is timed.
    let pass = encoder.beginComputePass(this.passDescriptor(profiler ? 'TileRenderer.ranges' : 'TileRenderer.raster', this.timed('ranges')));
    raster.encodeRanges(pass, buffers, binning.args, TILE_BIN_ARGS.offset('ranges_x'), tiles);
    if (profiler) {
      pass.end();
      pass = encoder.beginComputePass(this.passDescriptor('TileRenderer.raster', this.timed('raster')));
    }
    // Lists as the frame read last says, where it was binned at this side.
    raster.encodeRaster(pass, buffers, target.picture, target.width, target.height, chunking, rasterWalkFor(last?.tileSide === side ? last : null, raster.listsBelow));
    pass.end();
    this.side = side;
    this.budget.recordRead(encoder, state, budget, side);
    const fallback = this.fallback[slot];
    fallback.state = state;
    setKeptQuads(fallback.draw, draw, state);
    return fallback;
  }

  /**
   * The pair counts of the frame encoded last, once the GPU has run it
   * (call after its submit; null when that frame's read was skipped). An
   * overflowed frame left the picture as it was: draw it again, the room
   * is grown by then.
   */
  readPairs(): Promise<TilePairCounts> | null {
    return this.budget.read();
  }

  /** The chunking of a frame in `order` on tiles `side` pixels across at today's pair room. */
  private chunkingFor(order: SplatOrder, side: TileSide): Chunking {
    const made = this.chunkings[order];
    if (made.capacity !== this.sorter.capacity || made.side !== side) {
      made.capacity = this.sorter.capacity;
      made.side = side;
      made.chunking = chunkingFor(order, side, made.capacity, this.software, this.chosenChunking);
    }
    return made.chunking;
  }

  /** The raster chunks' words of the last frame's side (tile-chunks.ts; tests write into them). */
  get chunkWords(): GPUBuffer {
    return this.kits.get(this.side).raster.chunkWords;
  }

  /** How the last frame's long runs were cut into chunks (after its submit; tests and benchmarks). */
  readChunkCounts(): Promise<ChunkCounts> {
    return this.kits.get(this.side).raster.readChunkCounts();
  }

  /** With profiling, the timestamp writes of the painter's resolve after the draw; undefined without. */
  get resolveTimestampWrites(): (GPUComputePassTimestampWrites & GPURenderPassTimestampWrites) | undefined {
    return this.timed('resolve');
  }

  /** A pass's timestamp writes where the frame is profiled, the pass counted as timed. */
  private timed(name: TilePass): (GPUComputePassTimestampWrites & GPURenderPassTimestampWrites) | undefined {
    if (!this.profiler) return undefined;
    this.timing.add(name);
    return this.profiler.timestampWrites(name);
  }

  /** With profiling, records the copy of the frame's pass times: after the painter's resolve, before finish(). */
  finishProfile(encoder: GPUCommandEncoder): void {
    if (!this.profiler) return;
    this.profiler.resolve(encoder);
    const finished = this.timing;
    this.timing = this.profiled;
    this.profiled = finished;
    this.timing.clear();
  }

  /** GPU milliseconds of each pass of the last profiled frame (after its submit); null without timestamp queries or profiling. */
  async readProfile(): Promise<Record<TilePass, number | null> | null> {
    return this.profiler ? this.profiler.read(this.profiled) : null;
  }

  private encodeClear(encoder: GPUCommandEncoder, target: TileDrawTarget, beginning?: GPURenderPassTimestampWrites): void {
    const attachment = this.clearAttachment;
    attachment.view = target.picture;
    const clear = attachment.clearValue as GPUColorDict;
    [clear.r, clear.g, clear.b] = target.background;
    encoder.beginRenderPass({ label: 'TileRenderer.clear', colorAttachments: [attachment], ...(beginning ? { timestampWrites: beginning } : {}) }).end();
  }

  destroy(): void {
    this.buffers.destroy();
    this.sorter.destroy();
    this.kits.destroy();
    this.budget.destroy();
    this.profiler?.destroy();
    this.rayShapes?.destroy();
  }
}
