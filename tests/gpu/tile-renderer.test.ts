/**
 * The compute tile renderer (src/render/tiles/) on Dawn over SwiftShader:
 * its pictures against the CPU reference rasterizer (outside and inside a
 * real scene, splats across the window's edges, windows that are not
 * multiples of 16, a splat over the whole window, an anti-aliased file)
 * and against the quad renderer's; the pairs themselves (each tile's
 * splats in the draw order, each splat in every tile it blends a pixel
 * of); and the other orders and views. Room for the pairs and the output a
 * frame writes: tile-frame-output.test.ts.
 */
import { describe, expect, test } from 'vitest';
import type { GpuSplats } from '../../src/scene/gpu-splats';
import type { SplatFrame } from '../../src/app/frame/splat-frame';
import type { GpuSortOrder } from '../../src/app/frame/order/gpu-sort-order';
import type { OffscreenPicture } from '../../src/app/frame/offscreen-render';
import { renderReferenceCamera } from '../../cli/reference-camera';
import type { CameraFile } from '../../src/app/camera/camera-file';
import { psnr, toRgba8 } from '../../cli/picture-compare';
import type { OrderErrorMeasure } from '../../src/render/order-error-pass';
import { TILE_SIZE } from '../../src/render/tiles/tile-side';
import type { FrameRenderer } from '../../src/render/frame-renderer';
import type { FrameParameters } from '../../src/render/frame-uniforms';
import { parseSplatPly } from '../../src/io/ply/parse';
import { MIP_FILTER, screenFilterFor, type ScreenFilter } from '../../src/scene/anti-aliasing';
import type { SplatCloud } from '../../src/scene/splat-cloud';
import { computeDepthKeys } from '../../src/sort/cpu-depth-keys';
import { CpuRadixSort } from '../../src/sort/cpu-sort';
import { madeScene, useGpu, type MadeSplat } from '../support/gpu-fixture';
import { drawTiles, TILE_TEST_BACKGROUND, tileTestParameters, type TileDrawOptions, useTileTestScene } from '../support/tile-test-scene';
import { edgeSplats, madeCamera } from '../support/made-views';
import { writeSplatPly } from '../support/ply-writer';
import { cameraInsideScene, cameraLookingAt } from '../support/test-view';
import { channelDifference, TILE } from '../support/tile-footprints';
import { expectExactPairs } from '../support/tile-pairs-check';

const gpu = useGpu('tile-renderer.test');
let cloud: SplatCloud;
let scene: GpuSplats;
let order: GpuSortOrder;
let frame: SplatFrame;
useTileTestScene(gpu, 'tile-renderer', (made) => ({ cloud, scene, order, frame } = made));

const BACKGROUND = TILE_TEST_BACKGROUND;
const cameraAt = (offset: readonly [number, number, number], width = 160, height = 120) => cameraLookingAt(cloud, offset, width, height, BACKGROUND);
const cameraInside = (width = 160, height = 120) => cameraInsideScene(cloud, width, height, BACKGROUND);
const draw = (source: GpuSplats, camera: CameraFile, options: TileDrawOptions = {}): Promise<OffscreenPicture> => drawTiles(gpu, { frame, order }, source, camera, options);

/**
 * How far a tile picture may be from the quad picture of the same frame,
 * in 8-bit levels. The quads blend each layer into rgba16float, rounding
 * it to f16 (2^-11 relative: ~0.1 level a layer, under a level in sum);
 * the tiles sum in f32 and stop a pixel, without the splat, once its
 * transmittance would fall under 1e-4: the splat left out and what lies
 * behind it weigh at most the transmittance before it, under
 * 1e-4 / (1 - 0.99) = 1% (2.55 levels). So: no channel more than 3
 * levels apart, and at most 1% of the pixels more than 1.
 */
const QUAD_LEVELS = 3;
const QUAD_PIXELS_OVER_ONE = 0.01;

/**
 * Draws `source` with tiles and with quads and compares both with the CPU
 * reference: the tile picture at ≥ 50 dB, and within the quad tolerance of
 * the quad picture. Logs the figures.
 */
