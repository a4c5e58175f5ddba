/**
 * The tile raster's block lists (shaders/tile_raster.wgsl, walk_lists) on
 * Dawn over SwiftShader: a frame whose splats are small walks each batch's
 * splats per 4×4 block of pixels, where otherwise every pixel meets every
 * splat of the batch. Skipping a splat whose quad box misses a pixel's
 * block must change nothing: the real scene, from outside and inside, in
 * both orders, at a size that is no multiple of the tile, is the same
 * picture byte for byte whether the frame walks lists or not, and the CPU
 * reference's within the tile tests' 50 dB. The two frames also differ in
 * how many splats' alphas a pixel works out before it blends any
 * (rasterArrivals): the lists' frame takes a GPU's counts (four in the
 * centre-depth order, whose lists are walked by groups of four, and two in
 * the per-pixel order, whose lists are walked bit by bit), the plain frame
 * one at a time; a group running past its batch's end holds arrivals of
 * alpha 0, which must change nothing either. The centre-depth order is
 * checked on 8-pixel tiles too, where the replicated scene walks lists on
 * a GPU (four blocks a tile, not sixteen). A
 * frame that wants lists before their pipeline is made walks every splat
 * meanwhile. (Which frames want lists, rasterWalkFor, is
 * tests/unit/raster-walk.test.ts's.)
 */
import { beforeAll, expect, test } from 'vitest';
import type { GpuSplats } from '../../src/scene/gpu-splats';
import { SplatFrame } from '../../src/app/frame/splat-frame';
import type { GpuSortOrder } from '../../src/app/frame/order/gpu-sort-order';
import type { SplatCloud } from '../../src/scene/splat-cloud';
import type { CameraFile } from '../../src/app/camera/camera-file';
import type { SplatOrder } from '../../src/render/frame-renderer';
import { renderReferenceCamera } from '../../cli/reference-camera';
import { psnr, toRgba8 } from '../../cli/picture-compare';
import { renderChecked } from '../support/checked-render';
import { realScene, TEST_TARGET_FORMAT, useGpu } from '../support/gpu-fixture';
import { cameraInsideScene, cameraLookingAt } from '../support/test-view';
import { channelDifference } from '../support/tile-footprints';
import { rasterArrivals } from '../../src/render/tiles/tile-raster';

const gpu = useGpu('tile-block-lists.test');
let cloud: SplatCloud;
let scene: GpuSplats;
let order: GpuSortOrder;
/** Every frame walks lists; none does. Each works out alphas ahead as the other does not (ARRIVALS). */
let lists: SplatFrame;
let plain: SplatFrame;
/** The same on 8-pixel tiles (a software adapter's default is 16), where the replicated scene walks lists on a GPU. */
let lists8: SplatFrame;
let plain8: SplatFrame;
const GPU_ARRIVALS = rasterArrivals(false);
const LISTS_ARRIVALS = GPU_ARRIVALS;
const PLAIN_ARRIVALS = { 'centre-depth': 1, 'per-pixel': 1 };

beforeAll(async () => {
  cloud = await realScene('inria_kacytran_iter7000_9k_sh3.ply');
  scene = gpu.upload(cloud, 'tile-block-lists.scene');
  [order, lists, plain, lists8, plain8] = await Promise.all([
    gpu.gpuOrder(),
    gpu.frame({ tiles: { blockListsBelow: Infinity, arrivals: LISTS_ARRIVALS } }),
    gpu.frame({ tiles: { blockListsBelow: 0, arrivals: PLAIN_ARRIVALS } }),
    gpu.frame({ tiles: { blockListsBelow: Infinity, arrivals: LISTS_ARRIVALS, tileSide: 8 } }),
    gpu.frame({ tiles: { blockListsBelow: 0, arrivals: PLAIN_ARRIVALS, tileSide: 8 } }),
  ]);
  await Promise.all([lists, plain, lists8, plain8].map((f) => f.painters.tiles.prepare(true)));
  const tiles = lists.painters.tiles.tileRenderer!;
  await Promise.all([plain8.painters.tiles.tileRenderer!.prepareTileSide(8, true), lists8.painters.tiles.tileRenderer!.prepareTileSide(8, true)]);
  await Promise.all([tiles.prepareBlockLists(false), tiles.prepareBlockLists(true), lists8.painters.tiles.tileRenderer!.prepareBlockLists(false, 8)]);
});

