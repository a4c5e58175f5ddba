/**
 * The tile raster's two dispatches: each tile's run in the sorted pairs
 * (shaders/tile_ranges.wgsl), then one workgroup per tile blending its run
 * front to back into a storage texture (shaders/tile_raster.wgsl), in the
 * centre-depth order or each pixel's own (its pipeline made on first use;
 * each order's module is the raster's loop and that order's part of it).
 */
import commonSource from '../../../shaders/splat_common.wgsl?raw';
import recordsSource from '../../../shaders/splat_records.wgsl?raw';
import stateSource from '../../../shaders/tile_state.wgsl?raw';
import chunkSource from '../../../shaders/tile_chunk.wgsl?raw';
import dispatchSource from '../../../shaders/dispatch.wgsl?raw';
import footprintSource from '../../../shaders/tile_footprint.wgsl?raw';
import rangesSource from '../../../shaders/tile_ranges.wgsl?raw';
import rasterSource from '../../../shaders/tile_raster.wgsl?raw';
import rasterSplatSource from '../../../shaders/tile_raster_splat.wgsl?raw';
import blockListsSource from '../../../shaders/tile_block_lists.wgsl?raw';
import centreDepthSource from '../../../shaders/tile_raster_centre_depth.wgsl?raw';
import perPixelSource from '../../../shaders/tile_raster_per_pixel.wgsl?raw';
import { spliceWgsl } from '../../gpu/wgsl-splice';
import { createCheckedShaderModule } from '../../gpu/shader';
import { unrollConstantLoops } from '../../gpu/wgsl-unroll';
import { TILE_RANGES_SLOTS, TILE_RASTER_SLOTS } from '../frame-layouts';
import type { SplatOrder } from '../frame-renderer';
import { computePipeline } from '../../gpu/pipeline-cache';
import { TileChunks, chunkRows, type ChunkBuffers, type Chunking, type ChunkCounts } from './tile-chunks';
import type { TilePairCounts } from './tile-pairs';
import type { TileSide } from './tile-side';

/** Formats the raster can write (storage textures every WebGPU device has, and bgra8unorm where the device has bgra8unorm-storage). */
export type TilePictureFormat = 'rgba8unorm' | 'rgba16float' | 'rgba32float' | 'bgra8unorm';

/**
 * Footprints per raster batch, by tile side: at 16 the centre-depth order's
 * 14 floats a splat fill 14 KiB at 256, the per-pixel order's 26 fill 13
 * KiB at 128; the block lists' pipelines add a mask a splat and the lists
 * (15.5 and 13.75 KiB; every device gives a workgroup 16 KiB). At 8 the
 * workgroup's 64 invocations load one each. Multiples of 32, the lists'
 * words.
 */
const RASTER_BATCH: Record<TileSide, Record<SplatOrder, number>> = {
  16: { 'centre-depth': 256, 'per-pixel': 128 },
  8: { 'centre-depth': 64, 'per-pixel': 64 },
};

/**
 * Splats a pixel holds back in the per-pixel order (PIXEL_QUEUE in
 * shaders/tile_raster_per_pixel.wgsl): the queue that reorders the
 * centre-depth order by each splat's depth along the pixel's ray. With the
 * depth's reach (PER_PIXEL_DEPTH_REACH in src/render/frame-renderer.ts) a
 * queue of 16 matched the exact per-pixel sort at 63 and 71 dB on the 150k
 * scene (outside; inside) and popped no pixel along the slow turn where one
 * of 8 came to 52 dB and popped 6 and 2 (256×144, 8 frames, CPU reference).
 * A shorter queue pops more than none: on an H200 along 30 frames at
 * 256×144, queue 4 popped 153 pixels outside the 150k scene and 52 looking
 * down where centre depths popped 42 and 3, queue 8 27 and 4, queue 16 0
 * (docs/benchmarks.md, "Pops, raw jumps and a noise floor").
 */
