/**
 * Compute pass that writes one depth key and one splat index per splat into
 * the sorter's input buffers (shaders/depth_keys.wgsl).
 */
import commonSource from '../../shaders/splat_common.wgsl?raw';
import depthKeysSource from '../../shaders/depth_keys.wgsl?raw';
import { createCheckedShaderModule } from '../gpu/shader';

const WORKGROUP = 256;

export class DepthKeyPass {
  private bindGroup: GPUBindGroup | null = null;
  private bound: { splats: GPUBuffer; keys: GPUBuffer; values: GPUBuffer } | null = null;
  /** Reused every frame (nothing allocated per frame). */
  private readonly descriptor: GPUComputePassDescriptor = { label: 'DepthKeyPass' };

  static async create(device: GPUDevice, frame: GPUBuffer): Promise<DepthKeyPass> {
    const module = await createCheckedShaderModule(device, 'DepthKeyPass.shader', `${commonSource}\n${depthKeysSource}`);
    const pipeline = await device.createComputePipelineAsync({
      label: 'DepthKeyPass.pipeline',
      layout: 'auto',
      compute: { module, entryPoint: 'main' },
    });
    return new DepthKeyPass(device, pipeline, frame);
  }

  private constructor(
    private readonly device: GPUDevice,
    private readonly pipeline: GPUComputePipeline,
    private readonly frame: GPUBuffer,
  ) {}

  /** Records the pass for `count` splats; keys and values are borrowed (the sorter's inputs). */
  encode(
    encoder: GPUCommandEncoder,
    target: { splats: GPUBuffer; keys: GPUBuffer; values: GPUBuffer; count: number },
    timestampWrites?: GPUComputePassTimestampWrites,
  ): void {
    if (target.count === 0) return;
    const b = this.bound;
    if (!b || b.splats !== target.splats || b.keys !== target.keys || b.values !== target.values) {
      this.bound = { splats: target.splats, keys: target.keys, values: target.values };
      this.bindGroup = this.device.createBindGroup({
        label: 'DepthKeyPass.bindGroup',
        layout: this.pipeline.getBindGroupLayout(0),
        entries: [
          { binding: 0, resource: { buffer: this.frame } },
          { binding: 1, resource: { buffer: target.splats } },
          { binding: 2, resource: { buffer: target.keys } },
          { binding: 3, resource: { buffer: target.values } },
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
