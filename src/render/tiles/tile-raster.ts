/**
 * The tile raster's two dispatches: each tile's run in the sorted pairs
 * (shaders/tile_ranges.wgsl), then one workgroup per tile blending its run
 * front to back into a storage texture (shaders/tile_raster.wgsl).
 */
import commonSource from '../../../shaders/splat_common.wgsl?raw';
import recordsSource from '../../../shaders/splat_records.wgsl?raw';
import stateSource from '../../../shaders/tile_state.wgsl?raw';
import footprintSource from '../../../shaders/tile_footprint.wgsl?raw';
import rangesSource from '../../../shaders/tile_ranges.wgsl?raw';
import rasterSource from '../../../shaders/tile_raster.wgsl?raw';
import { createCheckedShaderModule } from '../../gpu/shader';
import { TILE_RANGES_SLOTS, TILE_RASTER_SLOTS } from '../frame-layouts';

/** Pixels along a tile's side (TILE_SIZE in shaders/tile_state.wgsl). */
export const TILE_SIZE = 16;

/** Formats the raster can write (storage textures every WebGPU device has). */
export type TilePictureFormat = 'rgba8unorm' | 'rgba16float' | 'rgba32float';

export interface RasterBuffers {
  state: GPUBuffer;
  ranges: GPUBuffer;
  sortedKeys: GPUBuffer;
  sortedSplats: GPUBuffer;
  records: GPUBuffer;
}

interface Bound {
  buffers: RasterBuffers;
  picture: GPUTextureView;
  ranges: GPUBindGroup;
  raster: GPUBindGroup;
}

const BOUND_GROUPS = 2;

export class TileRaster {
  private readonly bound: Bound[] = [];

  static async create(device: GPUDevice, frame: GPUBuffer, format: TilePictureFormat): Promise<TileRaster> {
    const [rangesModule, rasterModule] = await Promise.all([
      createCheckedShaderModule(device, 'TileRaster.rangesShader', `${stateSource}\n${rangesSource}`),
      createCheckedShaderModule(
        device,
        'TileRaster.shader',
        [commonSource, recordsSource, stateSource, footprintSource, rasterSource.replace('texture_storage_2d<PICTURE_FORMAT', `texture_storage_2d<${format}`)].join('\n'),
      ),
    ]);
    const [ranges, raster] = await Promise.all([
      device.createComputePipelineAsync({ label: 'TileRaster.ranges', layout: 'auto', compute: { module: rangesModule, entryPoint: 'main' } }),
      device.createComputePipelineAsync({ label: `TileRaster.raster(${format})`, layout: 'auto', compute: { module: rasterModule, entryPoint: 'main', constants: { chunked: 0 } } }),
    ]);
    return new TileRaster(device, frame, ranges, raster);
  }

  private constructor(
    private readonly device: GPUDevice,
    private readonly frame: GPUBuffer,
    private readonly rangesPipeline: GPUComputePipeline,
    private readonly rasterPipeline: GPUComputePipeline,
  ) {}

  /** Records the ranges dispatch (indirect: its size was written by the binning's scan). */
  encodeRanges(pass: GPUComputePassEncoder, buffers: RasterBuffers, picture: GPUTextureView, rangesArgs: number): void {
    const b = this.bindGroupsFor(buffers, picture);
    pass.setPipeline(this.rangesPipeline);
    pass.setBindGroup(0, b.ranges);
    pass.dispatchWorkgroupsIndirect(buffers.state, rangesArgs);
  }

  /** Records the raster: a workgroup per tile of the width × height picture. */
  encodeRaster(pass: GPUComputePassEncoder, buffers: RasterBuffers, picture: GPUTextureView, width: number, height: number): void {
    const b = this.bindGroupsFor(buffers, picture);
    pass.setPipeline(this.rasterPipeline);
    pass.setBindGroup(0, b.raster);
    pass.dispatchWorkgroups(Math.ceil(width / TILE_SIZE), Math.ceil(height / TILE_SIZE));
  }

  private bindGroupsFor(buffers: RasterBuffers, picture: GPUTextureView): Bound {
    const bound = this.bound;
    const same = (b: Bound) =>
      b.picture === picture &&
      b.buffers.state === buffers.state &&
      b.buffers.ranges === buffers.ranges &&
      b.buffers.sortedKeys === buffers.sortedKeys &&
      b.buffers.sortedSplats === buffers.sortedSplats &&
      b.buffers.records === buffers.records;
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
        layout: this.rasterPipeline.getBindGroupLayout(0),
        entries: TILE_RASTER_SLOTS.entries({
          frame: { buffer: this.frame },
          state: { buffer: buffers.state },
          ranges: { buffer: buffers.ranges },
          sorted_splats: { buffer: buffers.sortedSplats },
          records: { buffer: buffers.records },
          picture,
        }),
      }),
    };
    // Two kept: the difference view draws two pictures a frame.
    if (bound.length === BOUND_GROUPS) bound.pop();
    bound.unshift(made);
    return made;
  }
}
