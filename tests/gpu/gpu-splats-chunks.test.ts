/**
 * Scenes split across several chunk buffers (src/scene/gpu-splats.ts): the
 * layout arithmetic at real GPU limits, and, with the per-buffer limit
 * lowered so a real 9k-splat scene splits into 3 or 4 chunks, projected
 * splats, draw orders and pictures (the per-pixel order's too)
 * byte-identical to the same scene in one buffer (Dawn over
 * SwiftShader). A scene needing more chunks than the shaders bind is refused
 * with a RangeError that says how many splats fit.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import type { vec3 } from 'gl-matrix';
import { readBufferU32 } from '../../src/gpu/readback';
import { chunkLayout, GpuSplats, MAX_CHUNKS, storageBufferLimit } from '../../src/scene/gpu-splats';
import type { SplatFrame } from '../../src/app/frame/splat-frame';
import type { GpuSortOrder } from '../../src/app/frame/order/gpu-sort-order';
import { VISIBLE_STATE } from '../../src/render/frame-layouts';
import type { FrameParameters } from '../../src/render/frame-uniforms';
import { shCoefficients, type ShDegree, type SplatCloud } from '../../src/scene/splat-cloud';
import { realScene, useGpu } from '../support/gpu-fixture';
import { coveredFraction, medianCentre, viewOf } from '../support/test-view';

const MiB = 2 ** 20;
const DEGREES: ShDegree[] = [0, 1, 2, 3];
/** The record, then the SH as half floats, two to a word, each splat's from a word of its own. */
const bytesPerSplat = (d: ShDegree) => 64 + 4 * Math.ceil((3 * shCoefficients(d)) / 2);

describe('chunk layout', () => {
  test('chunk sizes at typical limits', () => {
    // [limit, SH degree, splats per chunk]
    const cases: [number, ShDegree, number][] = [
      [128 * MiB, 3, 2 ** 19], // 156 B/splat: 524,288 per chunk, 2,097,152 in all
      [128 * MiB, 0, 2 ** 21], // 64 B/splat fill 128 MiB exactly
      [256 * MiB, 3, 2 ** 20],
      [2 ** 31 - 4, 3, 2 ** 23], // 2 GiB - 4 (a common maxStorageBufferBindingSize)
      [2 ** 32 - 4, 3, 2 ** 24],
      [2 ** 32 - 4, 0, 2 ** 25], // 2^26 * 64 B would be exactly 4 GiB, 4 bytes over: S halves
    ];
    for (const [limit, degree, splats] of cases) {
      const layout = chunkLayout(1, degree, limit);
      expect(layout.chunkSplats, `${limit} B, degree ${degree}`).toBe(splats);
      expect(layout.chunkShift).toBe(Math.log2(splats));
      expect(layout.maxSplats).toBe(MAX_CHUNKS * splats);
    }
  });

  for (const degree of DEGREES) {
    for (const limit of [2048, 5000, 499_712, 128 * MiB]) {
      test(`SH degree ${degree}, limit ${limit} bytes: S, C and offsets for counts around S`, () => {
        const bps = bytesPerSplat(degree);
        const S = chunkLayout(0, degree, limit).chunkSplats;
        // S is the largest power of two whose chunk (rounded to 16 bytes) fits the limit.
        expect(Number.isInteger(Math.log2(S))).toBe(true);
        expect(Math.ceil((S * bps) / 16) * 16).toBeLessThanOrEqual(limit);
        expect(Math.ceil((2 * S * bps) / 16) * 16).toBeGreaterThan(limit);

        for (const count of [0, 1, S - 1, S, S + 1, 4 * S]) {
          const layout = chunkLayout(count, degree, limit);
          expect(layout.shFloats).toBe(3 * shCoefficients(degree));
          expect(layout.chunks.length).toBe(Math.max(1, Math.ceil(count / S)));
          let total = 0;
          for (const [c, chunk] of layout.chunks.entries()) {
            expect(chunk.first).toBe(c * S);
            expect(chunk.count).toBe(Math.max(0, Math.min(S, count - c * S)));
            expect(chunk.shStart).toBe(16 * chunk.count);
            expect(chunk.bytes % 16).toBe(0);
            expect(chunk.bytes).toBeGreaterThanOrEqual(Math.max(16, chunk.count * bps));
            expect(chunk.bytes).toBeLessThan(Math.max(16, chunk.count * bps) + 16);
            expect(chunk.bytes).toBeLessThanOrEqual(limit);
            total += chunk.count;
          }
          expect(total).toBe(count);
        }
        expect(() => chunkLayout(4 * S + 1, degree, limit)).toThrow(RangeError);
        expect(() => chunkLayout(4 * S + 1, degree, limit)).toThrow(`at most ${(4 * S).toLocaleString('en-US')} splats`);
      });
    }
  }

  test('a limit under one splat is refused', () => {
    expect(() => chunkLayout(1, 3, bytesPerSplat(3) - 4)).toThrow(RangeError);
    expect(chunkLayout(1, 3, Math.ceil(bytesPerSplat(3) / 16) * 16).chunkSplats).toBe(1);
    expect(chunkLayout(1, 0, 64).chunkSplats).toBe(1);
  });
});