async function expectTilesMatch(what: string, source: SplatCloud, gpuSource: GpuSplats, camera: CameraFile, screenFilter?: ScreenFilter): Promise<void> {
  const reference = toRgba8(renderReferenceCamera(source, camera, { screenFilter }).rgb);
  const tiles = await draw(gpuSource, camera, { renderer: 'tiles', screenFilter });
  const pairs = frame.painters.tiles.tileRenderer!.lastPairs!;
  const quads = await draw(gpuSource, camera, { screenFilter });
  const apart = channelDifference(tiles.rgba, quads.rgba, 1);
  const db = psnr(tiles.rgba, reference);
  console.log(
    `${what} (${camera.width}×${camera.height}): tiles ${db.toFixed(2)} dB against the reference (quads ${psnr(quads.rgba, reference).toFixed(2)} dB); ` +
      `tiles against quads ${psnr(tiles.rgba, quads.rgba).toFixed(2)} dB, largest ${apart.largest} levels, ${apart.pixels} pixels over 1; ${pairs.total} pairs of ${pairs.entries} splats`,
  );
  expect(pairs.overflowed).toBe(false);
  expect(db).toBeGreaterThanOrEqual(50);
  expect(apart.largest).toBeLessThanOrEqual(QUAD_LEVELS);
  expect(apart.pixels).toBeLessThanOrEqual(QUAD_PIXELS_OVER_ONE * camera.width * camera.height);
}

describe('tiles against the CPU reference (≥ 50 dB) and the quads (within 3 levels)', () => {
  test('a camera outside the scene, 157×101', async () => {
    await expectTilesMatch('9k scene from outside', cloud, scene, cameraAt([3, -1, -6], 157, 101));
  });

  test('a camera inside the scene', async () => {
    await expectTilesMatch('9k scene from inside', cloud, scene, cameraInside(128, 96));
  });

  test('splats centred outside, on and just inside the window edges', async () => {
    const made = madeScene(edgeSplats(157, 101));
    const madeGpu = gpu.upload(made, 'tile-renderer.edges');
    try {
      await expectTilesMatch(`${made.count} splats across the edges`, made, madeGpu, madeCamera(157, 101, BACKGROUND));
    } finally {
      gpu.release(madeGpu);
    }
  });

  test('windows that are not multiples of 16: 33×17 and 17×40', async () => {
    for (const [w, h] of [[33, 17], [17, 40]] as const) {
      await expectTilesMatch('9k scene', cloud, scene, cameraAt([3, -1, -6], w, h));
    }
  });

  test('one splat covering the whole window, over smaller ones behind it', async () => {
    const splats: MadeSplat[] = [
      { position: [0, 0, -1.5], scale: [3, 2.5, 0.3], opacity: 0.7, colour: [0.9, 0.3, 0.2] },
      ...[-1, 0, 1].map((i): MadeSplat => ({ position: [i * 1.5, 0.5 * i, -6], scale: [0.6, 0.4, 0.3], opacity: 0.95, colour: [0.1, 0.8, 0.4] })),
    ];
    const made = madeScene(splats);
    const madeGpu = gpu.upload(made, 'tile-renderer.cover');
    try {
      const camera = madeCamera(64, 48, BACKGROUND);
      await expectTilesMatch('a splat over the window', made, madeGpu, camera);
      // It does cover it: every pixel is far from the background.
      const { rgba } = await draw(madeGpu, camera, { renderer: 'tiles' });
      for (let i = 0; i < rgba.length; i += 4) expect(Math.abs(rgba[i]! - 255 * BACKGROUND[0])).toBeGreaterThan(40);
    } finally {
      gpu.release(madeGpu);
    }
  });

  test('an anti-aliased (Mip-Splatting) file, drawn with its screen filter', async () => {
    const filter3D = new Float32Array(cloud.count).fill((8 / 1000) * Math.sqrt(0.2));
    const mip = parseSplatPly(writeSplatPly(cloud, { filter3D }));
    const filter = screenFilterFor('auto', mip.antiAliasing);
    expect(filter).toEqual(MIP_FILTER);
    const mipGpu = gpu.upload(mip, 'tile-renderer.mip');
    try {
      await expectTilesMatch('Mip-Splatting file', mip, mipGpu, cameraAt([6, -2, -12], 64, 48), filter);
    } finally {
      gpu.release(mipGpu);
    }
  });
});

