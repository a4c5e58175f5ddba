/**
 * The page pool's drawn mask and opacity scales (src/scene/splat-pool.ts),
 * as the GPU holds them after each frame (read back) against the mask and
 * scales the runs call for, frame after frame of a fade and over random
 * runs and opacities; and what the CPU sends for them: both are set on the
 * GPU from the stretches of the pool the runs cover (src/scene/pool-mask.ts),
 * never written from the CPU, by a pass the frame's own encoder records
 * ahead of the projector (no encoder or submit of its own).
 */
import { describe, expect, test } from 'vitest';
import { drawnMaskWords, SplatPool, type PooledChunk, type PooledRun } from '../../src/scene/splat-pool';
import { allocateSplatCloud } from '../../src/scene/splat-cloud';
import { readBufferU32 } from '../../src/gpu/readback';
import { useGpu } from '../support/gpu-fixture';
import { SplatProjector } from '../../src/render/splat-projector';
import { TileRayShapes } from '../../src/render/tiles/tile-ray-shapes';
import { FRAME } from '../../src/render/frame-layouts';
import { createNodeGpu } from '../../src/gpu/node-gpu';
import { mat4, vec3 } from 'gl-matrix';
import { PROJECT_TILE } from '../../src/scene/drawn-tiles';
import type { FrameParameters } from '../../src/render/frame-uniforms';
import { recording } from '../support/recording-device';
import { rng } from '../support/splat-files';

const PAGE = 256;
const gpu = useGpu('splat-pool.test');

/**
 * Checks the mask's buffer as the GPU holds it against `runs` in a pool of
 * `count` splats (pages of PAGE): exactly the runs' bits, and each drawn
 * splat's scale its run's opacity (a splat no run draws may keep any scale:
 * the projector never reads it).
 */
async function expectDrawn(device: GPUDevice, pool: SplatPool, runs: readonly PooledRun[], what: string): Promise<void> {
  // Read outside a frame: what setDrawn left for the next frame's encoder is submitted on its own.
  pool.flushMask();
  const count = pool.scene.count;
  const words = drawnMaskWords(count);
  const mask = new Uint32Array(words);
  const scales = new Map<number, number>();
  for (const { chunk, offset, count: n, opacity = 1 } of runs) {
    for (let k = offset; k < offset + n; k++) {
      const at = chunk.pages[Math.floor(k / PAGE)]! * PAGE + (k % PAGE);
      mask[at >>> 5]! |= 1 << (at & 31);
      scales.set(at, Math.round(255 * opacity));
    }
  }
  const buffer = pool.scene.drawnMask!;
  const held = await readBufferU32(device, buffer, buffer.size / 4);
  expect(held.subarray(0, words), `${what}: the mask`).toEqual(mask);
  const bytes = new Uint8Array(held.buffer, held.byteOffset + 4 * words, count);
  const wrong = [...scales].filter(([at, scale]) => bytes[at] !== scale);
  expect(wrong.slice(0, 5), `${what}: splats whose scale is not their run's (${wrong.length})`).toEqual([]);
}

