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
import centreDepthSource from '../../../shaders/tile_raster_centre_depth.wgsl?raw';
import perPixelSource from '../../../shaders/tile_raster_per_pixel.wgsl?raw';
import { spliceWgsl } from '../../gpu/wgsl-splice';
import { createCheckedShaderModule } from '../../gpu/shader';
import { unrollConstantLoops } from '../../gpu/wgsl-unroll';
import { TILE_RANGES_SLOTS, TILE_RASTER_SLOTS } from '../frame-layouts';
import type { SplatOrder } from '../frame-renderer';
import { computePipeline } from '../../gpu/pipeline-cache';
import { TileChunks, chunkRows, type ChunkBuffers, type Chunking, type ChunkCounts } from './tile-chunks';

/** Pixels along a tile's side (TILE_SIZE in shaders/tile_state.wgsl). */
export const TILE_SIZE = 16;

/** Formats the raster can write (storage textures every WebGPU device has). */
export type TilePictureFormat = 'rgba8unorm' | 'rgba16float' | 'rgba32float';

/**
 * Footprints per raster batch: the centre-depth order's 14 floats a splat
 * fill 14 KiB at 256, the per-pixel order's 26 fill 13 KiB at 128 (every
 * device gives a workgroup 16 KiB).
 */
const RASTER_BATCH: Record<SplatOrder, number> = { 'centre-depth': 256, 'per-pixel': 128 };

/**
 * Splats a pixel holds back in the per-pixel order (PIXEL_QUEUE in
 * shaders/tile_raster_per_pixel.wgsl): the queue that reorders the
 * centre-depth order by each splat's depth along the pixel's ray. With the
 * depth's reach (PER_PIXEL_DEPTH_REACH in src/render/frame-renderer.ts) a
 * queue of 16 matched the exact per-pixel sort at 63 and 71 dB on the 150k
 * scene (outside; inside) and popped no pixel along the slow turn where one
 * of 8 came to 52 dB and popped 6 and 2 (256×144, 8 frames, CPU reference).
 */
export const DEFAULT_PIXEL_QUEUE = 16;

export interface RasterBuffers {
  state: GPUBuffer;
  ranges: GPUBuffer;
  sortedKeys: GPUBuffer;
  sortedSplats: GPUBuffer;
  records: GPUBuffer;
  /** The per-pixel order's ray shapes (src/render/tiles/tile-ray-shapes.ts); null in the centre-depth order. */
  rayShapes: GPUBuffer | null;
  /** The chunks' words and partials (tile-chunks.ts), as prepareChunks gives them. */
  chunkWords: GPUBuffer;
  partials: GPUBuffer;
}

interface Bound {
  buffers: RasterBuffers;
  picture: GPUTextureView;
  ranges: GPUBindGroup;
  raster: GPUBindGroup;
}

const BOUND_GROUPS = 2;

/** Each order's parts of the raster's loop, put into shaders/tile_raster.wgsl's main (src/gpu/wgsl-splice.ts). */
const ORDER_SOURCE: Record<SplatOrder, string> = { 'centre-depth': centreDepthSource, 'per-pixel': perPixelSource };

function rasterSourceFor(order: SplatOrder, format: TilePictureFormat, pixelQueue: number): string {
  const raster = spliceWgsl(rasterSource, ORDER_SOURCE[order])
    .replace('texture_storage_2d<PICTURE_FORMAT', `texture_storage_2d<${format}`)
    .replace(/const PIXEL_QUEUE: u32 = \d+u;/, `const PIXEL_QUEUE: u32 = ${pixelQueue}u;`);
  return [commonSource, recordsSource, stateSource, dispatchSource, footprintSource, chunkSource, raster].join('\n');
}

export class TileRaster {
  private readonly bound: Bound[] = [];

  private readonly boundPerPixel: Bound[] = [];
  private perPixelPipeline: GPUComputePipeline | null = null;
  private perPixelMade: Promise<void> | null = null;

  static async create(device: GPUDevice, frame: GPUBuffer, format: TilePictureFormat, pixelQueue = DEFAULT_PIXEL_QUEUE): Promise<TileRaster> {
    const [rangesModule, rasterModule] = await Promise.all([
      createCheckedShaderModule(device, 'TileRaster.rangesShader', `${stateSource}\n${dispatchSource}\n${rangesSource}`),
      createCheckedShaderModule(device, 'TileRaster.shader', rasterSourceFor('centre-depth', format, pixelQueue)),
    ]);
    const [ranges, raster, chunks] = await Promise.all([
      computePipeline(device, { label: 'TileRaster.ranges', layout: 'auto', compute: { module: rangesModule, entryPoint: 'main' } }),
      computePipeline(device, {
        label: `TileRaster.raster(${format})`,
        layout: 'auto',
        compute: { module: rasterModule, entryPoint: 'main', constants: { chunked: 0, cut_runs: 1, raster_batch: RASTER_BATCH['centre-depth'] } },
      }),
      TileChunks.create(device, frame, format),
    ]);
    return new TileRaster(device, frame, format, pixelQueue, ranges, raster, chunks);
  }

  private constructor(
    private readonly device: GPUDevice,
    private readonly frame: GPUBuffer,
    private readonly format: TilePictureFormat,
    /** Splats each pixel holds back in the per-pixel order. */
    readonly pixelQueue: number,
    private readonly rangesPipeline: GPUComputePipeline,
    private readonly rasterPipeline: GPUComputePipeline,
    private readonly chunks: TileChunks,
  ) {}