export const DEFAULT_PIXEL_QUEUE = 16;
/** The longest per-pixel queue: its places and an arrival each name a slot in SLOT_BITS (5) bits of a key (shaders/tile_raster_per_pixel.wgsl). */
export const MAX_PIXEL_QUEUE = 31;

/** `queue` as a per-pixel queue's length, or a RangeError that says what is wrong. */
export function checkedPixelQueue(queue: number): number {
  if (!(Number.isInteger(queue) && queue >= 1 && queue <= MAX_PIXEL_QUEUE)) throw new RangeError(`a per-pixel queue holds a whole number of splats from 1 to ${MAX_PIXEL_QUEUE}, not ${queue}`);
  return queue;
}

/**
 * Splats whose alphas a pixel works out before it blends any of them
 * (ARRIVALS in shaders/tile_raster.wgsl), by order. The raster's time is
 * each splat's chain of latency, so on an H200 at 1920×1080
 * (docs/benchmarks.md, "The raster works out four alphas ahead"):
 * - centre-depth, 4: the raster in 0.82–0.91× the time of 1; 8 no faster,
 *   and 1.07× where pixels walk block lists;
 * - per-pixel, 2: the frame in 0.86–0.98× the time of 1; 4 gained 1–3 %
 *   more for a module twice the size (each arrival's queue is unrolled).
 * A software adapter runs a few lanes at a time and gains nothing from
 * chains side by side: there the per-pixel order takes 1, as the 150k
 * popping test on SwiftShader (2 cores) drew in 50 s with 1 and 59 s with
 * 2; the centre-depth order's 4 cost it nothing measurable (37–38 s).
 */
export function rasterArrivals(software: boolean): Record<SplatOrder, number> {
  return { 'centre-depth': 4, 'per-pixel': software ? 1 : 2 };
}

/** What a TileRaster is made with (the tile renderer's options). */
export interface TileRasterOptions {
  /** Splats each pixel holds back in the per-pixel order. */
  pixelQueue: number;
  /** Pairs per binned splat below which a frame walks block lists (BLOCK_LISTS_BELOW). */
  listsBelow: number;
  /** Alphas worked out ahead, by order (rasterArrivals). */
  arrivals: Record<SplatOrder, number>;
}

/**
 * Pairs per binned splat below which a frame's raster walks each batch by
 * block lists (shaders/tile_raster.wgsl, walk_lists): each pixel meets
 * only the batch splats whose quad boxes reach its 4×4 block, where
 * otherwise it meets them all. It pays where the splats are mostly
 * smaller than a tile: on an H200 at 1920×1080 the 7.2M-splat replicated
 * scene from outside and on the way in (1.4–1.8 pairs a splat) drew its
 * raster in 0.83–0.88× the time, its views from inside (2.4) and the real
 * scenes' views (4–390) in 1.15–1.46×, walking a list costing more per
 * splat than the plain loop (docs/benchmarks.md, "The raster's pixels by
 * blocks").
 */
export const BLOCK_LISTS_BELOW = 2;

/**
 * The walk of a frame whose last read counts were `last` (null: none read
 * yet): block lists below `listsBelow` pairs a kept entry (Infinity: always).
 */
export function rasterWalkFor(last: Pick<TilePairCounts, 'touched' | 'entries' | 'cutEntries'> | null, listsBelow: number): RasterWalk {
  if (listsBelow === Infinity) return 'lists';
  const kept = last ? last.entries - last.cutEntries : 0;
  return kept > 0 && last!.touched < listsBelow * kept ? 'lists' : 'all';
}

export interface RasterBuffers {
  state: GPUBuffer;
  ranges: GPUBuffer;
  sortedKeys: GPUBuffer;
  sortedSplats: GPUBuffer;
  records: GPUBuffer;
  /** The per-pixel order's ray shapes and each splat's slot in them (src/render/tiles/tile-ray-shapes.ts); null in the centre-depth order. */
  rayShapes: GPUBuffer | null;
  raySlots: GPUBuffer | null;
  /** The chunks' words and partials (tile-chunks.ts), as prepareChunks gives them. */
  chunkWords: GPUBuffer;
  partials: GPUBuffer;
}