/** Frame parameters of a camera file, as renderOffscreen makes them (for frames recorded here). */
const parametersOf = (camera: CameraFile, splatScale = 1, keyBits = 32): FrameParameters => tileTestParameters(cloud, camera, splatScale, keyBits);

describe('the pairs', () => {
  // 128×64 is 32 tiles: the box slots' NO_TILE must sort past the last tile even where the tiles fill their key bits.
  test.each([
    [96, 72],
    [128, 64],
  ])("each tile's splats in the draw order, back to front; each splat in every tile it blends a pixel of, and only its quad's (%i×%i)", async (width, height) => {
    const camera = cameraAt([3, -1, -6], width, height);
    await draw(scene, camera, { renderer: 'tiles' });
    expect(TILE).toBe(TILE_SIZE);
    const { visible, pairs, slots, blendedPairs, boxPairs } = await expectExactPairs(gpu.device, frame, cloud.count, camera.width, camera.height);
    console.log(`${visible} splats drawn: ${pairs} pairs in ${slots} box slots; ${blendedPairs} (tile, splat) with a pixel blended; ${boxPairs} in the quads' boxes`);
    expect(pairs).toBeGreaterThan(visible);
    // Box slots (tile-binning.ts): the untouched tiles of the boxes were sorted too.
    expect(slots).toBeGreaterThan(pairs);
    // The footprint test is tight: few pairs beyond the tiles with a pixel blended.
    expect(pairs).toBeLessThanOrEqual(1.1 * blendedPairs);
  });

  test('the drawn order measures the same ordering error with tiles as with quads', async () => {
    frame.setScene(scene);
    const parameters = parametersOf(cameraAt([3, -1, -6], 64, 48), 1, 16);
    const measure = async (renderer: FrameRenderer): Promise<OrderErrorMeasure> => {
      await gpu.render(frame, parameters, order, { renderer, measure: true });
      expect(frame.drawnWith).toBe(renderer);
      return frame.readOrderError();
    };
    const quads = await measure('quads');
    const tiles = await measure('tiles');
    await frame.painters.tiles.readStatistics();
    console.log(`16-bit keys: ${tiles.inverted} of ${tiles.pairs} adjacent pairs inverted with tiles, ${quads.inverted} of ${quads.pairs} with quads`);
    expect(quads.pairs).toBeGreaterThan(1000);
    expect(tiles).toEqual(quads);
  });
});

