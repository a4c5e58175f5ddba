/**
 * The projector on a real WebGPU device (Dawn over SwiftShader in CI): it
 * culls only what cannot be seen, counts exactly the splats its rule keeps,
 * clamps its count to its capacity, and leaves an empty view empty. (Split
 * scenes: tests/gpu/gpu-splats-chunks.test.ts; the order and its error:
 * tests/gpu/splat-frame.test.ts.)
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { mat4, vec3 } from 'gl-matrix';
import { readBufferU32 } from '../../src/gpu/readback';
import type { SplatFrame } from '../../src/app/frame/splat-frame';
import type { GpuSortOrder } from '../../src/app/frame/order/gpu-sort-order';
import { OrbitCamera } from '../../src/app/camera/orbit-camera';
import { QUAD_VERTICES, VISIBLE_STATE } from '../../src/render/frame-layouts';
import type { FrameParameters } from '../../src/render/frame-uniforms';
import type { GpuSplats } from '../../src/scene/gpu-splats';
import { robustBounds } from '../../src/scene/splat-cloud';
import { CpuRadixSort } from '../../src/sort/cpu-sort';
import { computeDepthKeys } from '../../src/sort/cpu-depth-keys';
import { cpuKeptDepths } from '../support/cpu-cull';
import { madeScene, realScene, useGpu } from '../support/gpu-fixture';
import { medianCentre, VIEW_BACKGROUND, VIEW_BYTES_PER_ROW, VIEW_HEIGHT, VIEW_WIDTH } from '../support/test-view';

const WIDTH = VIEW_WIDTH;
const HEIGHT = VIEW_HEIGHT;

const gpu = useGpu('projector.test');
// Decoded at load: the cameras below are made from it when the tests are collected.
const cloud = await realScene('inria_kacytran_iter7000_9k_sh3.ply');
let scene: GpuSplats;
let frame: SplatFrame;
/** The same frame with frustum culling off: the picture culling must not change. */
let unculled: SplatFrame;
let gpuOrder: GpuSortOrder;

beforeAll(async () => {
  scene = gpu.upload(cloud, 'projectorTest.scene');
  [frame, unculled, gpuOrder] = await Promise.all([gpu.frame(), gpu.frame({ frustumCull: false }), gpu.gpuOrder()]);
});

function parametersOf(view: mat4, eye: vec3, keyBits = 32): FrameParameters {
  const fovY = Math.PI / 3;
  const projection = mat4.perspectiveZO(mat4.create(), fovY, WIDTH / HEIGHT, 0.01, Infinity);
  return { view, projection, eye, fovY, width: WIDTH, height: HEIGHT, splatScale: 1, keyBits, splatCount: cloud.count, shDegree: cloud.shDegree };
}

/** Views that put the rule to work: the eye inside the scene, splats across the window's edge, most splats behind the eye. */
function cameras(): { name: string; params: FrameParameters }[] {
  const camera = new OrbitCamera({ yaw: 0.6, pitch: 0.3 });
  camera.setUp([0, -1, 0]);
  camera.frame(robustBounds(cloud.positions, cloud.count), WIDTH / HEIGHT);
  camera.zoom(1 / 3);
  const inside = parametersOf(camera.viewMatrix(mat4.create()), camera.eye(vec3.create()));
  const centre = medianCentre(cloud);
  // The median point off to the side: the bulk of the scene straddles the left edge.
  const eye = vec3.add(vec3.create(), centre, vec3.fromValues(3, -1, -6));
  const aside = vec3.add(vec3.create(), centre, vec3.fromValues(2.2, 0, 0));
  const edge = parametersOf(mat4.lookAt(mat4.create(), eye, aside, [0, -1, 0]), eye);
  // At the median point looking outwards: half the scene behind the eye.
  const outwards = vec3.add(vec3.create(), centre, vec3.fromValues(0, 0, 10));
  const behind = parametersOf(mat4.lookAt(mat4.create(), centre, outwards, [0, -1, 0]), vec3.clone(centre));
  return [
    { name: 'eye inside the scene', params: inside },
    { name: 'splats across the window edge', params: edge },
    { name: 'half the scene behind the eye', params: behind },
  ];
}

/** The VisibleState header of a frame's projector; `instances`: the splats its indirect draw draws. */
async function visibleState(f: SplatFrame): Promise<{ visible: number; instances: number; capacity: number }> {
  const words = await readBufferU32(gpu.device, f.projector.state!, VISIBLE_STATE.size / 4);
  const word = (name: string) => words[VISIBLE_STATE.word(name)]!;
  expect(word('draw_instance_count')).toBe(1);
  expect(word('draw_vertex_count') % QUAD_VERTICES).toBe(0);
  return { visible: word('visible'), instances: word('draw_vertex_count') / QUAD_VERTICES, capacity: word('capacity') };
}

