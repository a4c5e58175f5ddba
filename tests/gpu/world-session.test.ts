/**
 * A world drawn through its page pool (src/scene/splat-pool.ts) and
 * session (src/app/world/world-session.ts), Dawn over SwiftShader: what the
 * session draws is exactly the runs it chose, in the exact order of one
 * scene (the picture equals those splats uploaded as one scene), at the
 * level the camera's distance and the budget call for; chunks evicted
 * under the memory budget come back when wanted; no hole while finer
 * chunks arrive; a change of level cross-fades, at the opacity its fade
 * gives, and ends on the picture of no fade. The world is made in memory from the 9k scene
 * (tests/support/synthetic-world.ts); pages and chunk buffers are made
 * small so a chunk spans several pages across several chunk buffers.
 */
import { settleWorld } from '../support/world-settle';
import { beforeAll, describe, expect, test } from 'vitest';
import { WorldSession } from '../../src/app/world/world-session';
import { WORLD_DEFAULTS, type WorldSessionOptions } from '../../src/app/world/world-options';
import { renderOffscreen } from '../../bench/render-offscreen';
import type { SplatFrame } from '../../src/app/frame/splat-frame';
import type { GpuSortOrder } from '../../src/app/frame/order/gpu-sort-order';
import type { CameraFile } from '../../src/app/camera/camera-file';
import { cameraFrame } from '../../src/app/session/splat-selection';
import type { GpuSplats } from '../../src/scene/gpu-splats';
import type { SplatCloud } from '../../src/scene/splat-cloud';
import { realScene, useGpu } from '../support/gpu-fixture';
import { recording } from '../support/recording-device';
import { psnr } from '../../cli/picture-compare';
import { cameraLookingAt, drawnFraction } from '../support/test-view';
import { joinClouds, subsetCloud, syntheticChunks, syntheticWorld, type SyntheticWorld } from '../support/synthetic-world';

const WIDTH = 96;
const HEIGHT = 64;
const BACKGROUND: [number, number, number] = [0, 0, 0];
/** 9k splats of SH degree 3 (244 bytes each): chunk buffers of 4,096 splats, pages of 256. */
const POOL = { pageSplats: 256, maxChunkBytes: 4096 * 244 };

