/**
 * The per-pixel order's first step (shaders/tile_ray_shape.wgsl): for each
 * splat the projector kept, what the raster needs to find its depth along
 * any pixel's ray (a factor of its inverse covariance, up to scale, in
 * view space, and its mean seen through it). One dispatch over the scene's
 * splats in id order, in the binning's pass, skipping those the projector
 * culled (by its depths). Each shape is written at the splat's slot among
 * the splats the projector kept (the slot its keys dispatch gave it), and
 * the slot at the splat's id, where the raster looks it up: the shapes
 * hold RAY_SHAPE_BYTES per splat the projector may keep (its capacity, a
 * world's budget), the slots 4 bytes per splat of the scene. For a world
 * whose pool is 2.5 times its budget that is 64 × budget + 4 × pool
 * bytes where a shape per splat of the pool took 64 × pool (4M splats
 * drawn from a pool of 10M: 296 MB against 640 MB). Made on the first
 * per-pixel frame and grown with the capacity and the scene.
 */
import commonSource from '../../../shaders/splat_common.wgsl?raw';
import recordsSource from '../../../shaders/splat_records.wgsl?raw';
import dispatchSource from '../../../shaders/dispatch.wgsl?raw';
import sumSource from '../../../shaders/workgroup_sum.wgsl?raw';
import tileScanSource from '../../../shaders/tile_scan.wgsl?raw';
import shapeSource from '../../../shaders/tile_ray_shape.wgsl?raw';
import { createCheckedShaderModule } from '../../gpu/shader';
import type { GpuSplats } from '../../scene/gpu-splats';
import { RAY_SHAPE_BYTES, TILE_RAY_SHAPE_SLOTS } from '../frame-layouts';
import { PER_PIXEL_DEPTH_REACH, PER_PIXEL_FLATTEST } from '../frame-renderer';
import { computePipeline } from '../../gpu/pipeline-cache';
import { PROJECT_TILE } from '../../scene/drawn-tiles';
import { unbound } from '../../gpu/unbound';
import type { KeptSplats } from '../splat-renderer';

/** What the raster reads: the shapes by slot, and each splat's slot by its id. */
export interface RayShapeBuffers {
  shapes: GPUBuffer;
  slots: GPUBuffer;
}

interface Bound {
  scene: GpuSplats;
  depths: GPUBuffer;
  visible: GPUBuffer;
  shapes: GPUBuffer;
  slots: GPUBuffer;
  group: GPUBindGroup;
}

export class TileRayShapes {
  private shapes: GPUBuffer | null = null;
  private slots: GPUBuffer | null = null;
  /** Handed to the raster every frame (reused: nothing allocated a frame). */
  private readonly made: RayShapeBuffers = { shapes: unbound<GPUBuffer>(), slots: unbound<GPUBuffer>() };
  private bound: Bound[] = [];

  static async create(device: GPUDevice, frame: GPUBuffer): Promise<TileRayShapes> {
    const module = await createCheckedShaderModule(device, 'TileRayShapes.shader', [commonSource, recordsSource, dispatchSource, sumSource, tileScanSource, shapeSource].join('\n'));
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
   * Records the dispatch into `pass`, an invocation per splat of `scene`,
   * placing the shapes of the splats `kept` says the projector kept.
   */
  encode(pass: GPUComputePassEncoder, scene: GpuSplats, kept: KeptSplats | undefined): RayShapeBuffers {
    if (!kept) throw new Error('TileRayShapes: the per-pixel order needs what the projector kept (SplatDraw.kept)');
    const splats = scene.count;
    const made = this.made;
    made.shapes = this.shapes = grown(this.device, this.shapes, 'TileRayShapes.shapes', Math.max(1, Math.min(kept.capacity, splats)) * RAY_SHAPE_BYTES, this.forget);
    made.slots = this.slots = grown(this.device, this.slots, 'TileRayShapes.slots', splats * 4, this.forget);
    const pipeline = scene.chunks.length > 1 ? this.chunked : this.single;
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, this.bindGroupFor(pipeline, scene, kept, made));
    const groups = Math.max(1, Math.ceil(splats / PROJECT_TILE));
    const x = Math.min(groups, this.device.limits.maxComputeWorkgroupsPerDimension);
    pass.dispatchWorkgroups(x, Math.ceil(groups / x));
    return made;
  }

  /** The shapes' bytes (0 before the first per-pixel frame). */
  get shapeBytes(): number {
    return this.shapes?.size ?? 0;
  }

  destroy(): void {
    this.shapes?.destroy();
    this.slots?.destroy();
    this.shapes = null;
    this.slots = null;
    this.bound = [];
  }

  /** A buffer replaced: the bind groups naming the old one go. */
  private readonly forget = (): void => {
    this.bound = [];
  };

  private bindGroupFor(pipeline: GPUComputePipeline, scene: GpuSplats, kept: KeptSplats, made: RayShapeBuffers): GPUBindGroup {
    const { depths, visible } = kept;
    const { shapes, slots } = made;
    // A loop, not find(): called every per-pixel frame, and a closure would be allocated each time.
    for (const b of this.bound) if (b.scene === scene && b.depths === depths && b.visible === visible && b.shapes === shapes && b.slots === slots) return b.group;
    const group = this.device.createBindGroup({
      label: 'TileRayShapes.bindGroup',
      layout: pipeline.getBindGroupLayout(0),
      entries: [
        ...scene.bindGroupEntries(),
        ...TILE_RAY_SHAPE_SLOTS.entries({ frame: { buffer: this.frame }, depths: { buffer: depths }, ray_shapes: { buffer: shapes }, state: { buffer: visible }, ray_slots: { buffer: slots } }),
      ],
    });
    // Two kept: the per-pixel order view draws two orders a frame.
    if (this.bound.length === 2) this.bound.pop();
    this.bound.unshift({ scene, depths, visible, shapes, slots, group });
    return group;
  }
}

/** `buffer` where it holds `bytes` (at least 4), else a new one in its place (`replaced` told). */
function grown(device: GPUDevice, buffer: GPUBuffer | null, label: string, bytes: number, replaced: () => void): GPUBuffer {
  const size = Math.max(4, Math.ceil(bytes / 4) * 4);
  if (buffer && buffer.size >= size) return buffer;
  buffer?.destroy();
  replaced();
  return device.createBuffer({ label, size, usage: GPUBufferUsage.STORAGE });
}
