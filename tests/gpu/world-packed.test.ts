/**
 * Splats packed where a world's chunks are decoded (src/scene/splat-packing.ts,
 * in the page's workers) land in the page pool byte for byte as the same
 * splats packed by the pool itself (GpuSplats.writeSplats from the
 * decoded cloud): at SH degrees 0 and 3, for a chunk whose used splats are
 * fewer than its count, and for splats packed at another degree than the
 * pool's (copied half floats, cut or zero-filled). A world session fed
 * packed chunks draws exactly the runs it chose, as the session fed
 * decoded ones does (tests/gpu/world-session.test.ts), asks its reader
 * to pack at the pool's degree once the pool is made, and gives each
 * chunk's arrays back to it only once they are written (taken away, as a
 * transfer takes them, they would leave holes in the picture). Dawn over
 * SwiftShader.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { SplatPool } from '../../src/scene/splat-pool';
import { packCloud, type PackedSplats, type PoolSplats } from '../../src/scene/splat-packing';
import type { ShDegree, SplatCloud } from '../../src/scene/splat-cloud';
import { WorldSession, type WorldChunks } from '../../src/app/world/world-session';
import { WORLD_DEFAULTS } from '../../src/app/world/world-options';
import { renderOffscreen } from '../../bench/render-offscreen';
import type { GpuSplats } from '../../src/scene/gpu-splats';
import { realScene, useGpu } from '../support/gpu-fixture';
import { cameraLookingAt, drawnFraction } from '../support/test-view';
import { settleWorld } from '../support/world-settle';
import { recording } from '../support/recording-device';
import { joinClouds, subsetCloud, syntheticChunks, syntheticWorld } from '../support/synthetic-world';

/** Pages of 256 splats in chunk buffers of 4,096 (at SH degree 3): a chunk spans pages across buffers. */
const POOL = { pageSplats: 256, maxChunkBytes: 4096 * 244 };
const WIDTH = 96;
const HEIGHT = 64;
const BACKGROUND: [number, number, number] = [0, 0, 0];

const gpu = useGpu('world-packed.test');
let cloud: SplatCloud;

beforeAll(async () => {
  cloud = await realScene('inria_kacytran_iter7000_9k_sh3.ply');
});

describe('packed splats in the pool', () => {
  /**
   * The pool's words after adding a few hundred other splats (so the chunk
   * starts mid-page) and then `splats`: what was written to its chunk
   * buffers (which the GPU cannot copy out: they are storage only), seen
   * on their way to the device.
   */
  function written(poolDegree: ShDegree, splats: PoolSplats, used: number): Uint32Array[] {
    const { device, words } = recording(gpu.device);
    const pool = new SplatPool(device, 3 * 4096, poolDegree, 'packed-test', POOL);
    try {
      expect(pool.add(subsetCloud(cloud, Array.from({ length: 300 }, (_, k) => k)))).not.toBeNull();
      expect(pool.add(splats, used)).not.toBeNull();
      return pool.scene.chunks.map((buffer) => words(buffer));
    } finally {
      pool.destroy();
    }
  }

  const differing = (a: Uint32Array[], b: Uint32Array[]): number => {
    let n = 0;
    for (let c = 0; c < a.length; c++) for (let i = 0; i < a[c]!.length; i++) if (a[c]![i] !== b[c]![i]) n++;
    return n;
  };

  const noSh = (): SplatCloud => ({ ...cloud, shDegree: 0, sh: new Float32Array(0) });

  // [pool's degree, the cloud's, the degree it is packed at]
  const cases: [ShDegree, 'sh3' | 'sh0', ShDegree][] = [
    [3, 'sh3', 3],
    [0, 'sh3', 0],
    [3, 'sh0', 0],
    [0, 'sh0', 0],
    // Packed before the pool was made, at the chunk's own degree: the pool converts the words.
    [1, 'sh3', 3],
    [2, 'sh3', 3],
  ];
  for (const [poolDegree, kind, packDegree] of cases) {
    test(`a chunk of SH degree ${kind === 'sh3' ? 3 : 0} packed at ${packDegree}, its used splats fewer than its count, in a pool of degree ${poolDegree}: the bytes the pool packs`, async () => {
      const source = kind === 'sh3' ? cloud : noSh();
      const used = source.count - 1234;
      const packed = packCloud(source, used, packDegree);
      expect(packed.count).toBe(used);
      const [fromCloud, fromPacked] = [written(poolDegree, source, used), written(poolDegree, packed, used)];
      expect(fromCloud.some((words) => words.some((w) => w !== 0)), 'something was written').toBe(true);
      expect(differing(fromCloud, fromPacked), 'words that differ').toBe(0);
    });
  }
});