describe('split scenes on the GPU', () => {
  const gpu = useGpu('gpu-splats-chunks.test');
  let cloud: SplatCloud;
  let frame: SplatFrame;
  let order: GpuSortOrder;
  let centre: vec3;

  beforeAll(async () => {
    cloud = await realScene('inria_kacytran_iter7000_9k_sh3.ply');
    [frame, order] = await Promise.all([gpu.frame(), gpu.gpuOrder()]);
    await frame.painters.tiles.prepare(true);
    centre = medianCentre(cloud);
  });

  /** The first `count` splats of the scene, with the SH cut to `degree`. */
  function prefix(count: number, degree: ShDegree): SplatCloud {
    const k0 = shCoefficients(cloud.shDegree);
    const k = shCoefficients(degree);
    const sh = new Float32Array(count * k * 3);
    for (let i = 0; i < count; i++) sh.set(cloud.sh.subarray(i * k0 * 3, (i * k0 + k) * 3), i * k * 3);
    return {
      count,
      shDegree: degree,
      positions: cloud.positions.slice(0, 3 * count),
      scales: cloud.scales.slice(0, 3 * count),
      rotations: cloud.rotations.slice(0, 4 * count),
      opacities: cloud.opacities.slice(0, count),
      dc: cloud.dc.slice(0, 3 * count),
      sh,
      bounds: cloud.bounds,
    };
  }

  function parameters(scene: GpuSplats): FrameParameters {
    return viewOf(centre, { splatCount: scene.count, shDegree: scene.shDegree }, 32);
  }


  /**
   * One whole frame (projector, GPU sort, render): the projected splats
   * (depths, and the records of the kept ones), the draw order and the
   * picture; and the picture of the tile renderer's per-pixel order (its
   * ray shapes read from the chunks).
   */
  async function render(scene: GpuSplats): Promise<{ depths: Uint32Array; records: Uint32Array; order: Uint32Array; pixels: Uint8Array; perPixel: Uint8Array }> {
    frame.setScene(scene);
    const { device } = gpu;
    device.pushErrorScope('out-of-memory');
    const perPixel = await gpu.render(frame, parameters(scene), order, { renderer: 'tiles', order: 'per-pixel' });
    expect(frame.drawnOrder).toBe('per-pixel');
    const pixels = await gpu.render(frame, parameters(scene), order);
    expect((await device.popErrorScope())?.message ?? null, 'out of memory').toBeNull();
    const visible = (await readBufferU32(device, frame.projector.state!, VISIBLE_STATE.size / 4))[VISIBLE_STATE.word('visible')]!;
    const depths = await readBufferU32(device, frame.projector.depths!, scene.count);
    const records = await readBufferU32(device, frame.projector.records!, 8 * scene.count);
    // Only kept splats get a record this frame: blank the others.
    const culled = new Uint32Array(new Float32Array([-1]).buffer)[0]!;
    depths.forEach((d, i) => d === culled && records.fill(0, 8 * i, 8 * i + 8));
    return { depths, records, order: await readBufferU32(device, order.sorter.resultBuffers(32).values, visible), pixels, perPixel };
  }

  /** Uploads `source` whole and split with `maxChunkBytes`; everything read back must match byte for byte. */
  async function expectSplitMatchesWhole(source: SplatCloud, maxChunkBytes: number, chunks: number): Promise<void> {
    const whole = gpu.upload(source, 'whole');
    const split = gpu.upload(source, 'split', { maxChunkBytes });
    try {
      expect(whole.chunks.length).toBe(1);
      expect(split.chunks.length).toBe(chunks);
      const pa = await render(whole);
      const pb = await render(split);
      expect(coveredFraction(pa.pixels)).toBeGreaterThan(0.05);
      expect(pa.order.length).toBeGreaterThan(source.count / 10);
      expect(Buffer.from(pb.depths.buffer).equals(Buffer.from(pa.depths.buffer))).toBe(true);
      expect(Buffer.from(pb.records.buffer).equals(Buffer.from(pa.records.buffer))).toBe(true);
      expect(Buffer.from(pb.order.buffer).equals(Buffer.from(pa.order.buffer))).toBe(true);
      expect(coveredFraction(pa.perPixel)).toBeGreaterThan(0.05);
      for (const picture of ['pixels', 'perPixel'] as const) {
        let differing = 0;
        for (let i = 0; i < pa[picture].length; i++) if (pa[picture][i] !== pb[picture][i]) differing++;
        expect(differing, `bytes of the ${picture === 'pixels' ? 'picture' : 'per-pixel picture'} that differ`).toBe(0);
      }
    } finally {
      gpu.release(whole);
      gpu.release(split);
    }
  }

  test('the device limit holds the test scene in one chunk', () => {
    expect(storageBufferLimit(gpu.device)).toBeGreaterThan(cloud.count * bytesPerSplat(3));
    expect(cloud.shDegree).toBe(3);
    expect(cloud.count).toBeGreaterThan(2 * 4096);
  });

  test('SH degree 3, all 9k splats in 3 chunks of 4096: identical projection, order and picture', async () => {
    await expectSplitMatchesWhole(cloud, 4096 * bytesPerSplat(3), 3);
  });

  test('SH degree 3, 7000 splats in 4 chunks of 2048 (the last partial): identical', async () => {
    await expectSplitMatchesWhole(prefix(7000, 3), 2048 * bytesPerSplat(3), 4);
  });

  test('SH degree 1 (9 floats a splat, SH not vec4-aligned), 8192 splats in 4 full chunks: identical', async () => {
    await expectSplitMatchesWhole(prefix(8192, 1), 2048 * bytesPerSplat(1) + 15, 4);
  });

  test('SH degree 0 (no SH region), 7000 splats in 4 chunks: identical', async () => {
    await expectSplitMatchesWhole(prefix(7000, 0), 2048 * bytesPerSplat(0), 4);
  });

  test('a scene that needs 5 chunks is refused with how many splats fit', () => {
    const attempt = () => new GpuSplats(gpu.device, cloud, 'too-big', { maxChunkBytes: 2048 * bytesPerSplat(3) });
    expect(attempt).toThrow(RangeError);
    expect(attempt).toThrow(/9,\d{3} splats of SH degree 3 .*maxChunkBytes.*at most 8,192 splats .*needs 5 chunks/);
  });

  test('an empty scene clears to the background', async () => {
    const empty = gpu.upload(prefix(0, 3), 'empty', { maxChunkBytes: 4096 });
    try {
      expect(empty.chunks.length).toBe(1);
      const { pixels } = await render(empty);
      expect(coveredFraction(pixels)).toBe(0);
    } finally {
      gpu.release(empty);
    }
  });
});
