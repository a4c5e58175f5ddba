/**
 * The tile renderer's candidate budget (src/render/tiles/tile-pairs.ts) on
 * Dawn over SwiftShader: a view whose splats cover the window many times
 * over bins at most the budget, so its frame costs the budget, not
 * splats × tiles. The nearest splats whose candidates fit are drawn, the
 * farther ones are left out, and the renderer says how many. The frame
 * that first outgrows its pair room draws those same splats by quads, and
 * so does the quad renderer (src/render/tiles/quad-cut.ts). Sums
 * past 2^32 candidates (1.1M window-covering splats at 1024×1024) are
 * counted without wrapping.
 */
import { beforeAll, expect, test } from 'vitest';
import type { GpuSortOrder } from '../../src/app/frame/order/gpu-sort-order';
import type { CameraFile } from '../../src/app/camera/camera-file';
import type { SplatCloud } from '../../src/scene/splat-cloud';
import type { TileRendererOptions } from '../../src/render/tiles/tile-renderer-options';
import { renderReferenceCamera } from '../../cli/reference-camera';
import { psnr, toRgba8 } from '../../cli/picture-compare';
import { renderChecked } from '../support/checked-render';
import { cameraParameters } from '../../bench/render-offscreen';
import { madeScene, useGpu, type MadeSplat } from '../support/gpu-fixture';
import { rng } from '../support/splat-files';

const gpu = useGpu('tile-budget.test');
let order: GpuSortOrder;

beforeAll(async () => {
  order = await gpu.gpuOrder();
});

/**
 * `count` balls of σ `scale` on the view axis, `spacing` apart from 5
 * units in front of the eye (splat i is the i-th nearest), each covering
 * the whole window; opacity 0.1, so the far ones show through the near.
 */
function layers(count: number, spacing = 0.1, scale = 5): SplatCloud {
  const random = rng(9);
  const splats: MadeSplat[] = Array.from({ length: count }, (_, i) => ({
    position: [0.01 * (random() - 0.5), 0.01 * (random() - 0.5), spacing * i],
    scale: [scale, scale, scale],
    opacity: 0.1,
    colour: [random(), random(), random()],
  }));
  return madeScene(splats);
}

function cameraOf(width: number, height: number): CameraFile {
  return { width, height, fovy_deg: 60, eye: [0, 0, -5], target: [0, 0, 0], up: [0, -1, 0], background: [0.1, 0.2, 0.3], sh_degree: 0 };
}

