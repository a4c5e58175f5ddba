/**
 * Tiles of 8 pixels (src/render/tiles/tile-side.ts) on Dawn over
 * SwiftShader: the binning, ranges, chunks and raster made for another tile
 * side must draw the same picture. A pixel meets the same splats in the
 * same order whichever tile holds it (a splat left out of a smaller tile
 * reaches none of its pixels above 1/255), so the real scene, from outside
 * and inside, in both orders, at a size that is a multiple of neither side,
 * is the same picture byte for byte at 8 as at 16 with runs uncut, and the
 * CPU reference's within the tile tests' 50 dB with runs cut into chunks
 * (of 16 pairs, as tests/gpu/tile-chunks.test.ts cuts them).
 * At 8 the binning's own threads take the small boxes (DIRECT_TILES) and
 * candidates the larger: 560,000 splats of both binned pair for pair, so
 * many that each of the binning scan's invocations reads its groups' counts
 * in several rounds of READ_AHEAD (shaders/tile_bin.wgsl).
 * A frame that wants small tiles before their passes are made draws 16
 * meanwhile; frames of small splats switch by themselves, and back up close. (Which frames
 * want small tiles, tileSideFor, is tests/unit/tile-side.test.ts's.)
 */
import { beforeAll, expect, test } from 'vitest';
import type { GpuSplats } from '../../src/scene/gpu-splats';
import { SplatFrame } from '../../src/app/frame/splat-frame';
import type { GpuSortOrder } from '../../src/app/frame/order/gpu-sort-order';
import type { SplatCloud } from '../../src/scene/splat-cloud';
import type { CameraFile } from '../../src/app/camera/camera-file';
import type { SplatOrder } from '../../src/render/frame-renderer';
import type { TileSide } from '../../src/render/tiles/tile-side';
import { renderReferenceCamera } from '../../cli/reference-camera';
import { psnr, toRgba8 } from '../../cli/picture-compare';
import { renderChecked } from '../support/checked-render';
import { madeScene, realScene, TEST_TARGET_FORMAT, useGpu } from '../support/gpu-fixture';
import { cameraInsideScene, cameraLookingAt } from '../support/test-view';
import { channelDifference } from '../support/tile-footprints';
import { expectExactPairs } from '../support/tile-pairs-check';
import { DIRECT_TILES } from '../../src/render/tiles/tile-binning';
import { rng } from '../support/splat-files';

const gpu = useGpu('tile-side.test');
let cloud: SplatCloud;
let scene: GpuSplats;
let order: GpuSortOrder;

const BACKGROUND = [0.1, 0.2, 0.3] as const;
const outside = () => cameraLookingAt(cloud, [3, -1, -6], 93, 61, BACKGROUND);
const inside = () => cameraInsideScene(cloud, 93, 61, BACKGROUND);

/** Frames of one side each, runs uncut or cut into chunks of 16 pairs (up to 256 of them, so that the 9k scene's runs at 93×61 are cut). */
const frames = (side: TileSide, uncut: boolean) => gpu.frame({ tiles: { tileSide: side, chunking: uncut ? { minPairs: 0 } : { minPairs: 16, maxChunks: 256 } } });

beforeAll(async () => {
  cloud = await realScene('inria_kacytran_iter7000_9k_sh3.ply');
  scene = gpu.upload(cloud, 'tile-side.scene');
  order = await gpu.gpuOrder();
  const made = await Promise.all([frames(8, true), frames(16, true), frames(8, false)]);
  await Promise.all(made.map((f) => f.painters.tiles.prepare(true)));
  await Promise.all(made.map((f) => f.painters.tiles.tileRenderer!.prepareTileSide(8, true)));
});

async function drawAt(side: TileSide, uncut: boolean, camera: CameraFile, splatOrder: SplatOrder) {
  const frame = await frames(side, uncut);
  const picture = await renderChecked(gpu.device, frame, order, scene, camera, { renderer: 'tiles', splatOrder });
  const tiles = frame.painters.tiles.tileRenderer!;
  expect(tiles.lastTileSide).toBe(side);
  return { picture, pairs: tiles.lastPairs! };
}