const BACKGROUND = [0.1, 0.2, 0.3] as const;

async function expectListsMatch(what: string, camera: CameraFile, splatOrder: SplatOrder, side: 8 | 16 = 16): Promise<void> {
  const options = { renderer: 'tiles', splatOrder } as const;
  const [withLists, without] = side === 8 ? [lists8, plain8] : [lists, plain];
  const walked = await renderChecked(gpu.device, withLists, order, scene, camera, options);
  const whole = await renderChecked(gpu.device, without, order, scene, camera, options);
  expect(withLists.painters.tiles.tileRenderer!.lastWalk).toBe('lists');
  expect(without.painters.tiles.tileRenderer!.lastWalk).toBe('all');
  expect(withLists.painters.tiles.tileRenderer!.lastTileSide).toBe(side);
  const pairs = withLists.painters.tiles.tileRenderer!.lastPairs!;
  const apart = channelDifference(walked.rgba, whole.rgba, 0);
  const db = psnr(walked.rgba, toRgba8(renderReferenceCamera(cloud, camera).rgb));
  console.log(`${what}, ${splatOrder}, ${side}-pixel tiles (${camera.width}×${camera.height}): ${pairs.total} pairs; with block lists ${apart.pixels} pixels differ from without; ${db.toFixed(2)} dB against the reference`);
  expect(pairs.overflowed).toBe(false);
  expect(apart.pixels).toBe(0);
  if (splatOrder === 'centre-depth') expect(db).toBeGreaterThanOrEqual(50);
}

test.each(['centre-depth', 'per-pixel'] as const)('outside the scene, %s: block lists draw the picture every splat draws', async (splatOrder) => {
  await expectListsMatch('9k scene from outside', cameraLookingAt(cloud, [3, -1, -6], 93, 61, BACKGROUND), splatOrder);
});

test.each(['centre-depth', 'per-pixel'] as const)('inside the scene, %s: block lists draw the picture every splat draws', async (splatOrder) => {
  await expectListsMatch('9k scene from inside', cameraInsideScene(cloud, 93, 61, BACKGROUND), splatOrder);
});

test.each([
  ['outside', () => cameraLookingAt(cloud, [3, -1, -6], 93, 61, BACKGROUND)],
  ['inside', () => cameraInsideScene(cloud, 93, 61, BACKGROUND)],
] as const)('%s the scene on 8-pixel tiles, centre-depth: block lists draw the picture every splat draws', async (where, camera) => {
  await expectListsMatch(`9k scene from ${where}`, camera(), 'centre-depth', 8);
});

test('a frame that wants lists before their pipeline is made walks every splat, the same picture, and lists once it is made', async () => {
  // A frame of its own: the fixture's frame of these options is shared, its lists pipeline made already.
  const fresh = await SplatFrame.create(gpu.device, TEST_TARGET_FORMAT, { tiles: { blockListsBelow: Infinity } });
  try {
    await fresh.painters.tiles.prepare();
    const tiles = fresh.painters.tiles.tileRenderer!;
    const camera = cameraLookingAt(cloud, [3, -1, -6], 93, 61, BACKGROUND);
    const first = await renderChecked(gpu.device, fresh, order, scene, camera, { renderer: 'tiles' });
    expect(tiles.lastWalk).toBe('all');
    // The same pipeline the first frame asked for.
    await tiles.prepareBlockLists(false);
    const next = await renderChecked(gpu.device, fresh, order, scene, camera, { renderer: 'tiles' });
    expect(tiles.lastWalk).toBe('lists');
    expect(channelDifference(next.rgba, first.rgba, 0).pixels).toBe(0);
  } finally {
    fresh.destroy();
  }
});