test('a view whose splats cover the window many times over draws the nearest that fit the budget, with tiles and with quads, and says how many are left out', async () => {
  const cloud = layers(60);
  const scene = gpu.upload(cloud, 'tile-budget.layers');
  const camera = cameraOf(64, 48);
  const tiles = 4 * 3;
  // A budget of 20 splats' candidates; room for 16 pairs at first, so the first frame overflows.
  const frame = await gpu.frame({ tiles: { initialPairs: 16, maxPairs: 20 * tiles } });
  const direct = await gpu.frame({ accumulation: 'direct' });
  await frame.painters.tiles.prepare();
  const tileRenderer = frame.painters.tiles.tileRenderer!;

  frame.setScene(scene);
  const first = await gpu.render(frame, cameraParameters(camera, scene.count), order, { renderer: 'tiles', background: camera.background });
  const firstCounts = (await frame.painters.tiles.readStatistics())!;
  expect(firstCounts).toMatchObject({ entries: 60, cutEntries: 40, neededCandidates: 60 * tiles, candidateBudget: 20 * tiles, overflowed: true });
  // The overflowed frame's quads draw the same 20 nearest splats: the quads' picture of those alone.
  const kept = layers(20);
  const keptScene = gpu.upload(kept, 'tile-budget.kept');
  direct.setScene(keptScene);
  const keptQuads = await gpu.render(direct, cameraParameters(camera, keptScene.count), order, { renderer: 'quads', background: camera.background });
  expect(psnr(first, keptQuads), 'the overflowed frame draws the kept splats by quads').toBeGreaterThan(50);

  const picture = await renderChecked(gpu.device, frame, order, scene, camera, { renderer: 'tiles' });
  const counts = tileRenderer.lastPairs!;
  expect(counts).toMatchObject({ entries: 60, cutEntries: 40, total: 20 * tiles, overflowed: false });
  expect(tileRenderer.cutNotice).toBe("this view's splats reach 720 tiles in all, more than the 240 this GPU bins in a frame (they cover the window many times over): the farthest 40 of 60 splats are not drawn");
  const ofKept = psnr(picture.rgba, toRgba8(renderReferenceCamera(kept, camera).rgb));
  const ofAll = psnr(picture.rgba, toRgba8(renderReferenceCamera(cloud, camera).rgb));
  console.log(`60 window-covering layers, a budget of 20: ${ofKept.toFixed(2)} dB against the reference of the nearest 20, ${ofAll.toFixed(2)} dB against all 60`);
  expect(ofKept).toBeGreaterThanOrEqual(50);
  expect(ofAll).toBeLessThan(40);

  // The quads draw the same nearest splats, and say the same.
  await frame.painters.quads.prepare();
  const quads = await renderChecked(gpu.device, frame, order, scene, camera, { renderer: 'quads' });
  expect(frame.painters.quads.notice).toBe(tileRenderer.cutNotice);
  const quadsOfKept = psnr(quads.rgba, toRgba8(renderReferenceCamera(kept, camera).rgb));
  const quadsOfAll = psnr(quads.rgba, toRgba8(renderReferenceCamera(cloud, camera).rgb));
  console.log(`quads: ${quadsOfKept.toFixed(2)} dB against the reference of the nearest 20, ${quadsOfAll.toFixed(2)} dB against all 60`);
  expect(quadsOfKept).toBeGreaterThanOrEqual(45);
  expect(quadsOfAll).toBeLessThan(40);

  // Within the budget nothing is left out.
  const few = gpu.upload(layers(10), 'tile-budget.few');
  await renderChecked(gpu.device, frame, order, few, camera, { renderer: 'tiles' });
  expect(tileRenderer.lastPairs).toMatchObject({ entries: 10, cutEntries: 0, total: 10 * tiles });
  expect(tileRenderer.cutNotice).toBeNull();
  await renderChecked(gpu.device, frame, order, few, camera, { renderer: 'quads' });
  expect(frame.painters.quads.notice).toBeNull();
});

/**
 * Window-covering balls (even i) between small ones (odd i), spread over
 * the view: on 8-pixel tiles, a cut among entries binned by their own
 * threads (small boxes, DIRECT_TILES) and by candidates (large ones)
 * alike, in one group.
 */
function mixed(count: number): MadeSplat[] {
  const random = rng(11);
  return Array.from({ length: count }, (_, i): MadeSplat => {
    const small = i % 2 === 1;
    const z = 0.1 * i;
    const reach = 0.5 * (5 + z);
    return {
      position: small ? [reach * (random() - 0.5), reach * (random() - 0.5), z] : [0, 0, z],
      scale: small ? [0.05, 0.05, 0.05] : [5, 5, 5],
      opacity: small ? 0.8 : 0.1,
      colour: [random(), random(), random()],
    };
  });
}

