/**
 * How many splats' alphas a pixel works out before it blends any of them
 * (rasterArrivals, src/render/tiles/tile-raster.ts) on Dawn over
 * SwiftShader: any count draws the same picture, byte for byte, in both
 * orders and both walks of a batch (every splat, block lists). A group
 * running past its batch's end holds arrivals of alpha 0 that must change
 * nothing: four a group leaves such a group at nearly every run's end,
 * two at every odd one. The counts a GPU takes (4, and 2 in the per-pixel
 * order) are drawn here, where a software adapter would take fewer.
 */
import { beforeAll, expect, test } from 'vitest';
import type { GpuSplats } from '../../src/scene/gpu-splats';
import type { GpuSortOrder } from '../../src/app/frame/order/gpu-sort-order';
import type { SplatCloud } from '../../src/scene/splat-cloud';
import type { CameraFile } from '../../src/app/camera/camera-file';
import type { SplatOrder } from '../../src/render/frame-renderer';
import { rasterArrivals } from '../../src/render/tiles/tile-raster';
import { renderChecked } from '../support/checked-render';
import { realScene, useGpu } from '../support/gpu-fixture';
import { cameraInsideScene, cameraLookingAt } from '../support/test-view';
import { channelDifference } from '../support/tile-footprints';

const gpu = useGpu('tile-arrivals.test');
let cloud: SplatCloud;
let scene: GpuSplats;
let order: GpuSortOrder;

const BACKGROUND = [0.1, 0.2, 0.3] as const;
/**
 * The frames compared: one alpha at a time walking every splat, and a
 * GPU's counts walking every splat and walking block lists. (Lists and the
 * plain walk draw the same picture: tests/gpu/tile-block-lists.test.ts.)
 */
const FRAMES = {
  one: { arrivals: { 'centre-depth': 1, 'per-pixel': 1 }, blockListsBelow: 0 },
  gpu: { arrivals: gpuArrivals(), blockListsBelow: 0 },
  'gpu, lists': { arrivals: gpuArrivals(), blockListsBelow: Infinity },
} as const;
type FrameName = keyof typeof FRAMES;
const NAMES = Object.keys(FRAMES) as FrameName[];

function gpuArrivals(): Record<SplatOrder, number> {
  return { 'centre-depth': rasterArrivals('centre-depth', false), 'per-pixel': rasterArrivals('per-pixel', false) };
}

const frameOf = (name: FrameName) => gpu.frame({ tiles: { tileSide: 16, ...FRAMES[name] } });

beforeAll(async () => {
  cloud = await realScene('inria_kacytran_iter7000_9k_sh3.ply');
  scene = gpu.upload(cloud, 'tile-arrivals.scene');
  order = await gpu.gpuOrder();
  const made = await Promise.all(NAMES.map(frameOf));
  await Promise.all(made.map((f) => f.painters.tiles.prepare(true)));
  // The lists' pipelines of both orders, made before the first frame wants them.
  const lists = (await frameOf('gpu, lists')).painters.tiles.tileRenderer!;
  await Promise.all([lists.prepareBlockLists(false), lists.prepareBlockLists(true)]);
});

test('a GPU works out 4 alphas ahead in the centre-depth order and 2 in the per-pixel order; a software adapter 4 and 1', () => {
  expect([rasterArrivals('centre-depth', false), rasterArrivals('per-pixel', false)]).toEqual([4, 2]);
  expect([rasterArrivals('centre-depth', true), rasterArrivals('per-pixel', true)]).toEqual([4, 1]);
});

const views: [string, () => CameraFile][] = [
  ['outside', () => cameraLookingAt(cloud, [3, -1, -6], 93, 61, BACKGROUND)],
  ['inside', () => cameraInsideScene(cloud, 93, 61, BACKGROUND)],
];

test.each(views.flatMap(([name, camera]) => (['centre-depth', 'per-pixel'] as const).map((splatOrder) => [name, splatOrder, camera] as const)))(
  '%s the scene, %s: every count of alphas ahead draws the same picture, walking every splat or block lists',
  async (name, splatOrder, camera) => {
    const pictures: Uint8Array[] = [];
    for (const frameName of NAMES) {
      const frame = await frameOf(frameName);
      const picture = await renderChecked(gpu.device, frame, order, scene, camera(), { renderer: 'tiles', splatOrder });
      const tiles = frame.painters.tiles.tileRenderer!;
      expect(tiles.lastPairs!.overflowed).toBe(false);
      expect(tiles.lastWalk).toBe(FRAMES[frameName].blockListsBelow === 0 ? 'all' : 'lists');
      pictures.push(picture.rgba);
    }
    const apart = pictures.map((p) => channelDifference(p, pictures[0]!, 0).pixels);
    console.log(`9k scene ${name}, ${splatOrder}: pixels differing from one at a time (${NAMES.join('; ')}): ${apart.join(', ')}`);
    expect(apart).toEqual(pictures.map(() => 0));
  },
);
