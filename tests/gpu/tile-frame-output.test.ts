/**
 * The tile renderer's frames on Dawn over SwiftShader, past their
 * pictures (tile-renderer.test.ts): a frame that outgrows its pair room
 * says so, grows and is drawn again, one that overflows is drawn whole by
 * the quads; and the output a frame writes: the bind groups a new output
 * view costs, and an output written by compute holding the picture a
 * render pass writes.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import type { GpuSplats } from '../../src/scene/gpu-splats';
import type { SplatFrame } from '../../src/app/frame/splat-frame';
import type { GpuSortOrder } from '../../src/app/frame/order/gpu-sort-order';
import type { OffscreenPicture } from '../../src/app/frame/offscreen-render';
import type { CameraFile } from '../../src/app/camera/camera-file';
import type { FrameRenderer } from '../../src/render/frame-renderer';
import type { FrameParameters } from '../../src/render/frame-uniforms';
import type { SplatCloud } from '../../src/scene/splat-cloud';
import { TEST_TARGET_FORMAT, useGpu } from '../support/gpu-fixture';
import { cameraLookingAt } from '../support/test-view';
import { drawTiles, TILE_TEST_BACKGROUND, tileTestParameters, type TileDrawOptions, useTileTestScene } from '../support/tile-test-scene';

const gpu = useGpu('tile-frame-output.test');
let cloud: SplatCloud;
let scene: GpuSplats;
let order: GpuSortOrder;
let frame: SplatFrame;
useTileTestScene(gpu, 'tile-frame-output', (made) => ({ cloud, scene, order, frame } = made));

const cameraAt = (offset: readonly [number, number, number], width: number, height: number) => cameraLookingAt(cloud, offset, width, height, TILE_TEST_BACKGROUND);
const draw = (source: GpuSplats, camera: CameraFile, options: TileDrawOptions = {}): Promise<OffscreenPicture> => drawTiles(gpu, { frame, order }, source, camera, options);
const parametersOf = (camera: CameraFile, splatScale = 1): FrameParameters => tileTestParameters(cloud, camera, splatScale);

describe('room for the pairs', () => {
  let tiny: SplatFrame;

  beforeAll(async () => {
    tiny = await gpu.frame({ tiles: { initialPairs: 16 } });
    await tiny.painters.tiles.prepare();
  });

  test('a frame that outgrows 16 pairs says so, grows, and is drawn again exactly as with ample room', async () => {
    const camera = cameraAt([3, -1, -6], 64, 48);
    const ample = await draw(scene, camera, { renderer: 'tiles' });
    const grown = await draw(scene, camera, { renderer: 'tiles', frame: tiny });
    // renderOffscreen read the first frame's counts and drew it again.
    const first = tiny.painters.tiles.tileRenderer!.lastPairs!;
    expect(first).toMatchObject({ capacity: 16, overflowed: true });
    expect(first.total).toBe(frame.painters.tiles.tileRenderer!.lastPairs!.total);
    expect(tiny.painters.tiles.tileRenderer!.capacity).toBeGreaterThanOrEqual(1.5 * first.total);
    const again = (await tiny.painters.tiles.readStatistics())!;
    expect(again).toMatchObject({ total: first.total, overflowed: false });
    expect(Buffer.from(grown.rgba).equals(Buffer.from(ample.rgba))).toBe(true);
  });

  test('a frame that overflows is drawn whole, by quads, and the next by tiles', async () => {
    const camera = cameraAt([3, -1, -6], 64, 48);
    frame.setScene(scene);
    tiny.setScene(scene);
    const drawTiny = async (splatScale: number) => {
      const rgba = await gpu.render(tiny, parametersOf(camera, splatScale), order, { renderer: 'tiles' });
      return { rgba, pairs: (await tiny.painters.tiles.readStatistics())! };
    };
    const a = await drawTiny(1);
    expect(a.pairs.overflowed).toBe(false);
    // Splats three times the size need more pairs than the room grown so far.
    const b = await drawTiny(3);
    console.log(`overflow: picture A ${a.pairs.total} pairs in room for ${a.pairs.capacity}; picture B ${b.pairs.total} pairs in room for ${b.pairs.capacity}`);
    expect(b.pairs.overflowed).toBe(true);
    // No tile missing: the quads' picture of B blended straight into the output, exactly (the resolve pass draws them).
    const direct = await gpu.frame({ accumulation: 'direct' });
    direct.setScene(scene);
    const quadsB = await gpu.render(direct, parametersOf(camera, 3), order, { renderer: 'quads' });
    expect(Buffer.from(b.rgba).equals(Buffer.from(quadsB))).toBe(true);
    expect(Buffer.from(b.rgba).equals(Buffer.from(a.rgba))).toBe(false);
    const bAgain = await drawTiny(3);
    expect(bAgain.pairs.overflowed).toBe(false);
    const ampleB = await gpu.render(frame, parametersOf(camera, 3), order, { renderer: 'tiles' });
    await frame.painters.tiles.readStatistics();
    expect(Buffer.from(bAgain.rgba).equals(Buffer.from(ampleB))).toBe(true);
    expect(Buffer.from(bAgain.rgba).equals(Buffer.from(a.rgba))).toBe(false);
  });
});

test('drawn into a new output view each frame (as a canvas hands one out), a tile frame makes only the bind groups that hold the output: the raster\'s and the merge\'s', async () => {
  await frame.painters.tiles.prepare();
  frame.setScene(scene);
  const params = parametersOf(cameraAt([3, -1, -6], 64, 48), 1);
  await gpu.render(frame, params, order, { renderer: 'tiles', writable: true });
  const device = gpu.device;
  const create = device.createBindGroup.bind(device);
  const made: string[] = [];
  device.createBindGroup = (descriptor: GPUBindGroupDescriptor) => {
    made.push(descriptor.label ?? '');
    return create(descriptor);
  };
  try {
    await gpu.render(frame, params, order, { renderer: 'tiles', writable: true });
  } finally {
    device.createBindGroup = create;
  }
  expect(made.sort()).toEqual(['TileChunks.mergeBindGroup', 'TileRaster.bindGroup']);
});

test('an output written by compute (as the viewer makes its canvas) holds the picture a render pass writes: quads, tiles, and an overflowed tile frame', async () => {
  const camera = cameraAt([3, -1, -6], 64, 48);
  // A background of whole 8-bit levels: a clear and a shader's store may round a half level apart
  // (SwiftShader's do: over the usual background, 0.1 × 255 = 25.5, the overflowed frames differed
  // by one level in 263 of 12,288 bytes).
  const WHOLE_LEVELS = [51 / 255, 102 / 255, 153 / 255] as const;
  // Two frames with room for 18 and 19 pairs, which no other test draws with (the fixture keeps one
  // frame per description): each overflows on its first draw here (and grows for the next).
  const rooms = await Promise.all([gpu.frame({ tiles: { initialPairs: 18 } }), gpu.frame({ tiles: { initialPairs: 19 } })]);
  for (const f of [frame, ...rooms]) {
    await f.painters.tiles.prepare();
    f.setScene(scene);
  }
  const both = async (frames: [SplatFrame, SplatFrame], renderer: FrameRenderer) => {
    const byPass = await gpu.render(frames[0], parametersOf(camera, 1), order, { renderer, background: WHOLE_LEVELS });
    const passPairs = await frames[0].painters.tiles.readStatistics();
    const byCompute = await gpu.render(frames[1], parametersOf(camera, 1), order, { renderer, background: WHOLE_LEVELS, writable: true });
    const computePairs = await frames[1].painters.tiles.readStatistics();
    expect(Buffer.from(byCompute).equals(Buffer.from(byPass)), `${renderer}: the two resolves differ`).toBe(true);
    return [passPairs, computePairs];
  };
  await both([frame, frame], 'quads');
  await both([frame, frame], 'tiles');
  // Pairs overflowing: the background by compute, then the quads in a pass that loads it.
  const pairs = await both(rooms as [SplatFrame, SplatFrame], 'tiles');
  expect(pairs.map((p) => p?.overflowed)).toEqual([true, true]);

  // The writable path is a compute pass, not the render pass again: told a render target alone is
  // writable, the frame binds it as storage, which WebGPU refuses.
  const renderOnly = gpu.device.createTexture({ size: [camera.width, camera.height], format: TEST_TARGET_FORMAT, usage: GPUTextureUsage.RENDER_ATTACHMENT });
  for (const renderer of ['quads', 'tiles'] as const) {
    gpu.device.pushErrorScope('validation');
    const encoder = gpu.device.createCommandEncoder();
    frame.encode(encoder, parametersOf(camera, 1), { view: renderOnly.createView(), background: WHOLE_LEVELS, writable: true }, order, { renderer });
    gpu.device.queue.submit([encoder.finish()]);
    expect((await gpu.device.popErrorScope())?.message, `${renderer}: no storage binding asked for`).toMatch(/STORAGE_BINDING|usage/i);
    await frame.painters.tiles.readStatistics();
  }
  renderOnly.destroy();
});
