/**
 * GPU time of named passes through timestamp queries. One begin/end pair per
 * name; `resolve` records the copy into a mappable buffer, `read` maps it.
 * Without the 'timestamp-query' feature, `timestampWrites` returns undefined
 * and `read` gives null for every pass, so callers can show "n/a".
 */
/**
 * Sets or clears a pass descriptor's (or options object's) timestampWrites,
 * for descriptors reused every frame: a pass that is not timed this frame
 * must not keep last frame's writes.
 */
export function setTimestampWrites<T extends { timestampWrites?: W }, W>(target: T, writes: W | undefined): void {
  if (writes) target.timestampWrites = writes;
  else delete target.timestampWrites;
}

/** The two halves of one timed span over several passes (GpuPassTimer.spanWrites). */
export interface TimestampSpan {
  first: GPUComputePassTimestampWrites & GPURenderPassTimestampWrites;
  last: GPUComputePassTimestampWrites & GPURenderPassTimestampWrites;
}

export class GpuPassTimer<Name extends string> {
  private readonly querySet: GPUQuerySet | null;
  private readonly resolveBuffer: GPUBuffer | null;
  private readonly readBuffer: GPUBuffer | null;
  /** One descriptor per pass, made once: timing a frame allocates nothing. */
  private readonly writes = new Map<Name, GPUComputePassTimestampWrites & GPURenderPassTimestampWrites>();
  private readonly spans = new Map<Name, TimestampSpan>();

  constructor(
    device: GPUDevice,
    readonly names: readonly Name[],
    label = 'GpuPassTimer',
  ) {
    const enabled = device.features.has('timestamp-query');
    const count = 2 * names.length;
    this.querySet = enabled ? device.createQuerySet({ label: `${label}.querySet`, type: 'timestamp', count }) : null;
    this.resolveBuffer = enabled
      ? device.createBuffer({ label: `${label}.resolve`, size: 8 * count, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC })
      : null;
    this.readBuffer = enabled
      ? device.createBuffer({ label: `${label}.read`, size: 8 * count, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ })
      : null;
    if (this.querySet) {
      const querySet = this.querySet;
      names.forEach((n, i) => {
        this.writes.set(n, { querySet, beginningOfPassWriteIndex: 2 * i, endOfPassWriteIndex: 2 * i + 1 });
        this.spans.set(n, { first: { querySet, beginningOfPassWriteIndex: 2 * i }, last: { querySet, endOfPassWriteIndex: 2 * i + 1 } });
      });
    }
  }

  get enabled(): boolean {
    return this.querySet !== null;
  }

  /** Timestamp writes for a compute or render pass; undefined without timestamp-query. */
  timestampWrites(name: Name): (GPUComputePassTimestampWrites & GPURenderPassTimestampWrites) | undefined {
    return this.writes.get(name);
  }

  /**
   * Timestamp writes for a name timed over several passes: `first` for the
   * pass it starts with (its beginning), `last` for the pass it ends with
   * (its end); undefined without timestamp-query.
   */
  spanWrites(name: Name): TimestampSpan | undefined {
    return this.spans.get(name);
  }

  /** Records the copy of all timestamps; call after the timed passes, before finish(). */
  resolve(encoder: GPUCommandEncoder): void {
    if (!this.querySet || !this.resolveBuffer || !this.readBuffer) return;
    encoder.resolveQuerySet(this.querySet, 0, 2 * this.names.length, this.resolveBuffer, 0);
    encoder.copyBufferToBuffer(this.resolveBuffer, 0, this.readBuffer, 0, this.readBuffer.size);
  }

  /**
   * Milliseconds per pass, after the resolving command buffer was submitted.
   * `ran`: the passes the resolved frame timed; the others give null (their
   * queries still hold an earlier frame's times).
   */
  async read(ran?: ReadonlySet<Name>): Promise<Record<Name, number | null>> {
    const out = {} as Record<Name, number | null>;
    if (!this.readBuffer) {
      for (const n of this.names) out[n] = null;
      return out;
    }
    await this.readBuffer.mapAsync(GPUMapMode.READ);
    const t = new BigInt64Array(this.readBuffer.getMappedRange());
    this.names.forEach((n, i) => {
      const ns = Number(t[2 * i + 1]! - t[2 * i]!);
      out[n] = ran && !ran.has(n) ? null : ns > 0 ? ns / 1e6 : 0;
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