  /** The per-pixel order can be drawn (preparePerPixel has finished). */
  get perPixelReady(): boolean {
    return this.perPixelPipeline !== null;
  }

  /**
   * Makes the per-pixel order's pipeline. Its queue loops are unrolled in
   * the source (src/gpu/wgsl-unroll.ts): with every index a constant the
   * queue stays in registers.
   */
  preparePerPixel(): Promise<void> {
    this.perPixelMade ??= (async () => {
      const source = unrollConstantLoops(rasterSourceFor('per-pixel', this.format, this.pixelQueue));
      const module = await createCheckedShaderModule(this.device, 'TileRaster.perPixelShader', source);
      this.perPixelPipeline = await computePipeline(this.device, {
        label: `TileRaster.rasterPerPixel(${this.format}, queue ${this.pixelQueue})`,
        layout: 'auto',
        compute: { module, entryPoint: 'main', constants: { chunked: 0, cut_runs: 0, raster_batch: RASTER_BATCH['per-pixel'] } },
      });
    })();
    return this.perPixelMade;
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
   * Records the ranges dispatch (indirect: its size was written by the
   * binning's scan), then the split of the long runs into chunks.
   */
  encodeRanges(pass: GPUComputePassEncoder, buffers: RasterBuffers, picture: GPUTextureView, rangesArgs: number, tiles: number): void {
    const b = this.boundFor(buffers, picture);
    pass.setPipeline(this.rangesPipeline);
    pass.setBindGroup(0, b.ranges);
    pass.dispatchWorkgroupsIndirect(buffers.state, rangesArgs);
    this.chunks.encodeSplit(pass, buffers.state, buffers.ranges, picture, tiles);
  }

  /**
   * Records the raster: a workgroup per tile of the width × height picture
   * and one per chunk item past the grid (tile-chunks.ts), in the per-pixel
   * order when `buffers.rayShapes` is given (after preparePerPixel); then
   * the merge of the split tiles.
   */
  encodeRaster(pass: GPUComputePassEncoder, buffers: RasterBuffers, picture: GPUTextureView, width: number, height: number, chunking: Chunking): void {
    const perPixel = buffers.rayShapes !== null;
    if (perPixel && !this.perPixelPipeline) throw new Error('TileRaster: the per-pixel order was asked for before preparePerPixel finished');
    const b = this.boundFor(buffers, picture);
    pass.setPipeline(perPixel ? this.perPixelPipeline! : this.rasterPipeline);
    pass.setBindGroup(0, b.raster);
    const across = Math.ceil(width / TILE_SIZE);
    pass.dispatchWorkgroups(across, Math.ceil(height / TILE_SIZE) + chunkRows(chunking, across));
    this.chunks.encodeMerge(pass, buffers.state, buffers.ranges, picture, chunking);
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

  /** The bind groups of `buffers`: the per-pixel pipeline's when they carry ray shapes. */
  private boundFor(buffers: RasterBuffers, picture: GPUTextureView): Bound {
    return buffers.rayShapes ? this.bindGroupsFor(buffers, picture, this.boundPerPixel, this.perPixelPipeline!) : this.bindGroupsFor(buffers, picture, this.bound, this.rasterPipeline);
  }

  private bindGroupsFor(buffers: RasterBuffers, picture: GPUTextureView, bound: Bound[], rasterPipeline: GPUComputePipeline): Bound {
    const same = (b: Bound) =>
      b.picture === picture &&
      b.buffers.state === buffers.state &&
      b.buffers.ranges === buffers.ranges &&
      b.buffers.sortedKeys === buffers.sortedKeys &&
      b.buffers.sortedSplats === buffers.sortedSplats &&
      b.buffers.records === buffers.records &&
      b.buffers.rayShapes === buffers.rayShapes &&
      b.buffers.chunkWords === buffers.chunkWords &&
      b.buffers.partials === buffers.partials;
    for (const b of bound) if (same(b)) return b;
    const device = this.device;
    const made: Bound = {
      buffers: { ...buffers },
      picture,
      ranges: device.createBindGroup({
        label: 'TileRaster.rangesBindGroup',
        layout: this.rangesPipeline.getBindGroupLayout(0),
        entries: TILE_RANGES_SLOTS.entries({ state: { buffer: buffers.state }, sorted_keys: { buffer: buffers.sortedKeys }, ranges: { buffer: buffers.ranges } }),
      }),
      raster: device.createBindGroup({
        label: 'TileRaster.bindGroup',
        layout: rasterPipeline.getBindGroupLayout(0),
        entries: TILE_RASTER_SLOTS.entries({
          frame: { buffer: this.frame },
          state: { buffer: buffers.state },
          ranges: { buffer: buffers.ranges },
          sorted_splats: { buffer: buffers.sortedSplats },
          records: { buffer: buffers.records },
          picture,
          chunk_words: { buffer: buffers.chunkWords },
          partials: { buffer: buffers.partials },
          ...(buffers.rayShapes ? { ray_shapes: { buffer: buffers.rayShapes } } : {}),
        }),
      }),
    };
    // Two kept: the difference view draws two pictures a frame.
    if (bound.length === BOUND_GROUPS) bound.pop();
    bound.unshift(made);
    return made;
  }
}