/** `device`, keeping every buffer made through it. */
function watchingBuffers(device: GPUDevice): { device: GPUDevice; made: GPUBuffer[] } {
  const made: GPUBuffer[] = [];
  const watched = new Proxy(device, {
    get: (target, key) => {
      if (key === 'createBuffer') return (d: GPUBufferDescriptor) => made[made.push(target.createBuffer(d)) - 1]!;
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { device: watched, made };
}

describe('the pool\'s drawn mask and opacity scales', () => {
  test('are what the runs call for after every frame of a fade; neither is written from the CPU, and a frame of opacities alone writes nothing to their buffer and sends only the runs fading now or just before', async () => {
    const { device: recorded, writes, words, bytes } = recording(gpu.device);
    // The mask pass's own buffers, to read how many pieces each frame sent.
    const { device, made } = watchingBuffers(recorded);
    const pool = new SplatPool(device, 64 * PAGE, 0, 'pool-test', { pageSplats: PAGE });
    const counts = made.find((b) => b.label === 'pool-test.mask.count')!;
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
      // The same run whole again: its scales go back to 255.
      [{ chunk: b, offset: 10, count: 2 * PAGE + 3 }],
      [{ chunk: b, offset: 10, count: 2 * PAGE + 3 }, { chunk: a, offset: PAGE + 5, count: 40, opacity: 0.5 }],
      [{ chunk: b, offset: 10, count: 2 * PAGE + 3 }, { chunk: a, offset: PAGE + 5, count: 40 }],
      [{ chunk: b, offset: 10, count: 2 * PAGE + 3 }, { chunk: a, offset: PAGE + 5, count: 40 }],
      [],
    ];
    const writesBefore: number[] = [];
    /** Per frame: the pieces the mask pass was sent, or null where no pass ran. */
    const sent: (number | null)[] = [];
    for (const [f, runs] of frames.entries()) {
      writesBefore.push(writes(buffer));
      const passes = writes(counts);
      pool.setDrawn(runs);
      sent.push(writes(counts) > passes ? words(counts)[0]! : null);
      await expectDrawn(gpu.device, pool, runs, `frame ${f}`);
    }
    writesBefore.push(writes(buffer));
    const perFrame = writesBefore.slice(1).map((w, f) => w - writesBefore[f]!);
    // The frames whose runs changed write the tile list after the scales, once; those of opacities alone, nothing.
    expect(perFrame).toEqual([1, 1, 0, 0, 1, 1, 0, 0, 1]);
    // Frame 6 sets back the scales of a's short run alone (b's run was whole before too), and frame 7, where nothing
    // fades and the runs are the same, runs no pass; the frames whose runs changed send every run's pieces.
    expect(sent[6]).toBe(1);
    expect(sent[7]).toBeNull();
    expect(sent[5]).toBeGreaterThan(1);
    expect(sent[8]).toBe(0);
    expect(bytes(buffer).subarray(0, 4 * drawnMaskWords(size) + size).every((b) => b === 0)).toBe(true);
  });

  test('hold exactly the bits and scales of random runs: pieces within one word, across words, joined across neighbouring pages, and none; pages reused by another chunk', async () => {
    const rand = rng(41);
    const pool = new SplatPool(gpu.device, 40 * PAGE, 0, 'pool-random', { pageSplats: PAGE });
    const chunks: PooledChunk[] = [];
    for (let n = 0; n < 8; n++) chunks.push(pool.add(allocateSplatCloud(1 + Math.floor(rand() * 4 * PAGE), 0))!);
    let runs: PooledRun[] = [];
    for (let frame = 0; frame < 16; frame++) {
      if (frame % 4 === 3) {
        // The same runs at new opacities (a fade going on), some of them whole again.
        runs = runs.map((run) => ({ ...run, opacity: rand() < 0.5 ? 1 : rand() }));
      } else {
        if (frame === 8) {
          // A chunk drawn faded leaves, and its pages go to a new one, drawn whole from the next frame.
          const gone = chunks.shift()!;
          pool.remove(gone);
          chunks.push(pool.add(allocateSplatCloud(gone.count, 0))!);
        }
        runs = [];
        for (const chunk of chunks) {
          if (rand() < 0.3) continue;
          const offset = Math.floor(rand() * chunk.count);
          // Short runs (inside one word) as well as long ones (over pages), some faded.
          const count = rand() < 0.3 ? Math.floor(rand() * 20) : Math.floor(rand() * (chunk.count - offset + 1));
          runs.push({ chunk, offset, count: Math.min(count, chunk.count - offset), opacity: rand() < 0.6 ? 1 : rand() });
        }
      }
      pool.setDrawn(runs);
      await expectDrawn(gpu.device, pool, runs, `frame ${frame}`);
    }
  });
});

describe("the pool's mask pass", () => {
  test('has room from the start for a piece a page four times over: a frame of that many pieces makes no buffer', async () => {
    const { device, made } = watchingBuffers(gpu.device);
    const pages = 128;
    const pool = new SplatPool(device, pages * PAGE, 0, 'pool-room', { pageSplats: PAGE });
    const chunk = pool.add(allocateSplatCloud(pages * PAGE, 0))!;
    // Four runs of one splat a page, apart: as many pieces as the room holds, each its own.
    const runs: PooledRun[] = Array.from({ length: 4 * pages }, (_, i) => ({ chunk, offset: Math.floor(i / 4) * PAGE + 2 * (i % 4), count: 1 }));
    const before = made.length;
    pool.setDrawn(runs);
    expect(made.slice(before).map((b) => b.label)).toEqual([]);
    await expectDrawn(gpu.device, pool, runs, 'a piece a splat');
    pool.destroy();
  });
});

describe("the pool's mask pass in the frame's encoder", () => {
  test("setDrawn makes no encoder: the projector records the pass in the frame's, and a second setDrawn before any frame submits the first's", async () => {
    let encoders = 0;
    const device = new Proxy(gpu.device, {
      get: (target, key) => {
        if (key === 'createCommandEncoder') return (d?: GPUCommandEncoderDescriptor) => (encoders++, target.createCommandEncoder(d));
        const value = Reflect.get(target, key, target) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const pool = new SplatPool(device, 8 * PAGE, 0, 'pool-in-frame', { pageSplats: PAGE });
    const chunk = pool.add(allocateSplatCloud(3 * PAGE, 0))!;
    const first: PooledRun[] = [{ chunk, offset: 0, count: PAGE + 1 }];
    const second: PooledRun[] = [{ chunk, offset: 5, count: 2 * PAGE, opacity: 0.5 }];
    pool.setDrawn(first);
    expect(encoders).toBe(0);
    // No frame recorded the first: the second submits it before its own writes.
    pool.setDrawn(second);
    expect(encoders).toBe(1);
    const uniforms = gpu.device.createBuffer({ size: FRAME.size, usage: GPUBufferUsage.UNIFORM });
    const projector = await SplatProjector.create(gpu.device, uniforms);
    projector.setScene(pool.scene);
    const frame = gpu.device.createCommandEncoder();
    projector.encode(frame, null);
    gpu.device.queue.submit([frame.finish()]);
    // The frame held the pass: reading it makes no encoder, and the mask is the second's.
    await expectDrawn(gpu.device, pool, second, 'after the frame');
    expect(encoders).toBe(1);
    projector.destroy();
    uniforms.destroy();
    pool.destroy();
  });
});

describe('the projector over a pool', () => {
  test('runs only the tiles that hold a drawn splat: the depths of a tile never drawn are never written', async () => {
    // A page is one projector tile here, so the tiles drawn are the pages drawn.
    expect(PAGE).toBe(PROJECT_TILE);
    const pool = gpu.own(new SplatPool(gpu.device, 8 * PAGE, 0, 'pool-tiles', { pageSplats: PAGE }));
    const chunk = pool.add(allocateSplatCloud(3 * PAGE, 0))!;
    pool.setDrawn([{ chunk, offset: 0, count: PAGE + 1 }]);
    const [frame, order] = await Promise.all([gpu.frame(), gpu.gpuOrder()]);
    frame.setScene(pool.scene, pool.scene.count);
    const eye = vec3.fromValues(0, 0, -5);
    const params: FrameParameters = {
      view: mat4.lookAt(mat4.create(), eye, [0, 0, 0], [0, -1, 0]), projection: mat4.perspectiveZO(mat4.create(), 1, 1, 0.01, Infinity),
      eye, fovY: 1, width: 32, height: 32, splatScale: 1, keyBits: 32, splatCount: pool.scene.count, shDegree: 0,
    };
    await gpu.render(frame, params, order);
    const words = await readBufferU32(gpu.device, frame.projector.depths!, pool.scene.count);
    const depths = new Float32Array(words.buffer, words.byteOffset, pool.scene.count);
    const drawnPages = new Set(chunk.pages.slice(0, 2));
    for (let page = 0; page < 8; page++) {
      const written = Array.from(depths.subarray(page * PAGE, (page + 1) * PAGE), (d) => d !== 0);
      // Every splat of a listed tile gets a depth (its own, or the culled mark); no splat of another tile does.
      expect(written.every((w) => w === drawnPages.has(page)), `page ${page}`).toBe(true);
    }
  });
});

describe("a pool's frame on a device with WebGPU's default limits (the engine entry draws on a page's own device)", () => {
  test('projects and keys within the 8 storage buffers a stage may have, and the ray shapes compile too', async () => {
    // An adapter of its own (the fixture's made its device), asked for no limit above WebGPU's defaults. Its GPU
    // is kept alive for the process (node-gpu.ts): one left to be collected crashed the test's worker in CI.
    const adapter = await createNodeGpu().requestAdapter();
    const device = await adapter!.requestDevice({ label: 'default limits' });
    try {
      expect(device.limits.maxStorageBuffersPerShaderStage).toBe(8);
      const pool = new SplatPool(device, 8 * PAGE, 0, 'pool-defaults', { pageSplats: PAGE });
      const chunk = pool.add(allocateSplatCloud(3 * PAGE, 0))!;
      pool.setDrawn([{ chunk, offset: 0, count: 2 * PAGE }]);
      const uniforms = device.createBuffer({ size: FRAME.size, usage: GPUBufferUsage.UNIFORM });
      const projector = await SplatProjector.create(device, uniforms);
      const shapes = await TileRayShapes.create(device, uniforms);
      projector.setScene(pool.scene);
      const pairs = { keys: device.createBuffer({ size: 4 * pool.scene.count, usage: GPUBufferUsage.STORAGE }), values: device.createBuffer({ size: 4 * pool.scene.count, usage: GPUBufferUsage.STORAGE }) };
      device.pushErrorScope('validation');
      const encoder = device.createCommandEncoder();
      projector.encode(encoder, pairs);
      device.queue.submit([encoder.finish()]);
      expect(await device.popErrorScope()).toBeNull();
      shapes.destroy();
      projector.destroy();
      pool.destroy();
    } finally {
      device.destroy();
    }
  });
});
