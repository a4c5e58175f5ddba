/**
 * The engine entry (src/lib/engine.ts) as another renderer uses it: the
 * test draws its own meshes into its own colour and depth textures, then
 * asks the splats to draw over them. A mesh in front of the splats stays
 * as the test drew it; a mesh behind them and the bare background are
 * covered; without the depth texture the near mesh is covered too (what
 * the depth test is for). Over a bare background the picture is the
 * viewer's own frame of the same scene. Reversed depth works with
 * 'greater'. Loads read
 * files, refuse broken ones keeping the scene, and the later of two loads
 * wins.
 */
import { describe, expect, test } from 'vitest';
import { mat4, vec4 } from 'gl-matrix';
import { useGpu, madeScene } from '../support/gpu-fixture';
import { readTextureRgba } from '../../src/gpu/readback';
import { createSplatRenderer, type SplatCamera, type SplatRenderer } from '../../src/lib/engine';
import { writeInriaPly } from '../../src/io/writers/inria-ply';
import type { FrameParameters } from '../../src/render/frame-uniforms';

const gpu = useGpu('engine entry');
const WIDTH = 64;
const HEIGHT = 48;
const FORMAT: GPUTextureFormat = 'rgba8unorm';
const DEPTH_FORMAT: GPUTextureFormat = 'depth24plus';
const BACKGROUND = [0.2, 0.2, 0.2] as const;
const NEAR_COLOUR = [0, 0, 1] as const;
const FAR_COLOUR = [0, 1, 0] as const;

/** Red splats across the middle of the view, at the world's origin plane. */
const SCENE = madeScene([-1.6, -0.8, 0, 0.8, 1.6].map((x) => ({ position: [x, 0, 0] as const, scale: [0.6, 0.6, 0.6] as const, opacity: 0.95, colour: [1, 0, 0] as const })));
const EYE = [0, 0, 5] as const;

/** The camera: 5 units from the splats, 60° field of view, depth 0..1 (or reversed: 1 near, 0 far). */
function cameraOf(reversed = false): SplatCamera {
  const view = mat4.lookAt(mat4.create(), EYE, [0, 0, 0], [0, 1, 0]);
  const projection = mat4.perspectiveZO(mat4.create(), Math.PI / 3, WIDTH / HEIGHT, 0.5, 50);
  if (reversed) {
    // z' = w - z: the near plane at depth 1, the far at 0.
    const flip = mat4.fromValues(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, -1, 0, 0, 0, 1, 1);
    mat4.multiply(projection, flip, projection);
  }
  return { view, projection };
}

/** Two meshes: a rectangle in front of the splats on the left (view depth 2) and one behind them on the right (view depth 8). */
const MESHES = [
  { colour: NEAR_COLOUR, z: 3, x: [-1.4, -0.4] },
  { colour: FAR_COLOUR, z: -3, x: [0.4, 1.4] },
] as const;

/** The pixel a world point falls on. */
function pixelOf(camera: SplatCamera, point: readonly [number, number, number]): [number, number] {
  const clip = vec4.transformMat4(vec4.create(), vec4.transformMat4(vec4.create(), [...point, 1], camera.view as mat4), camera.projection as mat4);
  return [Math.floor(((clip[0] / clip[3] + 1) / 2) * WIDTH), Math.floor(((1 - clip[1] / clip[3]) / 2) * HEIGHT)];
}

const MESH_SHADER = /* wgsl */ `
struct Out { @builtin(position) position: vec4<f32>, @location(0) colour: vec3<f32> }
@vertex fn vs(@location(0) position: vec4<f32>, @location(1) colour: vec3<f32>) -> Out { return Out(position, colour); }
@fragment fn fs(in: Out) -> @location(0) vec4<f32> { return vec4<f32>(in.colour, 1.0); }
`;

interface Frame {
  colour: GPUTexture;
  depth: GPUTexture;
}