describe('a world session fed packed chunks', () => {
  test('draws exactly the runs it chose, its reader packs at the pool\'s degree once the pool is made, and takes each chunk\'s arrays back once written', async () => {
    const world = syntheticWorld(cloud, 3, 2);
    const decoded = syntheticChunks(world);
    // Before the pool is made a chunk is packed at its own degree; after, at the one the session gives.
    const asked: ShDegree[] = [];
    let packAt: ShDegree | null = null;
    const chunks: WorldChunks = {
      ...decoded,
      readChunk: async (file, signal) => {
        const { cloud: read, bytes } = await decoded.readChunk(file, signal);
        const source = read as SplatCloud;
        const packed = packCloud(source, decoded.usedSplats[file], packAt ?? source.shDegree);
        reads.push(packed);
        return { cloud: packed, bytes };
      },
      packAt: (degree) => {
        asked.push(degree);
        packAt = degree;
      },
      // As the page's workers take them: transferred, so a read of them after would find them empty.
      recycle: (splats) => {
        expect(recycled.has(splats), 'recycled twice').toBe(false);
        recycled.add(splats);
        const buffers = [splats.records.buffer, splats.sh.buffer].filter((b) => b.byteLength > 0);
        structuredClone(buffers, { transfer: buffers });
      },
    };
    const reads: PackedSplats[] = [];
    const recycled = new Set<PackedSplats>();
    const [frame, order] = await Promise.all([gpu.frame(), gpu.gpuOrder()]);
    const { min, max } = world.level(0).bounds;
    const size = Math.max(max[0] - min[0], max[2] - min[2]);
    const near = cameraLookingAt(cloud, [0.1 * size, -0.05 * size, -0.4 * size], WIDTH, HEIGHT, BACKGROUND);
    const session = new WorldSession(gpu.device, chunks, { ...WORLD_DEFAULTS, budget: 1e6, thresholdPx: 1, memoryBytes: 64 * 2 ** 20, maxInFlight: 2, fadeMs: 0, pool: POOL });
    gpu.own({ destroy: () => session.close() });
    await settleWorld(session, near);
    expect(asked).toEqual([3]);
    expect(session.drawnRuns.some((d) => d.level === 0)).toBe(true);
    expect(recycled.size, 'chunks whose arrays were taken back').toBe(reads.length);
    expect(reads.every((r) => r.records.byteLength === 0)).toBe(true);

    const picture = async (scene: GpuSplats, maxDrawn = scene.count): Promise<Uint8Array> => {
      frame.setScene(scene, maxDrawn);
      return (await renderOffscreen(gpu.device, frame, order, scene, near)).rgba;
    };
    const pooled = await picture(session.scene!, session.maxDrawn);
    const drawn = joinClouds(session.drawnRuns.map(({ run }) => subsetCloud(world.clouds[run.file]!, Array.from({ length: run.count }, (_, k) => run.offset + k))));
    const single = gpu.upload(drawn, 'drawn as one scene');
    const reference = await picture(single);
    gpu.release(single);
    expect(drawnFraction({ rgba: pooled, width: WIDTH, height: HEIGHT }, BACKGROUND)).toBeGreaterThan(0.2);
    let differing = 0;
    for (let i = 0; i < pooled.length; i++) if (pooled[i] !== reference[i]) differing++;
    expect(differing, 'bytes of the picture that differ').toBe(0);
  });
});
