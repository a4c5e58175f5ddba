/**
 * Keeps a GPU at the clocks it runs a steady load at. A benchmark frame is
 * a burst of 1–10 ms followed by a read-back, and a GPU that sees mostly
 * idle time between bursts stays in a low clock state: on the H100 the SM
 * clock sampled every 100 ms through a frame run read 345–540 MHz (its
 * boost is about 1,980), with "idle" as the reason, and the same pass timed
 * 0.025 ms in one row and 0.08–0.14 ms in the next (docs/benchmarks.md,
 * clock states). Submitted just before each timed frame, `hold()` runs a
 * compute load of about `ms` that the frame follows without a gap, so every
 * timed frame starts at the clocks a steady load gets.
 */
const SHADER = /* wgsl */ `
@group(0) @binding(0) var<uniform> rounds: u32;
@group(0) @binding(1) var<storage, read_write> sink: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  var x = f32(id.x) * 1e-6;
  for (var i = 0u; i < rounds; i++) {
    x = fma(x, 0.999999, 1e-7);
  }
  // Written where x can never land (it stays under 1): nothing is stored,
  // yet the loop must run.
  if (x > 2.0) {
    sink[id.x] = x;
  }
}
`;

/** Workgroups of the load: enough to fill a large GPU several times over. */
const GROUPS = 4096;

export class GpuClockHold {
  private constructor(
    private readonly device: GPUDevice,
    private readonly pipeline: GPUComputePipeline,
    private readonly bindGroup: GPUBindGroup,
    private readonly buffers: GPUBuffer[],
  ) {}

  /**
   * A hold of about `ms` milliseconds of GPU time at full load (0: none).
   * Its length is found by timing the load on the CPU once, doubling its
   * rounds until one run takes at least `ms`.
   */
  static async create(device: GPUDevice, ms: number): Promise<GpuClockHold | null> {
    if (ms <= 0) return null;
    const module = device.createShaderModule({ label: 'GpuClockHold', code: SHADER });
    const pipeline = await device.createComputePipelineAsync({ label: 'GpuClockHold', layout: 'auto', compute: { module, entryPoint: 'main' } });
    const rounds = device.createBuffer({ label: 'GpuClockHold.rounds', size: 4, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
    const sink = device.createBuffer({ label: 'GpuClockHold.sink', size: GROUPS * 256 * 4, usage: GPUBufferUsage.STORAGE });
    const bindGroup = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: rounds } }, { binding: 1, resource: { buffer: sink } }] });
    const hold = new GpuClockHold(device, pipeline, bindGroup, [rounds, sink]);
    for (let n = 1024; n < 1 << 30; n *= 2) {
      device.queue.writeBuffer(rounds, 0, new Uint32Array([n]));
      hold.hold();
      await device.queue.onSubmittedWorkDone();
      const started = performance.now();
      hold.hold();
      await device.queue.onSubmittedWorkDone();
      if (performance.now() - started >= ms) break;
    }
    return hold;
  }

  /** Submits the load; a frame submitted next runs right after it. */
  hold(): void {
    const encoder = this.device.createCommandEncoder({ label: 'GpuClockHold' });
    const pass = encoder.beginComputePass();
    pass.setPipeline(this.pipeline);
    pass.setBindGroup(0, this.bindGroup);
    pass.dispatchWorkgroups(GROUPS);
    pass.end();
    this.device.queue.submit([encoder.finish()]);
  }

  destroy(): void {
    for (const b of this.buffers) b.destroy();
  }
}
