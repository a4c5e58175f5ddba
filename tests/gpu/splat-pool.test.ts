/**
 * The page pool's drawn mask and opacity scales (src/scene/splat-pool.ts),
 * as the GPU receives them: the bytes every write to the mask's buffer left
 * (tests/support/recording-device.ts) against the mask and scales the runs
 * call for, frame after frame of a fade; and how many writes that takes: a
 * frame that changes only opacities leaves the mask alone, and writes the
 * scales a stretch of neighbouring pages at a time.
 */
import { describe, expect, test } from 'vitest';
import { drawnMaskWords, SplatPool, type PooledChunk, type PooledRun } from '../../src/scene/splat-pool';
import { allocateSplatCloud } from '../../src/scene/splat-cloud';
import { useGpu } from '../support/gpu-fixture';
import { recording } from '../support/recording-device';

const PAGE = 256;
const gpu = useGpu('splat-pool.test');

/** The mask and scales `runs` call for in a pool of `count` splats (pages of PAGE). */
function expected(count: number, runs: readonly PooledRun[]): Uint8Array {
  const words = drawnMaskWords(count);
  const bytes = new Uint8Array(words * 4 + 4 * Math.ceil(count / 4));
  bytes.fill(255, words * 4);
  const mask = new Uint32Array(bytes.buffer, 0, words);
  for (const { chunk, offset, count: n, opacity = 1 } of runs) {
    for (let k = offset; k < offset + n; k++) {
      const at = chunk.pages[Math.floor(k / PAGE)]! * PAGE + (k % PAGE);
      mask[at >>> 5]! |= 1 << (at & 31);
      bytes[words * 4 + at] = Math.round(255 * opacity);
    }
  }
  return bytes;
}

describe('the pool\'s drawn mask and opacity scales', () => {
  test('are what the runs call for after every frame of a fade; a frame of opacities alone leaves the mask unwritten and writes the scales by stretches of pages', () => {
    const { device, bytes, writes } = recording(gpu.device);
    const pool = new SplatPool(device, 64 * PAGE, 0, 'pool-test', { pageSplats: PAGE });
    const buffer = pool.scene.drawnMask!;
    const size = pool.scene.count;
    const chunk = (n: number) => pool.add(allocateSplatCloud(n, 0))!;
    // Chunks over several pages, and one between them: the pages of a chunk are not all neighbours of each other.
    const a: PooledChunk = chunk(5 * PAGE + 17);
    chunk(PAGE);
    const b: PooledChunk = chunk(3 * PAGE);
    const frames: PooledRun[][] = [
      [{ chunk: a, offset: 0, count: a.count }],
      // b fades in over a's level: a fades out.
      ...[0.25, 0.5, 0.75].map((p) => [
        { chunk: a, offset: 0, count: a.count, opacity: 1 - p },
        { chunk: b, offset: 10, count: 2 * PAGE + 3, opacity: p },
      ]),
      [{ chunk: b, offset: 10, count: 2 * PAGE + 3 }],
      [{ chunk: b, offset: 10, count: 2 * PAGE + 3 }, { chunk: a, offset: PAGE + 5, count: 40, opacity: 0.5 }],
    ];
    const writesBefore: number[] = [];
    for (const runs of frames) {
      writesBefore.push(writes(buffer));
      pool.setDrawn(runs);
      expect(bytes(buffer).subarray(0, expected(size, runs).length)).toEqual(expected(size, runs));
    }
    writesBefore.push(writes(buffer));
    const perFrame = writesBefore.slice(1).map((w, f) => w - writesBefore[f]!);
    // The second and third frames of the fade change opacities alone: no mask, and the scales of a's and b's
    // pages in at most as many writes as there are stretches of neighbouring pages among them (a's 6 and b's 3,
    // one page apart: 2), where a write for each range of each run took 18.
    expect(perFrame[2]).toBeLessThanOrEqual(2);
    expect(perFrame[3]).toBeLessThanOrEqual(2);
    // The frame whose runs change writes its mask.
    expect(perFrame[4]).toBeGreaterThanOrEqual(1);
  });
});
