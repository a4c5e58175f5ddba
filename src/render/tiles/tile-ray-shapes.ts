/**
 * The per-pixel order's first step (shaders/tile_ray_shape.wgsl): for each
 * splat the projector kept, what the raster needs to find its depth along
 * any pixel's ray (a factor of its inverse covariance, up to scale, in
 * view space, and its mean seen through it). One dispatch over the scene's
 * splats in id order, in the binning's pass, skipping those the projector
 * culled (by its depths); indexed by splat id, as the raster reads
 * records. The buffer holds RAY_SHAPE_BYTES per splat of the scene, made
 * on the first per-pixel frame and grown with the scene.
 */
import commonSource from '../../../shaders/splat_common.wgsl?raw';
import recordsSource from '../../../shaders/splat_records.wgsl?raw';
import dispatchSource from '../../../shaders/dispatch.wgsl?raw';
import shapeSource from '../../../shaders/tile_ray_shape.wgsl?raw';
import { createCheckedShaderModule } from '../../gpu/shader';
import type { GpuSplats } from '../../scene/gpu-splats';
import { RAY_SHAPE_BYTES, TILE_RAY_SHAPE_SLOTS } from '../frame-layouts';
import { PER_PIXEL_DEPTH_REACH, PER_PIXEL_FLATTEST } from '../frame-renderer';
import { computePipeline } from '../../gpu/pipeline-cache';

/** Splats per workgroup (SHAPE_GROUP in shaders/tile_ray_shape.wgsl). */
const SHAPE_GROUP = 256;

export class TileRayShapes {
  private shapes: GPUBuffer | null = null;
  private bound: { scene: GpuSplats; depths: GPUBuffer; shapes: GPUBuffer; group: GPUBindGroup }[] = [];

  static async create(device: GPUDevice, frame: GPUBuffer): Promise<TileRayShapes> {
    const module = await createCheckedShaderModule(device, 'TileRayShapes.shader', [commonSource, recordsSource, dispatchSource, shapeSource].join('\n'));
    // A scene in one buffer and a scene in chunks (splat_common.wgsl's `chunked`).
    const [single, chunked] = await Promise.all(
      [0, 1].map((c) => computePipeline(device, { label: `TileRayShapes.${c ? 'chunked' : 'single'}`, layout: 'auto', compute: { module, entryPoint: 'main', constants: { chunked: c, reach_sigmas: PER_PIXEL_DEPTH_REACH, flattest: PER_PIXEL_FLATTEST } } })),
    );
    return new TileRayShapes(device, frame, single!, chunked!);
  }

  private constructor(
    private readonly device: GPUDevice,
    private readonly frame: GPUBuffer,
    private readonly single: GPUComputePipeline,
    private readonly chunked: GPUComputePipeline,
  ) {}

  /**
   * Records the dispatch into `pass`, an invocation per splat of `scene`;
   * `depths` are the projector's view depths per splat (CULLED_DEPTH:
   * culled), which say whose shapes are wanted.
   */
  encode(pass: GPUComputePassEncoder, scene: GpuSplats, depths: GPUBuffer | undefined): GPUBuffer {
    if (!depths) throw new Error('TileRayShapes: the per-pixel order needs the projector\'s depths (SplatDraw.depths)');
    const splats = scene.count;
    const shapes = this.shapesFor(splats);
    const pipeline = scene.chunks.length > 1 ? this.chunked : this.single;
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, this.bindGroupFor(pipeline, scene, depths, shapes));
    const groups = Math.max(1, Math.ceil(splats / SHAPE_GROUP));
    const x = Math.min(groups, this.device.limits.maxComputeWorkgroupsPerDimension);
    pass.dispatchWorkgroups(x, Math.ceil(groups / x));
    return shapes;
  }

  destroy(): void {
    this.shapes?.destroy();
    this.shapes = null;
    this.bound = [];
  }

  private shapesFor(splats: number): GPUBuffer {
    const bytes = Math.max(1, splats) * RAY_SHAPE_BYTES;
    if (this.shapes && this.shapes.size >= bytes) return this.shapes;
    this.shapes?.destroy();
    this.bound = [];
    this.shapes = this.device.createBuffer({ label: 'TileRayShapes.shapes', size: bytes, usage: GPUBufferUsage.STORAGE });
    return this.shapes;
  }

  private bindGroupFor(pipeline: GPUComputePipeline, scene: GpuSplats, depths: GPUBuffer, shapes: GPUBuffer): GPUBindGroup {
    // A loop, not find(): called every per-pixel frame, and a closure would be allocated each time.
    for (const b of this.bound) if (b.scene === scene && b.depths === depths && b.shapes === shapes) return b.group;
    const group = this.device.createBindGroup({
      label: 'TileRayShapes.bindGroup',
      layout: pipeline.getBindGroupLayout(0),
      entries: [
        ...scene.bindGroupEntries(),
        ...TILE_RAY_SHAPE_SLOTS.entries({ frame: { buffer: this.frame }, depths: { buffer: depths }, ray_shapes: { buffer: shapes } }),
      ],
    });
    // Two kept: the per-pixel order view draws two orders a frame.
    if (this.bound.length === 2) this.bound.pop();
    this.bound.unshift({ scene, depths, shapes, group });
    return group;
  }
}