describe('a world on the GPU', () => {
  const gpu = useGpu('world-session.test');
  let cloud: SplatCloud;
  let world: SyntheticWorld;
  let frame: SplatFrame;
  let order: GpuSortOrder;
  let near: CameraFile;
  let far: CameraFile;

  beforeAll(async () => {
    cloud = await realScene('inria_kacytran_iter7000_9k_sh3.ply');
    world = syntheticWorld(cloud, 3, 2);
    [frame, order] = await Promise.all([gpu.frame(), gpu.gpuOrder()]);
    near = look([0.1, -0.05, -0.4]);
    far = look([1, -0.5, -3]);
  });

  /** A camera `offset` (in the world's widths) from its middle, looking at it. */
  function look(offset: readonly [number, number, number]): CameraFile {
    const { min, max } = world.level(0).bounds;
    const size = Math.max(max[0] - min[0], max[2] - min[2]);
    return cameraLookingAt(cloud, [offset[0] * size, offset[1] * size, offset[2] * size], WIDTH, HEIGHT, BACKGROUND);
  }

  function open(options: Partial<WorldSessionOptions> = {}, chunks = syntheticChunks(world), device = gpu.device): WorldSession {
    const session = new WorldSession(device, chunks, { budget: 1e6, thresholdPx: 1, budgetPolicy: WORLD_DEFAULTS.budgetPolicy, memoryBytes: 64 * 2 ** 20, maxInFlight: 2, fadeMs: 0, pool: POOL, ...options });
    return gpu.own({ destroy: () => session.close(), session }).session;
  }


  async function picture(scene: GpuSplats, camera: CameraFile, maxDrawn = scene.count): Promise<Uint8Array> {
    frame.setScene(scene, maxDrawn);
    return (await renderOffscreen(gpu.device, frame, order, scene, camera)).rgba;
  }

  /** The splats the session drew, as one scene. */
  function drawnCloud(session: WorldSession): SplatCloud {
    return joinClouds(session.drawnRuns.map(({ run }) => subsetCloud(world.clouds[run.file]!, Array.from({ length: run.count }, (_, k) => run.offset + k))));
  }

  test('the pool draws exactly the chosen runs, in one exact order: the picture equals them as one scene', async () => {
    const session = open();
    await settleWorld(session, near);
    const levels = new Set(session.drawnRuns.map((d) => d.level));
    expect(levels.has(0), 'the near camera draws level 0 somewhere').toBe(true);
    // The pool holds no more than the whole world, each chunk rounded up to whole pages (not the memory budget's room).
    const whole = world.clouds.reduce((n, c) => n + Math.ceil(c.count / POOL.pageSplats) * POOL.pageSplats, 0);
    expect(session.scene!.count).toBeLessThanOrEqual(whole);
    const pooled = await picture(session.scene!, near, session.maxDrawn);
    const single = gpu.upload(drawnCloud(session), 'drawn as one scene');
    const reference = await picture(single, near);
    gpu.release(single);
    expect(drawnFraction({ rgba: pooled, width: WIDTH, height: HEIGHT }, BACKGROUND)).toBeGreaterThan(0.2);
    let differing = 0;
    for (let i = 0; i < pooled.length; i++) if (pooled[i] !== reference[i]) differing++;
    expect(differing, 'bytes of the picture that differ').toBe(0);
  });

  test('chunks are written a page a frame when a frame has room for one, and drawn only once whole: every picture on the way is its runs as one scene', async () => {
    const paced = open({ uploadBytesAFrame: 1 });
    let frames = 0;
    for (; !paced.settled; frames++) {
      if (frames > 2000) throw new Error('the paced world did not settle');
      paced.updateCamera(near);
      if (frames % 6 === 5 && paced.drawnRuns.length > 0) {
        const shown = await picture(paced.scene!, near, paced.maxDrawn);
        const single = gpu.upload(drawnCloud(paced), 'drawn as one scene');
        const reference = await picture(single, near);
        gpu.release(single);
        expect(Buffer.from(shown).equals(Buffer.from(reference)), `frame ${frames}: the picture equals its runs as one scene`).toBe(true);
      }
      await new Promise((r) => setTimeout(r, 0));
    }
    // At least a frame a page of the chunks drawn.
    const pages = [...new Set(paced.drawnRuns.map(({ run }) => run.file))].reduce((n, file) => n + Math.ceil(world.clouds[file]!.count / POOL.pageSplats), 0);
    expect(frames).toBeGreaterThanOrEqual(pages);
    const plain = open();
    await settleWorld(plain, near);
    expect(Buffer.from(await picture(paced.scene!, near, paced.maxDrawn)).equals(Buffer.from(await picture(plain.scene!, near, plain.maxDrawn)))).toBe(true);
  });

  test('chunk pages go through the pool\'s staging blocks, never the queue\'s writeBuffer (which holds a page\'s thread while the GPU is behind), and the picture is the same', async () => {
    const recorded = recording(gpu.device);
    const session = open({ pool: { ...POOL, stagingBytes: 2 * POOL.pageSplats * 244 } }, syntheticChunks(world), recorded.device);
    await settleWorld(session, near);
    const pool = session.scene!;
    const pages = [...new Set(session.drawnRuns.map(({ run }) => run.file))].reduce((n, file) => n + Math.ceil(world.clouds[file]!.count / POOL.pageSplats), 0);
    expect(pages, 'pages written').toBeGreaterThan(4);
    for (const chunk of pool.chunks) expect(recorded.writes(chunk), 'writeBuffer calls into a chunk buffer of the pool').toBe(0);
    const plain = open();
    await settleWorld(plain, near);
    expect(Buffer.from(await picture(pool, near, session.maxDrawn)).equals(Buffer.from(await picture(plain.scene!, near, plain.maxDrawn)))).toBe(true);
  });

  test('the level follows the distance: far away every leaf draws its coarse level', async () => {
    const session = open({ thresholdPx: 4 });
    await settleWorld(session, far);
    expect(session.drawnRuns.length).toBeGreaterThan(world.index.leaves / 2);
    expect(session.drawnRuns.every((d) => d.level === 1)).toBe(true);
    await settleWorld(session, near);
    expect(session.drawnRuns.some((d) => d.level === 0)).toBe(true);
  });

  test.each([0, 300])('the budget holds: the splats drawn never pass it, coarser levels taking the place of finer ones (fades of %i ms)', async (fadeMs) => {
    const budget = world.index.counts[1]! + 1000;
    const session = open({ budget, thresholdPx: 0, fadeMs });
    let now = 0;
    session.now = () => now;
    await settleChunks(session, near);
    // Once the fades have ended: the room beside the budget is for the outgoing levels of fades alone.
    now = 10_000;
    await settleWorld(session, near);
    expect(session.frame.drawnSplats).toBeLessThanOrEqual(budget);
    expect(session.frame.thresholdPx).toBeGreaterThan(0);
    expect(session.drawnRuns.some((d) => d.level === 1)).toBe(true);
    expect(session.drawnRuns.some((d) => d.level === 0)).toBe(true);
  });

  test('a budget under one page of the pool still draws: the pool holds the largest chunk, and the nearest leaves draw their coarse level within the budget', async () => {
    // 2.5 × 300 splats of room is less than one 2,048-splat page: the pool once held no page, and nothing was drawn or said.
    const session = open({ budget: 300, thresholdPx: 4, pool: { ...POOL, pageSplats: 2048 } });
    await settleWorld(session, far);
    expect(session.frame.drawnSplats).toBeGreaterThan(0);
    expect(session.frame.drawnSplats).toBeLessThanOrEqual(300);
    expect(session.drawnRuns.every((d) => d.level === 1)).toBe(true);
  });

  test('under a small memory budget chunks are evicted and fetched again when wanted, and the picture stays whole', async () => {
    const reads: number[] = [];
    const levelOne = world.index.counts[1]!;
    // Room for the coarse level and about half the fine one.
    const session = open({ memoryBytes: (levelOne + cloud.count / 2) * (244 + 36), budget: 1e6 }, syntheticChunks(world, { reads }));
    await settleWorld(session, far);
    const fullCoarse = await picture(session.scene!, far, session.maxDrawn);
    // Close to one side, then the other: the fine chunks of the first side must go to make room.
    const side = (leaf: number) => {
      const { min, max } = world.index.tree.children[leaf]!.bound;
      const centre = [0, 1, 2].map((a) => (min[a]! + max[a]!) / 2) as [number, number, number];
      const reach = max[0] - min[0];
      // Above it (y is down), looking down at it.
      return { ...far, eye: [centre[0], centre[1] - 0.7 * reach, centre[2]] as [number, number, number], target: centre, up: [0, 0, 1] as [number, number, number] };
    };
    // One corner leaf, then the opposite one, then the first again.
    await settleWorld(session, side(0));
    await settleWorld(session, side(8));
    await settleWorld(session, side(0));
    expect(session.progress.evicted).toBeGreaterThan(0);
    const again = reads.filter((file, i) => reads.indexOf(file) !== i);
    expect(again.length, 'chunks read a second time').toBeGreaterThan(0);
    await settleWorld(session, far);
    const back = await picture(session.scene!, far, session.maxDrawn);
    expect(Buffer.from(back).equals(Buffer.from(fullCoarse))).toBe(true);
  });

  test('no hole while the finer chunks arrive one by one from a throttled source: every picture covers what the coarse level covers', async () => {
    const coarse = gpu.upload(world.level(1), 'the coarse level');
    const coarsePicture = await picture(coarse, near);
    gpu.release(coarse);
    const covered = drawnFraction({ rgba: coarsePicture, width: WIDTH, height: HEIGHT }, BACKGROUND);
    expect(covered).toBeGreaterThan(0.2);

    // Reads wait at a gate the test opens one at a time.
    const gate: (() => void)[] = [];
    let throttled = false;
    const session = open({}, syntheticChunks(world, { delay: () => (throttled ? new Promise<void>((go) => gate.push(go)) : Promise.resolve()) }));
    await settleWorld(session, far);
    throttled = true;
    let arrivals = 0;
    for (let step = 0; step < 40; step++) {
      session.updateCamera(near);
      const shown = await picture(session.scene!, near, session.maxDrawn);
      const fraction = drawnFraction({ rgba: shown, width: WIDTH, height: HEIGHT }, BACKGROUND);
      expect(fraction, `covered after ${arrivals} finer chunks`).toBeGreaterThanOrEqual(covered * 0.97);
      if (session.settled) break;
      const next = gate.shift();
      if (next) {
        next();
        arrivals++;
      }
      await new Promise((r) => setTimeout(r, 0));
    }
    expect(arrivals, 'finer chunks that arrived while drawn').toBeGreaterThan(1);
    expect(session.settled).toBe(true);
    expect(session.drawnRuns.some((d) => d.level === 0)).toBe(true);
  });

  test("a frame's update chooses and draws, and the fetches it asks for start in the world's own task after it, not inside the frame", async () => {
    const session = open();
    session.update(cameraFrame(near));
    expect(session.frame.wantedSplats).toBeGreaterThan(0);
    expect(session.progress.inFlight).toBe(0);
    expect(session.settled).toBe(false);
    await Promise.resolve();
    expect(session.progress.inFlight).toBe(1);
    session.close();
  });

  test('one chunk in flight until the first lands or fails, then the usual number: a first chunk that fails does not leave the world one at a time', async () => {
    const gate: (() => void)[] = [];
    const chunks = syntheticChunks(world, { delay: () => new Promise<void>((go) => gate.push(go)) });
    let reads = 0;
    const failing = { ...chunks, readChunk: (file: number, signal?: AbortSignal) => (reads++ === 0 ? Promise.reject(new Error('not a SOG chunk')) : chunks.readChunk(file, signal)) };
    const session = open({ maxInFlight: 3 }, failing);
    session.updateCamera(near);
    expect(session.progress.inFlight).toBe(1);
    await new Promise((r) => setTimeout(r, 0));
    expect(session.failedChunks).toEqual([expect.stringMatching(/^chunk \d+_\d+\/meta\.json: not a SOG chunk$/)]);
    session.updateCamera(far);
    session.updateCamera(near);
    expect(session.progress.inFlight).toBe(3);
    for (const go of gate) go();
  });

  test('leaves whose coarse chunks fail are drawn from their fine level, and the failures are said together, once, when nothing more is on its way', async () => {
    const whole = open({ thresholdPx: 4 });
    await settleWorld(whole, far);
    const leavesInView = new Set(whole.drawnRuns.map((d) => d.leaf));
    const coarseFiles = world.index.filenames.flatMap((name, file) => (name.startsWith('1_') ? [file] : []));
    const broken = new Set(coarseFiles.slice(0, 2));
    const chunks = syntheticChunks(world);
    // They fail after the others have landed: the failures alone must make the world choose again.
    const failLate = () => new Promise<never>((_, reject) => setTimeout(() => reject(new Error('not a SOG chunk')), 50));
    const failing = { ...chunks, readChunk: (file: number, signal?: AbortSignal) => (broken.has(file) ? failLate() : chunks.readChunk(file, signal)) };
    const said: (readonly string[])[] = [];
    const session = open({ thresholdPx: 4 }, failing);
    session.onFailed = (failed) => said.push(failed);
    await settleWorld(session, far);
    // Their leaves want the coarse level, and are drawn from the fine one; the others at the coarse level.
    const brokenLeaves = session.drawnRuns.filter((d) => d.level === 0);
    expect(brokenLeaves.length).toBeGreaterThan(0);
    for (const d of session.drawnRuns) expect(broken.has(world.index.tree.children[d.leaf]!.runs[1]!.file)).toBe(d.level === 0);
    // No hole: every leaf in view is drawn, and the picture is theirs.
    expect(new Set(session.drawnRuns.map((d) => d.leaf))).toEqual(leavesInView);
    const shown = await picture(session.scene!, far, session.maxDrawn);
    const single = gpu.upload(drawnCloud(session), 'drawn as one scene');
    const reference = await picture(single, far);
    gpu.release(single);
    expect(Buffer.from(shown).equals(Buffer.from(reference))).toBe(true);
    expect(said).toHaveLength(1);
    expect([...said[0]!].sort()).toEqual([...broken].map((file) => `chunk ${world.index.filenames[file]}: not a SOG chunk`).sort());
    // Said once: the camera coming and going says nothing more.
    await settleWorld(session, near);
    await settleWorld(session, far);
    expect(said).toHaveLength(1);
  });

  /** Drives `session` at a still clock until every chunk it asks for is in; then the clock's fades are where `now` says. */
  async function settleChunks(session: WorldSession, camera: CameraFile): Promise<void> {
    for (let i = 0; i < 500 && !(session.updateCamera(camera), session.chunksSettled); i++) await new Promise((r) => setTimeout(r, 0));
    expect(session.chunksSettled).toBe(true);
  }

  /** Pixels of which some channel changes by more than 16 levels from `a` to `b`. */
  function jumps(a: Uint8Array, b: Uint8Array): number {
    let n = 0;
    for (let i = 0; i < a.length; i += 4) {
      if (Math.abs(a[i]! - b[i]!) > 16 || Math.abs(a[i + 1]! - b[i + 1]!) > 16 || Math.abs(a[i + 2]! - b[i + 2]!) > 16) n++;
    }
    return n;
  }

  test("a leaf fading in is drawn at its fade's opacity: the picture equals its splats with their opacity scaled so", async () => {
    let now = 0;
    const session = open({ thresholdPx: 4, fadeMs: 300 });
    session.now = () => now;
    await settleChunks(session, far);
    expect(session.settled, 'fades under way').toBe(false);
    // Half way: an opacity of 0.5, a scale of 128/255.
    now = 150;
    session.updateCamera(far);
    const shown = await picture(session.scene!, far, session.maxDrawn);
    const drawn = drawnCloud(session);
    drawn.opacities = drawn.opacities.map((o) => o * (128 / 255));
    const single = gpu.upload(drawn, 'drawn at half opacity');
    const reference = await picture(single, far);
    gpu.release(single);
    expect(drawnFraction({ rgba: shown, width: WIDTH, height: HEIGHT }, BACKGROUND)).toBeGreaterThan(0.02);
    expect(psnr(shown, reference)).toBeGreaterThan(50);
    now = 1000;
    session.updateCamera(far);
    expect(session.settled).toBe(true);
  });

  test('a change of level cross-fades: no frame of the fade changes a third of the pixels that the change does at once, and it ends on the picture of no fade', async () => {
    let now = 0;
    const session = open({ fadeMs: 300 });
    session.now = () => now;
    await settleChunks(session, far);
    now = 1000;
    await settleWorld(session, far);
    // Near: the finer chunks arrive while the clock stands still; their leaves' fades start together.
    now = 2000;
    await settleChunks(session, near);
    expect(session.frame.fading, 'leaves fading').toBeGreaterThan(0);
    const frames: Uint8Array[] = [];
    for (let step = 0; step <= 10; step++) {
      now = 2000 + 30 * step;
      session.updateCamera(near);
      frames.push(await picture(session.scene!, near, session.maxDrawn));
    }
    expect(session.settled).toBe(true);
    const atOnce = jumps(frames[0]!, frames[10]!);
    expect(atOnce, 'pixels the change of level moves by more than 16 levels').toBeGreaterThan(50);
    const largestStep = Math.max(...frames.slice(1).map((f, k) => jumps(frames[k]!, f)));
    expect(largestStep).toBeLessThan(atOnce / 3);
    const plain = open();
    await settleWorld(plain, near);
    const noFade = await picture(plain.scene!, near, plain.maxDrawn);
    expect(Buffer.from(frames[10]!).equals(Buffer.from(noFade))).toBe(true);
  });
});