/** The test's own pass: the background and both meshes, with depth (cleared to the far end: 1, or 0 reversed). */
function drawMeshes(device: GPUDevice, camera: SplatCamera, reversed: boolean): Frame {
  const colour = gpu.own(device.createTexture({ size: [WIDTH, HEIGHT], format: FORMAT, usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC }));
  const depth = gpu.own(device.createTexture({ size: [WIDTH, HEIGHT], format: DEPTH_FORMAT, usage: GPUTextureUsage.RENDER_ATTACHMENT }));
  const vertices: number[] = [];
  const clipMatrix = mat4.multiply(mat4.create(), camera.projection as mat4, camera.view as mat4);
  for (const mesh of MESHES) {
    const [x0, x1] = mesh.x;
    for (const [x, y] of [[x0, -0.5], [x1, -0.5], [x0, 0.5], [x1, -0.5], [x1, 0.5], [x0, 0.5]] as const) {
      const clip = vec4.transformMat4(vec4.create(), [x, y, mesh.z, 1], clipMatrix);
      vertices.push(...clip, ...mesh.colour);
    }
  }
  const buffer = gpu.own(device.createBuffer({ size: vertices.length * 4, usage: GPUBufferUsage.VERTEX | GPUBufferUsage.COPY_DST }));
  device.queue.writeBuffer(buffer, 0, new Float32Array(vertices));
  const module = device.createShaderModule({ code: MESH_SHADER });
  const pipeline = device.createRenderPipeline({
    layout: 'auto',
    vertex: { module, entryPoint: 'vs', buffers: [{ arrayStride: 28, attributes: [{ shaderLocation: 0, offset: 0, format: 'float32x4' }, { shaderLocation: 1, offset: 16, format: 'float32x3' }] }] },
    fragment: { module, entryPoint: 'fs', targets: [{ format: FORMAT }] },
    depthStencil: { format: DEPTH_FORMAT, depthWriteEnabled: true, depthCompare: reversed ? 'greater' : 'less' },
  });
  const encoder = device.createCommandEncoder();
  const pass = encoder.beginRenderPass({
    colorAttachments: [{ view: colour.createView(), loadOp: 'clear', storeOp: 'store', clearValue: [...BACKGROUND, 1] }],
    depthStencilAttachment: { view: depth.createView(), depthLoadOp: 'clear', depthStoreOp: 'store', depthClearValue: reversed ? 0 : 1 },
  });
  pass.setPipeline(pipeline);
  pass.setVertexBuffer(0, buffer);
  pass.draw(vertices.length / 7);
  pass.end();
  device.queue.submit([encoder.finish()]);
  return { colour, depth };
}

/** The picture's RGB at a pixel, 0..255. */
function rgbAt(picture: Uint8Array, [x, y]: [number, number]): [number, number, number] {
  const i = 4 * (y * WIDTH + x);
  return [picture[i]!, picture[i + 1]!, picture[i + 2]!];
}

const level = (c: readonly number[]) => c.map((v) => Math.round(v * 255));

async function drawOver(splats: SplatRenderer, options: { reversed?: boolean; withDepth?: boolean } = {}): Promise<Uint8Array> {
  const device = gpu.device;
  const camera = cameraOf(options.reversed);
  const frame = drawMeshes(device, camera, options.reversed ?? false);
  splats.render({ color: frame.colour.createView(), depth: options.withDepth === false ? undefined : frame.depth.createView(), width: WIDTH, height: HEIGHT }, camera);
  return readTextureRgba(device, frame.colour);
}

async function splatRenderer(depthCompare?: 'less' | 'greater', depth = true): Promise<SplatRenderer> {
  const splats = await createSplatRenderer(gpu.device, { format: FORMAT, depthFormat: depth ? DEPTH_FORMAT : undefined, depthCompare });
  gpu.own(splats);
  await splats.load(writeInriaPly(SCENE), { name: 'red.ply' });
  return splats;
}

const camera = cameraOf();
const nearPixel = pixelOf(camera, [-0.9, 0, 3]);
const farPixel = pixelOf(camera, [0.9, 0, -3]);
/** Above the meshes, on the splats' row: the bare background under the splats. */
const barePixel = pixelOf(camera, [0, 0.55, 0]);

function isReddened(rgb: readonly number[], under: readonly number[]): boolean {
  return rgb[0]! > under[0]! + 60;
}

