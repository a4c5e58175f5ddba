/**
 * The per-pixel queue's length (src/render/tiles/tile-raster.ts): each of
 * its places and the arrival name a slot in the key's SLOT_BITS
 * (shaders/tile_raster_per_pixel.wgsl), so a queue longer than those bits
 * name would give two splats one slot; it is refused before any pipeline
 * is made.
 */
import { describe, expect, test } from 'vitest';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { checkedPixelQueue, DEFAULT_PIXEL_QUEUE, MAX_PIXEL_QUEUE } from '../../src/render/tiles/tile-raster';

const shader = readFileSync(fileURLToPath(new URL('../../shaders/tile_raster_per_pixel.wgsl', import.meta.url)), 'utf8');

describe('the per-pixel queue', () => {
  test('its longest queue is what the shader\'s slot bits name, places and arrival together', () => {
    const bits = Number(/const SLOT_BITS: u32 = (\d+)u;/.exec(shader)?.[1]);
    expect(bits).toBeGreaterThan(0);
    expect(MAX_PIXEL_QUEUE + 1).toBe(2 ** bits);
    expect(DEFAULT_PIXEL_QUEUE).toBeLessThanOrEqual(MAX_PIXEL_QUEUE);
  });

  test('a queue from 1 to the longest is taken, any other refused with what is wrong', () => {
    for (const q of [1, 4, 16, MAX_PIXEL_QUEUE]) expect(checkedPixelQueue(q)).toBe(q);
    for (const q of [0, -1, 2.5, MAX_PIXEL_QUEUE + 1, Number.NaN]) {
      expect(() => checkedPixelQueue(q)).toThrow(RangeError);
      expect(() => checkedPixelQueue(q)).toThrow(`from 1 to ${MAX_PIXEL_QUEUE}, not ${q}`);
    }
  });
});
