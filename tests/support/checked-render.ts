/**
 * renderOffscreen for the GPU tests: the frame drawn (an overflowed tile
 * frame again, as renderOffscreen does) and read back, failing the test on
 * any WebGPU validation error it raised.
 */
import { expect } from 'vitest';
import { renderOffscreen } from '../../bench/render-offscreen';
import type { OffscreenPicture } from '../../src/app/frame/offscreen-render';

export async function renderChecked(...args: Parameters<typeof renderOffscreen>): Promise<OffscreenPicture> {
  const device = args[0];
  device.pushErrorScope('validation');
  const picture = await renderOffscreen(...args);
  const error = await device.popErrorScope();
  expect(error?.message ?? null, 'WebGPU validation error').toBeNull();
  return picture;
}
