/** Copies the first `byteLength` bytes of a GPU buffer back to the CPU (tests, self-test, benchmark). */
export async function readBufferU32(device: GPUDevice, source: GPUBuffer, count: number): Promise<Uint32Array> {
  const byteLength = Math.max(4, count * 4);
  const staging = device.createBuffer({
    label: 'readBufferU32.staging',
    size: Math.ceil(byteLength / 4) * 4,
    usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ,
  });
  const encoder = device.createCommandEncoder({ label: 'readBufferU32.encoder' });
  encoder.copyBufferToBuffer(source, 0, staging, 0, staging.size);
  device.queue.submit([encoder.finish()]);
  await staging.mapAsync(GPUMapMode.READ);
  const out = new Uint32Array(staging.getMappedRange().slice(0, count * 4));
  staging.unmap();
  staging.destroy();
  return out;
}