/** How a raster pipeline walks each batch: every splat for every pixel, or each pixel its block's list. */
export type RasterWalk = 'all' | 'lists';

interface Bound {
  buffers: RasterBuffers;
  /** The raster's picture; null for the ranges', which bind none (so a canvas's new view each frame makes no new ranges group). */
  picture: GPUTextureView | null;
  group: GPUBindGroup;
}

/** A raster pipeline of one order and walk, made on first use, with the bind groups of its own (auto) layout. */
interface RasterVariant {
  pipeline: GPUComputePipeline | null;
  made: Promise<void> | null;
  bound: Bound[];
}

const BOUND_GROUPS = 2;

function unmadeVariant(): RasterVariant {
  return { pipeline: null, made: null, bound: [] };
}

/** Whether `b` was made for these buffers and picture. */
function bindsSame(b: Bound, buffers: RasterBuffers, picture: GPUTextureView | null): boolean {
  const o = b.buffers;
  return (
    b.picture === picture &&
    o.state === buffers.state &&
    o.ranges === buffers.ranges &&
    o.sortedKeys === buffers.sortedKeys &&
    o.sortedSplats === buffers.sortedSplats &&
    o.records === buffers.records &&
    o.rayShapes === buffers.rayShapes &&
    o.raySlots === buffers.raySlots &&
    o.chunkWords === buffers.chunkWords &&
    o.partials === buffers.partials
  );
}

/** Each order's parts of the raster's loop, put into shaders/tile_raster.wgsl's main (src/gpu/wgsl-splice.ts). */
const ORDER_SOURCE: Record<SplatOrder, string> = { 'centre-depth': centreDepthSource, 'per-pixel': perPixelSource };

function rasterSourceFor(order: SplatOrder, format: TilePictureFormat, options: TileRasterOptions): string {
  const raster = spliceWgsl(rasterSource, ORDER_SOURCE[order])
    .replace('texture_storage_2d<PICTURE_FORMAT', `texture_storage_2d<${format}`)
    .replace(/const PIXEL_QUEUE: u32 = \d+u;/, `const PIXEL_QUEUE: u32 = ${options.pixelQueue}u;`)
    .replace(/const ARRIVALS: u32 = \d+u;/, `const ARRIVALS: u32 = ${options.arrivals[order]}u;`);
  return [commonSource, recordsSource, stateSource, dispatchSource, footprintSource, chunkSource, raster, rasterSplatSource, blockListsSource].join('\n');
}

export class TileRaster {
  private readonly boundRanges: Bound[] = [];
  private walked: RasterWalk = 'all';
  private readonly variants: Record<SplatOrder, Record<RasterWalk, RasterVariant>> = {
    'centre-depth': { all: unmadeVariant(), lists: unmadeVariant() },
    'per-pixel': { all: unmadeVariant(), lists: unmadeVariant() },
  };
  private readonly modules = new Map<SplatOrder, Promise<GPUShaderModule>>();

  /** A raster of tiles `side` pixels across (its pipelines', chunks' and dispatches' side). */
  static async create(device: GPUDevice, frame: GPUBuffer, format: TilePictureFormat, side: TileSide, options: TileRasterOptions): Promise<TileRaster> {
    const rangesModule = await createCheckedShaderModule(device, 'TileRaster.rangesShader', `${stateSource}\n${dispatchSource}\n${rangesSource}`);
    const [ranges, chunks] = await Promise.all([
      computePipeline(device, { label: 'TileRaster.ranges', layout: 'auto', compute: { module: rangesModule, entryPoint: 'main' } }),
      TileChunks.create(device, frame, format, side),
    ]);
    const raster = new TileRaster(device, frame, format, side, options, ranges, chunks);
    await raster.prepare('centre-depth', 'all');
    return raster;
  }