describe('other orders, scenes and views', () => {
  const camera = () => cameraAt([3, -1, -6], 96, 72);

  test('a view with no splat in it: the background everywhere, nothing binned', async () => {
    await draw(scene, camera(), { renderer: 'tiles' });
    // Beyond the farthest splat along +z, looking on along +z: every splat is behind the camera.
    const eye: [number, number, number] = [0, 0, cloud.bounds.max[2]! + 10];
    const away: CameraFile = { ...camera(), eye, target: [0, 0, eye[2] + 1] };
    const { rgba } = await draw(scene, away, { renderer: 'tiles' });
    expect(frame.painters.tiles.tileRenderer!.lastPairs).toMatchObject({ entries: 0, total: 0, overflowed: false });
    // The background as the quads clear to it (0.1 · 255 = 25.5 may round either way).
    const background = Array.from(rgba.subarray(0, 3));
    background.forEach((v, c) => expect(Math.abs(v - 255 * BACKGROUND[c]!)).toBeLessThanOrEqual(1));
    for (let i = 0; i < rgba.length; i += 4) {
      if (rgba[i] !== background[0] || rgba[i + 1] !== background[1] || rgba[i + 2] !== background[2]) expect.fail(`pixel ${i / 4} is ${Array.from(rgba.subarray(i, i + 3))}, not the background`);
    }
  });

  test('a frame with no scene: the background alone', async () => {
    const parameters = parametersOf(camera());
    await gpu.render(frame, parameters, order, { renderer: 'tiles' });
    frame.setScene(null);
    try {
      const rgba = await gpu.render(frame, parameters, order, { renderer: 'tiles', background: BACKGROUND });
      expect(frame.drawnWith).toBe('tiles');
      for (let i = 0; i < rgba.length; i += 4) expect(Math.abs(rgba[i]! - 255 * BACKGROUND[0])).toBeLessThanOrEqual(1);
      expect(new Set(Array.from({ length: rgba.length / 4 }, (_, p) => rgba[4 * p + 2])).size).toBe(1);
    } finally {
      frame.setScene(scene);
    }
  });

  test('a scene in 3 chunks draws the picture of the scene in one', async () => {
    const split = gpu.upload(cloud, 'tile-renderer.split', { maxChunkBytes: 4096 * (64 + 12 * 16) });
    try {
      expect(split.chunks.length).toBe(Math.ceil(cloud.count / 4096));
      expect(split.chunks.length).toBeGreaterThanOrEqual(3);
      const whole = await draw(scene, camera(), { renderer: 'tiles' });
      const chunked = await draw(split, camera(), { renderer: 'tiles' });
      expect(Buffer.from(chunked.rgba).equals(Buffer.from(whole.rgba))).toBe(true);
    } finally {
      gpu.release(split);
    }
  });

  test('the CPU order (uploaded, every splat) and the frozen order draw the GPU order\'s picture', async () => {
    const cam = camera();
    const sorted = await draw(scene, cam, { renderer: 'tiles' });
    const gpuPairs = frame.painters.tiles.tileRenderer!.lastPairs!;
    const frozen = await draw(scene, cam, { renderer: 'tiles', drawOrder: frame.frozen });
    expect(Buffer.from(frozen.rgba).equals(Buffer.from(sorted.rgba))).toBe(true);

    const keys = new Uint32Array(cloud.count);
    const values = new Uint32Array(cloud.count);
    computeDepthKeys(cloud.positions, cloud.count, parametersOf(cam).view, 32, keys, values);
    new CpuRadixSort(cloud.count).sort(keys, values, cloud.count, 32);
    const uploaded = gpu.uploadedOrder();
    uploaded.upload(values, cloud.count);
    const cpu = await draw(scene, cam, { renderer: 'tiles', drawOrder: uploaded });
    const cpuPairs = frame.painters.tiles.tileRenderer!.lastPairs!;
    // Every splat is an entry; the culled ones give no pair.
    expect(cpuPairs.entries).toBe(cloud.count);
    expect(cpuPairs.total).toBe(gpuPairs.total);
    expect(cpuPairs.touched).toBe(gpuPairs.touched);
    // Equal depths may be drawn in another order.
    expect(channelDifference(cpu.rgba, sorted.rgba).largest).toBeLessThanOrEqual(2);
  });

  test('the sort difference view, drawn with tiles: nothing differs for the exact order, a frozen order after a turn does', async () => {
    await frame.prepareDifferenceView();
    const cam = camera();
    const exact = await draw(scene, cam, { renderer: 'tiles', view: 'difference' });
    expect(exact.difference).toMatchObject({ pixelCount: cam.width * cam.height, pixels: 0, largest: 0 });
    expect(exact.rgba.some((v, i) => i % 4 !== 3 && v > 10)).toBe(true);

    // The order of one camera, frozen, drawn from a camera moved a little: as wrong with tiles as with quads.
    const turned = cameraAt([3.5, -1, -5.8], cam.width, cam.height);
    const staleDifference = async (renderer: FrameRenderer) => {
      await draw(scene, cam, { renderer });
      return (await draw(scene, turned, { renderer, view: 'difference', drawOrder: frame.frozen })).difference!;
    };
    const quads = await staleDifference('quads');
    const measure = await staleDifference('tiles');
    console.log(`difference view, a frozen order after a turn: ${measure.pixels} of ${measure.pixelCount} pixels differ with tiles (largest ${measure.largest} levels), ${quads.pixels} with quads (${quads.largest})`);
    expect(measure.pixelCount).toBe(cam.width * cam.height);
    expect(measure.pixels).toBeGreaterThan(0);
    expect(measure.pixels).toBeLessThan(measure.pixelCount);
    expect(Math.abs(measure.pixels - quads.pixels)).toBeLessThanOrEqual(0.1 * quads.pixels);
    expect(measure.largest).toBeGreaterThan(1);
  });
});