async function expectSidesMatch(what: string, camera: CameraFile, splatOrder: SplatOrder): Promise<void> {
  const small = await drawAt(8, true, camera, splatOrder);
  const large = await drawAt(16, true, camera, splatOrder);
  const apart = channelDifference(small.picture.rgba, large.picture.rgba, 0);
  console.log(`${what}, ${splatOrder} (${camera.width}×${camera.height}): ${small.pairs.touched} pairs at 8, ${large.pairs.touched} at 16 (${large.pairs.total} box slots); ${apart.pixels} pixels differ`);
  expect(small.pairs.overflowed || large.pairs.overflowed).toBe(false);
  expect(small.pairs.tileSide).toBe(8);
  expect(small.pairs.touched).toBeGreaterThan(large.pairs.touched);
  expect(apart.pixels).toBe(0);
}

test.each(['centre-depth', 'per-pixel'] as const)('outside the scene, %s: 8-pixel tiles draw the picture 16-pixel tiles draw', async (splatOrder) => {
  await expectSidesMatch('9k scene from outside', outside(), splatOrder);
});

test.each(['centre-depth', 'per-pixel'] as const)('inside the scene, %s: 8-pixel tiles draw the picture 16-pixel tiles draw', async (splatOrder) => {
  await expectSidesMatch('9k scene from inside', inside(), splatOrder);
});

test.each([
  ['outside', outside],
  ['inside', inside],
] as const)('%s the scene, runs cut into chunks: 8-pixel tiles within 50 dB of the CPU reference', async (_, view) => {
  const camera = view();
  const { picture, pairs } = await drawAt(8, false, camera, 'centre-depth');
  const db = psnr(picture.rgba, toRgba8(renderReferenceCamera(cloud, camera).rgb));
  const chunks = await (await frames(8, false)).painters.tiles.tileRenderer!.readChunkCounts();
  console.log(`9k scene ${_}, 8-pixel tiles, cut: ${pairs.total} pairs, ${chunks.splits} tiles cut; ${db.toFixed(2)} dB against the reference`);
  expect(chunks.splits).toBeGreaterThan(0);
  expect(db).toBeGreaterThanOrEqual(50);
});

test('560,000 splats at 8: small boxes binned by their own threads, larger ones by candidates, each scan invocation reading its groups in several rounds, pair for pair', async () => {
  // Mostly specks of a pixel or less, one in a hundred a ball of a few tiles, in a box before the eye.
  const random = rng(5);
  const count = 560_000;
  const specks = madeScene(
    Array.from({ length: count }, (_, i) => {
      const sigma = i % 100 === 0 ? 0.3 : 0.002 + 0.008 * random();
      return {
        position: [2 * random() - 1, 2 * random() - 1, 2 * random()] as const,
        scale: [sigma, sigma, sigma] as const,
        opacity: 0.5,
        colour: [random(), random(), random()] as const,
      };
    }),
  );
  const specksScene = gpu.upload(specks, 'tile-side.specks');
  // Room for the frame's 1.2M slots from the first frame on (past INITIAL_PAIRS: renderOffscreen would leave the
  // overflowed first frame's counts as lastPairs, and expectExactPairs refuses those).
  const fresh = await SplatFrame.create(gpu.device, TEST_TARGET_FORMAT, { tiles: { tileSide: 8, initialPairs: 1 << 21 } });
  try {
    await fresh.painters.tiles.prepare(true);
    await fresh.painters.tiles.tileRenderer!.prepareTileSide(8, true);
    const camera: CameraFile = { width: 96, height: 72, fovy_deg: 60, eye: [0, 0, -5], target: [0, 0, 0], up: [0, -1, 0], background: [...BACKGROUND], sh_degree: 0 };
    await renderChecked(gpu.device, fresh, order, specksScene, camera, { renderer: 'tiles' });
    expect(fresh.painters.tiles.tileRenderer!.lastTileSide).toBe(8);
    const checked = await expectExactPairs(gpu.device, fresh, count, camera.width, camera.height);
    const larger = checked.boxes.filter((b) => b > DIRECT_TILES[8]).length;
    console.log(`${checked.visible} specks drawn at 8: ${checked.pairs} pairs, ${larger} boxes over ${DIRECT_TILES[8]} tiles`);
    // The scan's 256 invocations each read more than READ_AHEAD (8) groups of 256 entries (shaders/tile_bin.wgsl).
    expect(checked.visible).toBeGreaterThan(256 * 8 * 256);
    expect(larger).toBeGreaterThan(100);
    expect(larger).toBeLessThan(checked.visible / 10);
  } finally {
    fresh.destroy();
  }
});