describe('splats drawn into another renderer\'s frame', () => {
  test('a mesh in front hides the splats; a mesh behind and the background are covered', async () => {
    const splats = await splatRenderer();
    expect(splats.scene).toMatchObject({ splats: 5, shDegree: 0 });
    const picture = await drawOver(splats);
    expect(rgbAt(picture, nearPixel)).toEqual(level(NEAR_COLOUR));
    expect(isReddened(rgbAt(picture, farPixel), level(FAR_COLOUR)), `far mesh ${rgbAt(picture, farPixel)}`).toBe(true);
    expect(isReddened(rgbAt(picture, barePixel), level(BACKGROUND)), `background ${rgbAt(picture, barePixel)}`).toBe(true);
  }, 120_000);

  test('without the depth texture the splats cover the near mesh too', async () => {
    const splats = await splatRenderer(undefined, false);
    const picture = await drawOver(splats, { withDepth: false });
    expect(isReddened(rgbAt(picture, nearPixel), level(NEAR_COLOUR)), `near mesh ${rgbAt(picture, nearPixel)}`).toBe(true);
    // A renderer made without a depth format is not given one.
    expect(() => splats.render({ color: drawMeshes(gpu.device, camera, false).colour.createView(), depth: gpu.own(gpu.device.createTexture({ size: [WIDTH, HEIGHT], format: DEPTH_FORMAT, usage: GPUTextureUsage.RENDER_ATTACHMENT })).createView(), width: WIDTH, height: HEIGHT }, camera)).toThrow(/made without depthFormat/);
  }, 120_000);

  test("over a bare background the picture is the viewer's own frame of the scene, within a level", async () => {
    const splats = await splatRenderer();
    const device = gpu.device;
    const colour = gpu.own(device.createTexture({ size: [WIDTH, HEIGHT], format: FORMAT, usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC }));
    const encoder = device.createCommandEncoder();
    encoder.beginRenderPass({ colorAttachments: [{ view: colour.createView(), loadOp: 'clear', storeOp: 'store', clearValue: [...BACKGROUND, 1] }] }).end();
    device.queue.submit([encoder.finish()]);
    splats.render({ color: colour.createView(), width: WIDTH, height: HEIGHT }, camera);
    const over = await readTextureRgba(device, colour);
    const params: FrameParameters = {
      view: camera.view as mat4, projection: camera.projection as mat4, eye: [...EYE], fovY: Math.PI / 3, width: WIDTH, height: HEIGHT,
      splatCount: SCENE.count, shDegree: 0, splatScale: 1, keyBits: 32,
    };
    const frame = await gpu.frame();
    frame.setScene(gpu.upload(SCENE, 'engine entry scene'));
    const own = await gpu.render(frame, params, await gpu.gpuOrder(), { background: BACKGROUND });
    let largest = 0;
    for (let i = 0; i < over.length; i++) if (i % 4 !== 3) largest = Math.max(largest, Math.abs(over[i]! - own[i]!));
    expect(largest).toBeLessThanOrEqual(1);
    expect(isReddened(rgbAt(over, barePixel), level(BACKGROUND))).toBe(true);
  }, 120_000);

  test("reversed depth ('greater') hides and covers the same pixels", async () => {
    const splats = await splatRenderer('greater');
    const picture = await drawOver(splats, { reversed: true });
    expect(rgbAt(picture, nearPixel)).toEqual(level(NEAR_COLOUR));
    expect(isReddened(rgbAt(picture, farPixel), level(FAR_COLOUR))).toBe(true);
  }, 120_000);
});

describe('the engine entry\'s scenes and cameras', () => {
  test('a broken file is refused with what is wrong, and the scene drawn stays', async () => {
    const splats = await splatRenderer();
    await expect(splats.load(new Uint8Array([1, 2, 3, 4]), { name: 'broken.ply' })).rejects.toThrow(/ply|format|header/i);
    expect(splats.scene?.splats).toBe(5);
    const picture = await drawOver(splats);
    expect(isReddened(rgbAt(picture, barePixel), level(BACKGROUND))).toBe(true);
  }, 120_000);

  test('of two loads the later is drawn, and the earlier rejects as aborted', async () => {
    const splats = await splatRenderer();
    const two = madeScene([{ position: [0, 0, 0], scale: [0.5, 0.5, 0.5], opacity: 0.9, colour: [0, 0, 1] }, { position: [1, 0, 0], scale: [0.5, 0.5, 0.5], opacity: 0.9, colour: [0, 0, 1] }]);
    const first = splats.load(writeInriaPly(SCENE), { name: 'first.ply' });
    const second = splats.load(writeInriaPly(two), { name: 'second.ply' });
    await expect(first).rejects.toMatchObject({ name: 'AbortError' });
    await expect(second).resolves.toMatchObject({ splats: 2 });
    expect(splats.scene?.splats).toBe(2);
  }, 120_000);

  test('a camera it cannot draw, or a destroyed renderer, is refused', async () => {
    const splats = await splatRenderer();
    const target = { color: drawMeshes(gpu.device, camera, false).colour.createView(), width: WIDTH, height: HEIGHT };
    const ortho = mat4.orthoZO(mat4.create(), -3, 3, -2, 2, 0.5, 50);
    expect(() => splats.render(target, { view: camera.view, projection: ortho })).toThrow(/not a perspective/);
    expect(() => splats.render(target, { view: camera.view, projection: [1, 2, 3] })).toThrow(/3 numbers, not 16/);
    splats.destroy();
    expect(() => splats.render(target, camera)).toThrow(/destroyed/);
    await expect(splats.load(writeInriaPly(SCENE))).rejects.toThrow(/destroyed/);
  }, 120_000);
});
