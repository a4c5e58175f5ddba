/**
 * The tile raster's chunks (src/render/tiles/tile-chunks.ts) on Dawn over
 * SwiftShader: a tile whose run is long is drawn by several workgroups at
 * once and its partials blended in order. Cut into chunks of 16 pairs, the
 * real scene's pictures, outside it and inside (where whole chunks turn
 * opaque and the later ones stop, and later chunks stop pixels the
 * earlier ones published as opaque), are the one-workgroup pictures within
 * a level, and the chunks really were cut. The two views are drawn one
 * after the other by one frame: transmittances one frame published and
 * the next frame read would fail the second. Without the look back (as on
 * software adapters) a cut frame's picture is the same byte for byte
 * every time.
 */
import { beforeAll, expect, test } from 'vitest';
import type { GpuSplats } from '../../src/scene/gpu-splats';
import type { SplatFrame } from '../../src/app/frame/splat-frame';
import type { GpuSortOrder } from '../../src/app/frame/order/gpu-sort-order';
import type { SplatCloud } from '../../src/scene/splat-cloud';
import type { CameraFile } from '../../src/app/camera/camera-file';
import { renderReferenceCamera } from '../../cli/reference-camera';
import { psnr, toRgba8 } from '../../cli/picture-compare';
import { CHUNK_HEADER, ITEM_WORDS, SPLIT_WORDS } from '../../src/render/tiles/tile-chunks';
import { TILE_SIZE } from '../../src/render/tiles/tile-side';
import { renderChecked } from '../support/checked-render';
import { realScene, useGpu } from '../support/gpu-fixture';
import { cameraInsideScene, cameraLookingAt } from '../support/test-view';
import { channelDifference } from '../support/tile-footprints';

const gpu = useGpu('tile-chunks.test');
let cloud: SplatCloud;
let scene: GpuSplats;
let order: GpuSortOrder;
let whole: SplatFrame;
let cut: SplatFrame;
let steady: SplatFrame;

/** Chunks of 16 pairs; room for 512 past the runs' first (idle workgroups cost ~1 ms each here); later chunks look back. */
const CUT = { minPairs: 16, maxChunks: 512, lookBack: true };

beforeAll(async () => {
  cloud = await realScene('inria_kacytran_iter7000_9k_sh3.ply');
  scene = gpu.upload(cloud, 'tile-chunks.scene');
  [order, whole, cut, steady] = await Promise.all([
    gpu.gpuOrder(),
    gpu.frame({ tiles: { chunking: { minPairs: 0 } } }),
    gpu.frame({ tiles: { chunking: CUT } }),
    gpu.frame({ tiles: { chunking: { ...CUT, lookBack: false } } }),
  ]);
  await Promise.all([whole, cut, steady].map((f) => f.painters.tiles.prepare()));
});

const BACKGROUND = [0.1, 0.2, 0.3] as const;

async function expectChunkedMatches(what: string, camera: CameraFile): Promise<void> {
  const one = await renderChecked(gpu.device, whole, order, scene, camera, { renderer: 'tiles' });
  expect(await whole.painters.tiles.tileRenderer!.readChunkCounts()).toEqual({ items: 0, splits: 0 });
  const chunked = await renderChecked(gpu.device, cut, order, scene, camera, { renderer: 'tiles' });
  const counts = await cut.painters.tiles.tileRenderer!.readChunkCounts();
  const pairs = cut.painters.tiles.tileRenderer!.lastPairs!;
  const tiles = Math.ceil(camera.width / 16) * Math.ceil(camera.height / 16);
  const apart = channelDifference(chunked.rgba, one.rgba, 0);
  const reference = toRgba8(renderReferenceCamera(cloud, camera).rgb);
  console.log(
    `${what} (${camera.width}×${camera.height}): ${pairs.total} pairs, ${counts.splits} of ${tiles} tiles split into ${counts.splits + counts.items} chunks; ` +
      `against one workgroup a tile: ${apart.pixels} pixels differ, largest ${apart.largest} levels; ${psnr(chunked.rgba, reference).toFixed(2)} dB against the reference`,
  );
  expect(pairs.overflowed).toBe(false);
  // Most tiles are cut, into several chunks each.
  expect(counts.splits).toBeGreaterThan(tiles / 2);
  expect(counts.items).toBeGreaterThan(2 * counts.splits);
  expect(apart.largest).toBeLessThanOrEqual(1);
  expect(apart.pixels).toBeLessThanOrEqual(0.01 * camera.width * camera.height);
  expect(psnr(chunked.rgba, reference)).toBeGreaterThanOrEqual(50);
}

test('outside the scene, runs cut into chunks of 16 pairs draw the one-workgroup picture', async () => {
  await expectChunkedMatches('9k scene from outside', cameraLookingAt(cloud, [3, -1, -6], 64, 48, BACKGROUND));
});

test('inside the scene, where chunks turn opaque, runs cut into chunks of 16 pairs draw the one-workgroup picture', async () => {
  await expectChunkedMatches('9k scene from inside', cameraInsideScene(cloud, 64, 48, BACKGROUND));
});

test('without the look back (as on software adapters), a cut frame reads no published transmittance: the same bytes each time', async () => {
  const outside = cameraLookingAt(cloud, [3, -1, -6], 64, 48, BACKGROUND);
  const draw = async (frame: SplatFrame) => (await renderChecked(gpu.device, frame, order, scene, outside, { renderer: 'tiles' })).rgba;
  // Every published word says "stopped, nothing left": a chunk that read them would stop at once.
  const poison = (frame: SplatFrame) => {
    // A software adapter's frames are of 16-pixel tiles (TILE_SIZE): a published word per pixel of each partial.
    const tiles = Math.ceil(outside.width / TILE_SIZE) * Math.ceil(outside.height / TILE_SIZE);
    const first = CHUNK_HEADER + tiles + (SPLIT_WORDS + ITEM_WORDS) * CUT.maxChunks;
    const words = new Float32Array(2 * CUT.maxChunks * TILE_SIZE * TILE_SIZE).fill(-1e-9);
    gpu.device.queue.writeBuffer(frame.painters.tiles.tileRenderer!.chunkWords, 4 * first, words);
  };
  const first = await draw(steady);
  expect((await steady.painters.tiles.tileRenderer!.readChunkCounts()).items).toBeGreaterThan(100);
  poison(steady);
  expect(Buffer.from(await draw(steady)).equals(Buffer.from(first))).toBe(true);
  // The same words do reach a frame that looks back: the check above can fail.
  await draw(cut);
  poison(cut);
  expect(channelDifference(await draw(cut), first, 1).pixels).toBeGreaterThan(100);
});