function maxDifference(a: Uint8Array, b: Uint8Array): number {
  let max = 0;
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) {
      for (let c = 0; c < 3; c++) {
        const p = y * VIEW_BYTES_PER_ROW + 4 * x + c;
        max = Math.max(max, Math.abs(a[p]! - b[p]!));
      }
    }
  }
  return max;
}

function backgroundOnly(pixels: Uint8Array): boolean {
  for (let i = 0; i < WIDTH * HEIGHT; i++) {
    const p = Math.floor(i / WIDTH) * VIEW_BYTES_PER_ROW + 4 * (i % WIDTH);
    for (let c = 0; c < 3; c++) if (Math.abs(pixels[p + c]! - VIEW_BACKGROUND[c]! * 255) > 1) return false;
  }
  return true;
}

describe.each(cameras())('$name', ({ params }) => {
  test('the GPU keeps exactly the splats the rule keeps, and culling does not change the picture', async () => {
    frame.setScene(scene);
    unculled.setScene(scene);
    const culledPicture = await gpu.render(frame, params, gpuOrder);
    const state = await visibleState(frame);
    const cpuKept = cpuKeptDepths(cloud, params).filter((d) => d !== null).length;
    const fullPicture = await gpu.render(unculled, params, gpuOrder);
    const unculledState = await visibleState(unculled);
    console.log(`${state.visible} of ${cloud.count} splats kept (CPU rule: ${cpuKept}); without frustum culling ${unculledState.visible}`);
    expect(state.visible).toBe(cpuKept);
    expect(state.instances).toBe(state.visible);
    // The view must cull for the comparison to mean anything.
    expect(state.visible).toBeLessThan(0.9 * unculledState.visible);
    expect(backgroundOnly(culledPicture)).toBe(false);
    expect(maxDifference(culledPicture, fullPicture)).toBeLessThanOrEqual(1);
  });
});

test('the visible count is clamped to the capacity, and the draw with it', async () => {
  const { params } = cameras()[0]!;
  frame.setScene(scene);
  await gpu.render(frame, params, gpuOrder);
  const full = await visibleState(frame);
  expect(full.visible).toBeGreaterThan(200);
  frame.projector.setScene(scene, 100);
  try {
    const picture = await gpu.render(frame, params, gpuOrder);
    const clamped = await visibleState(frame);
    expect(clamped).toEqual({ visible: 100, instances: 100, capacity: 100 });
    expect(backgroundOnly(picture)).toBe(false);
  } finally {
    frame.projector.setScene(scene);
  }
});

test('a view where everything is culled draws the background, with every order', async () => {
  const centre = medianCentre(cloud);
  // Far outside the scene, looking away from it.
  const eye = vec3.add(vec3.create(), centre, vec3.fromValues(0, 0, 5000));
  const away = vec3.add(vec3.create(), eye, vec3.fromValues(0, 0, 1));
  const params = parametersOf(mat4.lookAt(mat4.create(), eye, away, [0, -1, 0]), eye);
  frame.setScene(scene);
  expect(backgroundOnly(await gpu.render(frame, params, gpuOrder))).toBe(true);
  expect(await visibleState(frame)).toMatchObject({ visible: 0, instances: 0 });
  expect(backgroundOnly(await gpu.render(frame, params, frame.frozen))).toBe(true);
  const uploaded = gpu.uploadedOrder();
  const keys = new Uint32Array(cloud.count);
  const values = new Uint32Array(cloud.count);
  computeDepthKeys(cloud.positions, cloud.count, params.view, 32, keys, values);
  new CpuRadixSort(cloud.count).sort(keys, values, cloud.count, 32);
  uploaded.upload(values, cloud.count);
  expect(backgroundOnly(await gpu.render(frame, params, uploaded))).toBe(true);
});

test('splats nearer than the near plane (view depth 0.2) are culled, and those just past it drawn', async () => {
  // Small splats on the view axis, one a depth, seen from the origin looking down −z.
  const depths = [0.05, 0.1, 0.15, 0.19, 0.21, 0.3, 0.5, 1];
  const near = madeScene(depths.map((d) => ({ position: [0, 0, -d], scale: [0.002, 0.002, 0.002], opacity: 0.9, colour: [1, 0.2, 0.1] })));
  const params = { ...parametersOf(mat4.create(), vec3.create()), splatCount: near.count, shDegree: 0 };
  const kept = cpuKeptDepths(near, params).filter((d) => d !== null).length;
  expect(kept, 'the CPU rule keeps the splats past 0.2').toBe(depths.filter((d) => d > 0.2).length);
  const nearScene = gpu.upload(near, 'projectorTest.near');
  try {
    frame.setScene(nearScene);
    const picture = await gpu.render(frame, params, gpuOrder);
    expect(await visibleState(frame)).toMatchObject({ visible: kept, instances: kept });
    expect(backgroundOnly(picture)).toBe(false);
  } finally {
    gpu.release(nearScene);
    frame.setScene(scene);
  }
});
