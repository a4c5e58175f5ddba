/**
 * Compute pass that writes one depth key and one splat index per splat into
 * the sorter's input buffers (shaders/depth_keys.wgsl).
 */
import commonSource from '../../shaders/splat_common.wgsl?raw';
import depthKeysSource from '../../shaders/depth_keys.wgsl?raw';
import { createCheckedShaderModule } from '../gpu/shader';
import { FIRST_PASS_BINDING, type GpuSplats } from '../scene/gpu-splats';

const WORKGROUP = 256;

export class DepthKeyPass {
  private bindGroup: GPUBindGroup | null = null;
  private bound: { scene: GpuSplats; keys: GPUBuffer; values: GPUBuffer } | null = null;
  /** The pipeline of the bound scene: singlePipeline, or the variant for scenes split across chunks (made when first needed). */
  private pipeline: GPUComputePipeline;
  private chunkedPipeline: GPUComputePipeline | null = null;
  /** Reused every frame (nothing allocated per frame). */
  private readonly descriptor: GPUComputePassDescriptor = { label: 'DepthKeyPass' };

  static async create(device: GPUDevice, frame: GPUBuffer): Promise<DepthKeyPass> {
    const module = await createCheckedShaderModule(device, 'DepthKeyPass.shader', `${commonSource}\n${depthKeysSource}`);
    const pipeline = await device.createComputePipelineAsync(pipelineDescriptor(module, false));
    return new DepthKeyPass(device, module, pipeline, frame);
  }

  private constructor(
    private readonly device: GPUDevice,
    private readonly module: GPUShaderModule,
    private readonly singlePipeline: GPUComputePipeline,
    private readonly frame: GPUBuffer,
  ) {
    this.pipeline = singlePipeline;
  }

  /**
   * Records the pass for the first `count` splats of `scene` (reading only
   * their positions); keys and values are borrowed (the sorter's inputs).
   */
  encode(
    encoder: GPUCommandEncoder,
    target: { scene: GpuSplats; keys: GPUBuffer; values: GPUBuffer; count: number },
    timestampWrites?: GPUComputePassTimestampWrites,
  ): void {
    if (target.count === 0) return;
    const b = this.bound;
    if (!b || b.scene !== target.scene || b.keys !== target.keys || b.values !== target.values) {
      this.bound = { scene: target.scene, keys: target.keys, values: target.values };
      // One pipeline per kind of scene: the one-chunk variant has no chunk switch.
      this.pipeline = target.scene.chunks.length === 1
        ? this.singlePipeline
        : (this.chunkedPipeline ??= this.device.createComputePipeline(pipelineDescriptor(this.module, true)));
      this.bindGroup = this.device.createBindGroup({
        label: 'DepthKeyPass.bindGroup',
        layout: this.pipeline.getBindGroupLayout(0),
        entries: [
          { binding: 0, resource: { buffer: this.frame } },
          ...target.scene.bindGroupEntries(),
          { binding: FIRST_PASS_BINDING, resource: { buffer: target.keys } },
          { binding: FIRST_PASS_BINDING + 1, resource: { buffer: target.values } },
        ],
      });
    }
    const groups = Math.ceil(target.count / WORKGROUP);
    const x = Math.min(groups, this.device.limits.maxComputeWorkgroupsPerDimension);
    const descriptor = this.descriptor;
    if (timestampWrites) descriptor.timestampWrites = timestampWrites;
    else delete descriptor.timestampWrites;
    const pass = encoder.beginComputePass(descriptor);
    pass.setPipeline(this.pipeline);
    pass.setBindGroup(0, this.bindGroup!);
    pass.dispatchWorkgroups(x, Math.ceil(groups / x));
    pass.end();
  }
}

function pipelineDescriptor(module: GPUShaderModule, chunked: boolean): GPUComputePipelineDescriptor {
  return {
    label: chunked ? 'DepthKeyPass.pipeline(chunked)' : 'DepthKeyPass.pipeline',
    layout: 'auto',
    compute: { module, entryPoint: 'main', constants: { chunked: chunked ? 1 : 0 } },
  };
}
