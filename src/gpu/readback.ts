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

/**
 * Copies an 8-bit, four-channel texture (rgba8unorm or bgra8unorm) back to
 * the CPU as tightly packed RGBA rows, top row first; a bgra texture's
 * channels are put in RGBA order. Alpha is copied as it is.
 */
export async function readTextureRgba(device: GPUDevice, texture: GPUTexture): Promise<Uint8Array> {
  const { width, height, format } = texture;
  if (format !== 'rgba8unorm' && format !== 'bgra8unorm') throw new Error(`readTextureRgba reads 8-bit RGBA or BGRA textures, not ${format}`);
  const bytesPerRow = Math.ceil((width * 4) / 256) * 256;
  const staging = device.createBuffer({ label: 'readTextureRgba.staging', size: bytesPerRow * height, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
  try {
    const encoder = device.createCommandEncoder({ label: 'readTextureRgba.encoder' });
    encoder.copyTextureToBuffer({ texture }, { buffer: staging, bytesPerRow }, [width, height]);
    device.queue.submit([encoder.finish()]);
    await staging.mapAsync(GPUMapMode.READ);
    const padded = new Uint8Array(staging.getMappedRange());
    const rgba = new Uint8Array(width * height * 4);
    for (let y = 0; y < height; y++) rgba.set(padded.subarray(y * bytesPerRow, y * bytesPerRow + width * 4), y * width * 4);
    staging.unmap();
    if (format === 'bgra8unorm') {
      for (let i = 0; i < rgba.length; i += 4) {
        const b = rgba[i]!;
        rgba[i] = rgba[i + 2]!;
        rgba[i + 2] = b;
      }
    }
    return rgba;
  } finally {
    staging.destroy();
  }
}