test('a budget that cuts between small splats and window-covering ones keeps the nearest, pair for pair', async () => {
  const count = 60;
  const splats = mixed(count);
  const cloud = madeScene(splats);
  const scene = gpu.upload(cloud, 'tile-budget.mixed');
  const camera = cameraOf(128, 96);
  const tiles = 16 * 12;
  const frame = await gpu.frame({ tiles: { maxPairs: 20 * tiles, tileSide: 8 } });
  await frame.painters.tiles.prepare(true);
  const tileRenderer = frame.painters.tiles.tileRenderer!;
  await tileRenderer.prepareTileSide(8, true);
  const picture = await renderChecked(gpu.device, frame, order, scene, camera, { renderer: 'tiles' });
  const counts = tileRenderer.lastPairs!;
  expect(counts.tileSide).toBe(8);
  // About 20 of the window-covering balls fit, and the small ones between them.
  expect(counts.cutEntries).toBeGreaterThan(10);
  expect(counts.cutEntries).toBeLessThan(30);
  expect(counts.overflowed).toBe(false);
  const nearest = count - counts.cutEntries;
  const ofKept = psnr(picture.rgba, toRgba8(renderReferenceCamera(madeScene(splats.slice(0, nearest)), camera).rgb));
  const ofAll = psnr(picture.rgba, toRgba8(renderReferenceCamera(cloud, camera).rgb));
  console.log(`60 mixed splats, a budget of 20 windows: ${counts.cutEntries} left out, ${ofKept.toFixed(2)} dB against the reference of the nearest ${nearest}, ${ofAll.toFixed(2)} dB against all`);
  expect(ofKept).toBeGreaterThanOrEqual(50);
  expect(ofAll).toBeLessThan(40);
});

test('candidates past 2^32 (1.1M window-covering splats at 1024×1024) are counted without wrapping', async () => {
  // 1e-5 apart: the farthest 16 units from the eye, where σ 20 still covers the window.
  const spread = (count: number) => layers(count, 1e-5, 20);
  const scene = gpu.upload(spread(1_100_000), 'tile-budget.many');
  const camera = cameraOf(1024, 1024);
  // Drawn by quads: the same scan (scan_boxes) as the tiles', without a raster of 4,096 tiles (8 s here).
  const frame = await gpu.frame({ tiles: { maxPairs: 4 * 64 * 64 } });
  await frame.painters.quads.prepare();
  const picture = await renderChecked(gpu.device, frame, order, scene, camera, { renderer: 'quads' });
  expect(frame.painters.quads.notice).toBe(
    "this view's splats reach over 4,294,967,295 tiles in all, more than the 16,384 this GPU bins in a frame (they cover the window many times over): the farthest 1,099,996 of 1,100,000 splats are not drawn",
  );
  const db = psnr(picture.rgba, toRgba8(renderReferenceCamera(spread(4), camera).rgb));
  console.log(`1.1M window-covering splats at 1024×1024, a budget of 4 splats: ${db.toFixed(2)} dB against the reference of the nearest 4`);
  expect(db).toBeGreaterThanOrEqual(45);
});

test('a candidate budget asked for replaces the adapter\'s, within the pairs the frame may sort', async () => {
  const scene = gpu.upload(layers(60), 'tile-budget.asked');
  const camera = cameraOf(64, 48);
  const tiles = 4 * 3;
  const drawn = async (tileOptions: TileRendererOptions) => {
    const frame = await gpu.frame({ tiles: tileOptions });
    await frame.painters.tiles.prepare();
    await renderChecked(gpu.device, frame, order, scene, camera, { renderer: 'tiles' });
    return frame.painters.tiles.tileRenderer!.lastPairs!;
  };
  // The software adapter's budget (2^21) holds all 60 layers' 720 candidates; 20 layers' worth asked for cuts the farthest 40.
  expect(await drawn({})).toMatchObject({ entries: 60, cutEntries: 0 });
  expect(await drawn({ candidateBudget: 20 * tiles })).toMatchObject({ entries: 60, cutEntries: 40, candidateBudget: 20 * tiles });
  // All the device sorts (the world benchmark's reference pictures): here the frame's 30 layers' worth of pairs.
  expect(await drawn({ candidateBudget: Infinity, maxPairs: 30 * tiles })).toMatchObject({ entries: 60, cutEntries: 30, candidateBudget: 30 * tiles });
});
