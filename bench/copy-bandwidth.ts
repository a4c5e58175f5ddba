/**
 * Copy bandwidth on the same device, in the same run as the sort benchmark:
 * the ceiling a memory-bound radix pass can hope for on this GPU through
 * WebGPU (the datasheet figure is not what Dawn + the driver deliver).
 *
 *  - "copy": a plain WGSL compute kernel, one vec4<u32> per invocation,
 *    reading one storage buffer and writing another, timed with timestamp
 *    queries around its compute pass.
 *  - "copy-buffer": encoder.copyBufferToBuffer of the same size (the
 *    driver's own copy path), timed between two empty compute passes.
 *
 * Both use the stable warm-up of stable-timing.ts. "bytes" counts what is
 * read plus what is written (2 × the buffer size), as a sort phase's bytes
 * are counted in sort-table.mjs; GB/s = bytes / time (1 GB = 1e9 B).
 */
import { createCheckedShaderModule } from '../src/gpu/shader';
import { measureStable, timingFields, timingWarning, type StableTimingOptions } from './stable-timing';

const WORKGROUP = 256;

/** Past 65,535 workgroups a 1D dispatch does not fit, so the grid goes 2D (row width in the override). */
const COPY_WGSL = /* wgsl */ `
override ROW_GROUPS: u32 = 1u;
@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = gid.x + gid.y * ROW_GROUPS * ${WORKGROUP}u;
  if (i < arrayLength(&dst)) {
    dst[i] = src[i];
  }
}
`;

export interface CopyBandwidthRow extends Record<string, unknown> {
  impl: 'copy' | 'copy-buffer';
  /** Bytes read + bytes written per run. */
  bytes: number;
  ms: number | null;
  gbps: number | null;
}

/**
 * Measures both copies of `bufferBytes` (rounded down to 16 B and to the
 * device's binding and buffer limits; the rows say what was used).
 */
export async function measureCopyBandwidth(
  device: GPUDevice,
  bufferBytes: number,
  timing: StableTimingOptions & { tol: number },
  warn: (line: string) => void = (line) => console.error(line),
): Promise<CopyBandwidthRow[]> {
  const limit = Math.min(device.limits.maxStorageBufferBindingSize, device.limits.maxBufferSize);
  const size = Math.floor(Math.min(bufferBytes, limit) / 16) * 16;
  if (size < bufferBytes) warn(`warning: copy: ${bufferBytes} B exceeds the device's buffer limits; copying ${size} B instead`);
  const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
  const src = device.createBuffer({ label: 'bench.copy.src', size, usage });
  const dst = device.createBuffer({ label: 'bench.copy.dst', size, usage });
  // Non-zero contents, so no driver can take a shortcut on cleared memory.
  const fill = new Uint32Array(Math.min(size, 1 << 24) / 4).map((_, i) => i * 2654435761);
  for (let offset = 0; offset < size; offset += fill.byteLength) {
    device.queue.writeBuffer(src, offset, fill, 0, Math.min(fill.length, (size - offset) / 4));
  }

  const vec4s = size / 16;
  const groups = Math.ceil(vec4s / WORKGROUP);
  const rowGroups = Math.min(groups, device.limits.maxComputeWorkgroupsPerDimension);
  const rows = Math.ceil(groups / rowGroups);
  const module = await createCheckedShaderModule(device, 'bench.copy.wgsl', COPY_WGSL);
  const pipeline = await device.createComputePipelineAsync({
    label: 'bench.copy.pipeline',
    layout: 'auto',
    compute: { module, entryPoint: 'main', constants: { ROW_GROUPS: rowGroups } },
  });
  const bindGroup = device.createBindGroup({
    layout: pipeline.getBindGroupLayout(0),
    entries: [
      { binding: 0, resource: { buffer: src } },
      { binding: 1, resource: { buffer: dst } },
    ],
  });
  const stamps = new Timestamps(device);

  const kernel = async () => {
    const encoder = device.createCommandEncoder({ label: 'bench.copy.encoder' });
    const pass = encoder.beginComputePass({
      timestampWrites: { querySet: stamps.querySet, beginningOfPassWriteIndex: 0, endOfPassWriteIndex: 1 },
    });
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, bindGroup);
    pass.dispatchWorkgroups(rowGroups, rows);
    pass.end();
    return stamps.submitAndRead(encoder);
  };

  // copyBufferToBuffer is not a pass, so it cannot carry timestampWrites:
  // it is bracketed by two empty compute passes instead, timed from the end
  // of the first to the beginning of the second. (A timestamp is written once
  // the commands before it have completed, so the copy lies between them.)
  const copyBuffer = async () => {
    const encoder = device.createCommandEncoder({ label: 'bench.copyBuffer.encoder' });
    encoder.beginComputePass({ timestampWrites: { querySet: stamps.querySet, endOfPassWriteIndex: 0 } }).end();
    encoder.copyBufferToBuffer(src, 0, dst, 0, size);
    encoder.beginComputePass({ timestampWrites: { querySet: stamps.querySet, beginningOfPassWriteIndex: 1 } }).end();
    return stamps.submitAndRead(encoder);
  };

  const out: CopyBandwidthRow[] = [];
  for (const [impl, sample] of [
    ['copy', kernel],
    ['copy-buffer', copyBuffer],
  ] as const) {
    const result = await measureStable(sample, timing);
    const warning = timingWarning(`${impl} ${size} B`, result, timing.tol);
    if (warning) warn(warning);
    const fields = timingFields(result);
    const ms = fields.ms as number | null;
    const bytes = 2 * size;
    out.push({ impl, bytes, ...fields, ms, gbps: ms ? Math.round((bytes / (ms * 1e6)) * 10) / 10 : null });
  }
  stamps.destroy();
  src.destroy();
  dst.destroy();
  return out;
}

/**
 * Two timestamp queries, resolved and read back: ms from query 0 to query 1.
 * (GpuPassTimer pairs each pass's own begin and end, which does not fit the
 * bracketed copy.)
 */
class Timestamps {
  readonly querySet: GPUQuerySet;
  private readonly resolveBuffer: GPUBuffer;
  private readonly readBuffer: GPUBuffer;

  constructor(private readonly device: GPUDevice) {
    this.querySet = device.createQuerySet({ label: 'bench.copy.queries', type: 'timestamp', count: 2 });
    this.resolveBuffer = device.createBuffer({ size: 16, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
    this.readBuffer = device.createBuffer({ size: 16, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
  }

  /** Resolves the two queries at the end of `encoder`, submits it and waits for the interval. */
  async submitAndRead(encoder: GPUCommandEncoder): Promise<number> {
    encoder.resolveQuerySet(this.querySet, 0, 2, this.resolveBuffer, 0);
    encoder.copyBufferToBuffer(this.resolveBuffer, 0, this.readBuffer, 0, 16);
    this.device.queue.submit([encoder.finish()]);
    await this.readBuffer.mapAsync(GPUMapMode.READ);
    const [begin, end] = new BigInt64Array(this.readBuffer.getMappedRange());
    const ms = Number(end! - begin!) / 1e6;
    this.readBuffer.unmap();
    return Math.max(ms, 0);
  }

  destroy(): void {
    this.querySet.destroy();
    this.resolveBuffer.destroy();
    this.readBuffer.destroy();
  }
}
