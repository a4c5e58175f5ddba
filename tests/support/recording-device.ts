/**
 * A device whose queue's writeBuffer calls are kept on the CPU as well, so
 * a test reads what was written to a buffer, and how many writes it took,
 * without a readback: each buffer's bytes as the writes left them.
 */
export function recording(device: GPUDevice): { device: GPUDevice; words: (buffer: GPUBuffer) => Uint32Array; bytes: (buffer: GPUBuffer) => Uint8Array; writes: (buffer: GPUBuffer) => number } {
  const kept = new Map<GPUBuffer, Uint8Array>();
  const counts = new Map<GPUBuffer, number>();
  const writeBuffer = (buffer: GPUBuffer, offset: number, data: BufferSource, dataOffset = 0, size?: number): void => {
    const element = ArrayBuffer.isView(data) ? ((data as unknown as { BYTES_PER_ELEMENT?: number }).BYTES_PER_ELEMENT ?? 1) : 1;
    const view = ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : new Uint8Array(data);
    const bytes = view.subarray(dataOffset * element, size === undefined ? undefined : (dataOffset + size) * element);
    let into = kept.get(buffer);
    if (!into) kept.set(buffer, (into = new Uint8Array(buffer.size)));
    into.set(bytes, offset);
    counts.set(buffer, (counts.get(buffer) ?? 0) + 1);
    device.queue.writeBuffer(buffer, offset, data, dataOffset, size);
  };
  const queue = new Proxy(device.queue, {
    get: (target, key) => {
      if (key === 'writeBuffer') return writeBuffer;
      const value = Reflect.get(target, key, target) as unknown;
      // The queue's own methods called on it, not on the proxy (submit checks its receiver).
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  const proxied = new Proxy(device, {
    get: (target, key) => {
      if (key === 'queue') return queue;
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  const bytesOf = (buffer: GPUBuffer) => kept.get(buffer) ?? new Uint8Array(buffer.size);
  return { device: proxied, words: (buffer) => new Uint32Array(bytesOf(buffer).buffer), bytes: bytesOf, writes: (buffer) => counts.get(buffer) ?? 0 };
}
