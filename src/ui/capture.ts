/**
 * Renders one frame at any size into a texture of the canvas format, reads
 * it back and encodes it as PNG (through a 2D canvas). Used for screenshots:
 * the same camera, settings and view (the picture or the sort difference
 * view) as on screen, at the requested resolution.
 */
import type { FrameOrder, FrameView, SplatFrame } from '../app/splat-frame';
import type { FrameParameters } from '../render/frame-uniforms';

export async function captureFrame(
  device: GPUDevice,
  frame: SplatFrame,
  order: FrameOrder,
  format: GPUTextureFormat,
  parameters: FrameParameters,
  background: readonly [number, number, number],
  width: number,
  height: number,
  view: FrameView,
  projection: (out: FrameParameters['projection'], aspect: number) => void,
): Promise<Blob> {
  const params: FrameParameters = { ...parameters, width, height, projection: new Float32Array(16) };
  projection(params.projection, width / height);
  const texture = device.createTexture({ label: 'capture.target', size: [width, height], format, usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC });
  const bytesPerRow = Math.ceil((width * 4) / 256) * 256;
  const readback = device.createBuffer({ label: 'capture.readback', size: bytesPerRow * height, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
  try {
    const encoder = device.createCommandEncoder({ label: 'capture' });
    frame.encode(encoder, params, { view: texture.createView(), background }, order, { view });
    encoder.copyTextureToBuffer({ texture }, { buffer: readback, bytesPerRow }, [width, height]);
    device.queue.submit([encoder.finish()]);
    await readback.mapAsync(GPUMapMode.READ);
    const padded = new Uint8Array(readback.getMappedRange());
    const pixels = new Uint8ClampedArray(width * height * 4);
    const bgra = format === 'bgra8unorm';
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const from = y * bytesPerRow + 4 * x;
        const to = 4 * (y * width + x);
        pixels[to] = padded[from + (bgra ? 2 : 0)]!;
        pixels[to + 1] = padded[from + 1]!;
        pixels[to + 2] = padded[from + (bgra ? 0 : 2)]!;
        pixels[to + 3] = 255;
      }
    }
    readback.unmap();
    const canvas = document.createElement('canvas');
    canvas.width = width;
    canvas.height = height;
    canvas.getContext('2d')!.putImageData(new ImageData(pixels, width, height), 0, 0);
    return await new Promise<Blob>((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('the browser could not encode the PNG'))), 'image/png'));
  } finally {
    texture.destroy();
    readback.destroy();
  }
}