  private constructor(
    private readonly device: GPUDevice,
    private readonly frame: GPUBuffer,
    private readonly format: TilePictureFormat,
    /** Pixels along its tiles' side. */
    readonly side: TileSide,
    private readonly options: TileRasterOptions,
    private readonly rangesPipeline: GPUComputePipeline,
    private readonly chunks: TileChunks,
  ) {}

  /** Splats each pixel holds back in the per-pixel order. */
  get pixelQueue(): number {
    return this.options.pixelQueue;
  }

  /** Pairs per binned splat below which a frame walks block lists (BLOCK_LISTS_BELOW). */
  get listsBelow(): number {
    return this.options.listsBelow;
  }

  /** The per-pixel order can be drawn (preparePerPixel has finished). */
  get perPixelReady(): boolean {
    return this.isReady('per-pixel', 'all');
  }

  /** Makes the per-pixel order's pipeline. */
  preparePerPixel(): Promise<void> {
    return this.prepare('per-pixel', 'all');
  }

  /** Whether the pipeline of `order` and `walk` is made. */
  isReady(order: SplatOrder, walk: RasterWalk): boolean {
    return this.variants[order][walk].pipeline !== null;
  }

  /**
   * Makes the pipeline of `order` and `walk` (once). The loops over a
   * pixel's arrivals and the per-pixel order's queue are unrolled in the
   * source (src/gpu/wgsl-unroll.ts): with every index a constant, the
   * arrivals' alphas and the queue stay in registers.
   */
  prepare(order: SplatOrder, walk: RasterWalk): Promise<void> {
    const variant = this.variants[order][walk];
    variant.made ??= (async () => {
      let module = this.modules.get(order);
      if (!module) {
        const source = rasterSourceFor(order, this.format, this.options);
        module = createCheckedShaderModule(this.device, `TileRaster.shader(${order})`, unrollConstantLoops(source));
        this.modules.set(order, module);
      }
      variant.pipeline = await computePipeline(this.device, {
        label: `TileRaster.raster(${this.format}, ${order}, ${walk}, tiles ${this.side}, ${this.options.arrivals[order]} ahead${order === 'per-pixel' ? `, queue ${this.pixelQueue}` : ''})`,
        layout: 'auto',
        compute: {
          module: await module,
          entryPoint: 'main',
          // The per-pixel order is never cut into chunks (tile-chunks.ts, chunkingFor).
          constants: {
            chunked: 0,
            TILE_SIZE: this.side,
            cut_runs: order === 'per-pixel' ? 0 : 1,
            raster_batch: RASTER_BATCH[this.side][order],
            walk_lists: walk === 'lists' ? 1 : 0,
            list_slots: walk === 'lists' ? RASTER_BATCH[this.side][order] : 1,
          },
        },
      });
    })();
    return variant.made;
  }

  /**
   * The chunks' buffers for a frame of `tiles` tiles cut by `chunking`
   * (put them in the RasterBuffers), their counts cleared: before the
   * ranges' pass.
   */
  prepareChunks(encoder: GPUCommandEncoder, tiles: number, chunking: Chunking): ChunkBuffers {
    const made = this.chunks.forFrame(tiles, chunking);
    this.chunks.clearCounts(encoder);
    return made;
  }

  /**
   * Records the ranges dispatch (indirect, from `args` at `offset`: its
   * size was written by the binning), then the split of the long runs into
   * chunks.
   */
  encodeRanges(pass: GPUComputePassEncoder, buffers: RasterBuffers, args: GPUBuffer, offset: number, tiles: number): void {
    pass.setPipeline(this.rangesPipeline);
    pass.setBindGroup(0, this.bindGroupFor(this.boundRanges, buffers, null, null));
    pass.dispatchWorkgroupsIndirect(args, offset);
    this.chunks.encodeSplit(pass, buffers.state, buffers.ranges, tiles);
  }

