/**
 * GPU time of named passes through timestamp queries. One begin/end pair per
 * name; `resolve` records the copy into a mappable buffer, `read` maps it.
 * Without the 'timestamp-query' feature, `timestampWrites` returns undefined
 * and `read` gives null for every pass, so callers can show "n/a".
 */
export class GpuPassTimer<Name extends string> {
  private readonly querySet: GPUQuerySet | null;
  private readonly resolveBuffer: GPUBuffer | null;
  private readonly readBuffer: GPUBuffer | null;
  private readonly index: Map<Name, number>;

  constructor(
    device: GPUDevice,
    readonly names: readonly Name[],
    label = 'GpuPassTimer',
  ) {
    this.index = new Map(names.map((n, i) => [n, i]));
    const enabled = device.features.has('timestamp-query');
    const count = 2 * names.length;
    this.querySet = enabled ? device.createQuerySet({ label: `${label}.querySet`, type: 'timestamp', count }) : null;
    this.resolveBuffer = enabled
      ? device.createBuffer({ label: `${label}.resolve`, size: 8 * count, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC })
      : null;
    this.readBuffer = enabled
      ? device.createBuffer({ label: `${label}.read`, size: 8 * count, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ })
      : null;
  }

  get enabled(): boolean {
    return this.querySet !== null;
  }

  timestampWrites(name: Name): GPUComputePassTimestampWrites | undefined {
    const i = this.index.get(name);
    if (!this.querySet || i === undefined) return undefined;
    return { querySet: this.querySet, beginningOfPassWriteIndex: 2 * i, endOfPassWriteIndex: 2 * i + 1 };
  }

  /** Records the copy of all timestamps; call after the timed passes, before finish(). */
  resolve(encoder: GPUCommandEncoder): void {
    if (!this.querySet || !this.resolveBuffer || !this.readBuffer) return;
    encoder.resolveQuerySet(this.querySet, 0, 2 * this.names.length, this.resolveBuffer, 0);
    encoder.copyBufferToBuffer(this.resolveBuffer, 0, this.readBuffer, 0, this.readBuffer.size);
  }

  /** Milliseconds per pass, after the resolving command buffer was submitted. */
  async read(): Promise<Record<Name, number | null>> {
    const out = {} as Record<Name, number | null>;
    if (!this.readBuffer) {
      for (const n of this.names) out[n] = null;
      return out;
    }
    await this.readBuffer.mapAsync(GPUMapMode.READ);
    const t = new BigInt64Array(this.readBuffer.getMappedRange());
    this.names.forEach((n, i) => {
      const ns = Number(t[2 * i + 1]! - t[2 * i]!);
      out[n] = ns > 0 ? ns / 1e6 : 0;
    });
    this.readBuffer.unmap();
    return out;
  }

  destroy(): void {
    this.querySet?.destroy();
    this.resolveBuffer?.destroy();
    this.readBuffer?.destroy();
  }
}
