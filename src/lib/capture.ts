/**
 * Screenshots: the Viewer draws the view on screen again at the size asked
 * for (src/app/viewer.ts capture) and the browser encodes its pixels as a
 * PNG, through a 2D canvas.
 */

/** The largest side a picture may have: the texture size every WebGPU device offers (maxTextureDimension2D's default). */
const MAX_PICTURE_SIDE = 8192;

/** A picture's width or height, checked: a whole number of pixels from 1 to MAX_PICTURE_SIDE, or a RangeError naming it. */
export function pictureSide(name: 'width' | 'height', value: number): number {
  if (!Number.isInteger(value) || value < 1 || value > MAX_PICTURE_SIDE) {
    throw new RangeError(`a picture's ${name} must be a whole number of pixels from 1 to ${MAX_PICTURE_SIDE}, got ${value}`);
  }
  return value;
}

/** Tightly packed RGBA rows → a PNG (alpha set opaque: the canvas is drawn opaque). */
export async function encodePng(rgba: Uint8Array, width: number, height: number): Promise<Blob> {
  const pixels = new Uint8ClampedArray(rgba);
  for (let i = 3; i < pixels.length; i += 4) pixels[i] = 255;
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  canvas.getContext('2d')!.putImageData(new ImageData(pixels, width, height), 0, 0);
  return new Promise<Blob>((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('the browser could not encode the PNG'))), 'image/png'));
}