  /**
   * Records the raster: a workgroup per tile of the width × height picture
   * and one per chunk item past the grid (tile-chunks.ts), in the per-pixel
   * order when `buffers.rayShapes` is given (after preparePerPixel), by
   * block lists when `walk` asks and their pipeline is made (it is made
   * then; the picture is the same either way); then the merge of the split
   * tiles.
   */
  encodeRaster(pass: GPUComputePassEncoder, buffers: RasterBuffers, picture: GPUTextureView, width: number, height: number, chunking: Chunking, walk: RasterWalk): void {
    const order: SplatOrder = buffers.rayShapes !== null ? 'per-pixel' : 'centre-depth';
    if (!this.isReady(order, 'all')) throw new Error(`TileRaster: the ${order} order was asked for before its pipeline was made`);
    const lists = this.variants[order].lists;
    if (walk === 'lists' && lists.pipeline === null) {
      // Asked for once; a device that cannot make it walks every splat, as it draws the same picture.
      if (lists.made === null) this.prepare(order, 'lists').catch(() => undefined);
      walk = 'all';
    }
    const variant = this.variants[order][walk];
    pass.setPipeline(variant.pipeline!);
    pass.setBindGroup(0, this.bindGroupFor(variant.bound, buffers, picture, variant.pipeline));
    const across = Math.ceil(width / this.side);
    pass.dispatchWorkgroups(across, Math.ceil(height / this.side) + chunkRows(chunking, across));
    this.chunks.encodeMerge(pass, buffers.state, picture, chunking);
    this.walked = walk;
  }

  /** How the last raster encoded walked its batches. */
  get lastWalk(): RasterWalk {
    return this.walked;
  }

  /** The chunks' words (tests write into them). */
  get chunkWords(): GPUBuffer {
    return this.chunks.words;
  }

  /** How the last frame's runs were cut (after its submit; tests and benchmarks). */
  readChunkCounts(): Promise<ChunkCounts> {
    return this.chunks.readCounts();
  }

  destroy(): void {
    this.chunks.destroy();
  }

  /** The bind group of `buffers` and `picture` for the raster `pipeline` (null: the ranges'), the last BOUND_GROUPS kept in `bound`. */
  private bindGroupFor(bound: Bound[], buffers: RasterBuffers, picture: GPUTextureView | null, pipeline: GPUComputePipeline | null): GPUBindGroup {
    for (const b of bound) if (bindsSame(b, buffers, picture)) return b.group;
    const group = pipeline ? this.rasterGroup(pipeline, buffers, picture!) : this.rangesGroup(buffers);
    const made: Bound = { buffers: { ...buffers }, picture, group };
    // Two kept: the difference view draws two pictures a frame.
    if (bound.length === BOUND_GROUPS) bound.pop();
    bound.unshift(made);
    return made.group;
  }

  private rangesGroup(buffers: RasterBuffers): GPUBindGroup {
    return this.device.createBindGroup({
      label: 'TileRaster.rangesBindGroup',
      layout: this.rangesPipeline.getBindGroupLayout(0),
      entries: TILE_RANGES_SLOTS.entries({ state: { buffer: buffers.state }, sorted_keys: { buffer: buffers.sortedKeys }, ranges: { buffer: buffers.ranges } }),
    });
  }

  private rasterGroup(pipeline: GPUComputePipeline, buffers: RasterBuffers, picture: GPUTextureView): GPUBindGroup {
    return this.device.createBindGroup({
      label: 'TileRaster.bindGroup',
      layout: pipeline.getBindGroupLayout(0),
      entries: TILE_RASTER_SLOTS.entries({
        frame: { buffer: this.frame },
        state: { buffer: buffers.state },
        ranges: { buffer: buffers.ranges },
        sorted_splats: { buffer: buffers.sortedSplats },
        records: { buffer: buffers.records },
        picture,
        chunk_words: { buffer: buffers.chunkWords },
        partials: { buffer: buffers.partials },
        ...(buffers.rayShapes && buffers.raySlots ? { ray_shapes: { buffer: buffers.rayShapes }, ray_slots: { buffer: buffers.raySlots } } : {}),
      }),
    });
  }
}