test('a frame that wants small tiles before their passes are made draws 16-pixel tiles, the same picture, and 8 once they are made', async () => {
  // A frame of its own: the fixture's frames of these options have their small tiles made already.
  const fresh = await SplatFrame.create(gpu.device, TEST_TARGET_FORMAT, { tiles: { tileSide: 8 } });
  try {
    await fresh.painters.tiles.prepare();
    const tiles = fresh.painters.tiles.tileRenderer!;
    const first = await renderChecked(gpu.device, fresh, order, scene, outside(), { renderer: 'tiles' });
    expect(tiles.lastTileSide).toBe(16);
    // The passes the first frame asked for.
    await tiles.prepareTileSide(8);
    const next = await renderChecked(gpu.device, fresh, order, scene, outside(), { renderer: 'tiles' });
    expect(tiles.lastTileSide).toBe(8);
    expect(channelDifference(next.rgba, first.rgba, 0).pixels).toBe(0);
  } finally {
    fresh.destroy();
  }
});

test('splats smaller than a tile: the next frames draw 8-pixel tiles by themselves, the same picture, and 16 again up close; by default a software adapter stays at 16', async () => {
  // A grid of small splats on a plane: a pixel or two each from afar, many tiles each up close.
  const grid = madeScene(
    Array.from({ length: 40 * 26 }, (_, i) => ({
      position: [((i % 40) - 19.5) * 0.075, (Math.floor(i / 40) - 12.5) * 0.075, 0] as const,
      scale: [0.02, 0.02, 0.02] as const,
      opacity: 0.8,
      colour: [(i % 7) / 7, (i % 5) / 5, (i % 3) / 3] as const,
    })),
  );
  const gridScene = gpu.upload(grid, 'tile-side.grid');
  // 'auto' asked for: a software adapter draws 16-pixel tiles by default (tile-side-kits.ts).
  const fresh = await SplatFrame.create(gpu.device, TEST_TARGET_FORMAT, { tiles: { tileSide: 'auto', chunking: { minPairs: 0 } } });
  try {
    await fresh.painters.tiles.prepare();
    const tiles = fresh.painters.tiles.tileRenderer!;
    await tiles.prepareTileSide(8);
    const far = cameraLookingAt(grid, [0, 0, -4], 93, 61, BACKGROUND);
    const first = await renderChecked(gpu.device, fresh, order, gridScene, far, { renderer: 'tiles' });
    const read = tiles.lastPairs!;
    console.log(`a grid of small splats from afar: ${(read.touched / read.entries).toFixed(2)} pairs a splat at 16`);
    expect(read.tileSide).toBe(16);
    expect(read.touched / read.entries).toBeLessThan(2);
    const next = await renderChecked(gpu.device, fresh, order, gridScene, far, { renderer: 'tiles' });
    expect(tiles.lastTileSide).toBe(8);
    expect(channelDifference(next.rgba, first.rgba, 0).pixels).toBe(0);
    const near = cameraLookingAt(grid, [0, 0, -0.5], 93, 61, BACKGROUND);
    await renderChecked(gpu.device, fresh, order, gridScene, near, { renderer: 'tiles' });
    const close = tiles.lastPairs!;
    console.log(`the same grid up close: ${(close.touched / close.entries).toFixed(2)} pairs a splat at 8`);
    expect(close.tileSide).toBe(8);
    expect(close.touched / close.entries).toBeGreaterThan(3.5);
    expect(close.total).toBeGreaterThan(close.touched);
    await renderChecked(gpu.device, fresh, order, gridScene, near, { renderer: 'tiles' });
    expect(tiles.lastTileSide).toBe(16);
    // The fixture's frame of the default options, on SwiftShader: small splats, and 16-pixel tiles still.
    const plain = await gpu.frame();
    await plain.painters.tiles.prepare();
    await plain.painters.tiles.tileRenderer!.prepareTileSide(8);
    await renderChecked(gpu.device, plain, order, gridScene, far, { renderer: 'tiles' });
    await renderChecked(gpu.device, plain, order, gridScene, far, { renderer: 'tiles' });
    expect(plain.painters.tiles.tileRenderer!.lastTileSide).toBe(16);
  } finally {
    fresh.destroy();
  }
});
