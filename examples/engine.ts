/**
 * Splats in a page that owns its WebGPU device and passes, as another
 * engine would use them (`splatsort/engine`): the page draws its own
 * triangle with depth, between the camera and the scene, then hands its
 * colour and depth textures to the splat renderer, which draws the scene
 * over the picture, hidden where the triangle is in front. The page keeps
 * what the browser tests read on `window.splatsortEngineExample`.
 */
import { mat4, vec3, vec4 } from 'gl-matrix';
import { createSplatRenderer } from 'splatsort/engine';
import type { EngineExample } from './example-state';

const TRIANGLE_COLOUR = [1, 0.5, 0] as const;
const BACKGROUND = { r: 0.063, g: 0.075, b: 0.094, a: 1 };
const DEPTH_FORMAT: GPUTextureFormat = 'depth24plus';
const example: EngineExample = (window.splatsortEngineExample = { frames: 0, splats: 0, error: null, trianglePixel: null });
const status = document.getElementById('status')!;
const canvas = document.getElementById('frame') as HTMLCanvasElement;

const TRIANGLE_SHADER = /* wgsl */ `
@group(0) @binding(0) var<uniform> clip_from_world: mat4x4<f32>;
@vertex fn vs(@location(0) position: vec3<f32>) -> @builtin(position) vec4<f32> {
  return clip_from_world * vec4<f32>(position, 1.0);
}
@fragment fn fs() -> @location(0) vec4<f32> {
  return vec4<f32>(${TRIANGLE_COLOUR.join(', ')}, 1.0);
}
`;

try {
  const adapter = await navigator.gpu?.requestAdapter();
  if (!adapter) throw new Error('this browser has no WebGPU adapter');
  const device = await adapter.requestDevice();
  const format = navigator.gpu.getPreferredCanvasFormat();
  const context = canvas.getContext('webgpu')!;
  context.configure({ device, format, alphaMode: 'opaque' });

  // The splats: drawn over the page's picture, tested against its depth.
  const splats = await createSplatRenderer(device, { format, depthFormat: DEPTH_FORMAT });
  const scene = await splats.load(new URL('default-scene.ply', location.href), { onProgress: (f) => (status.textContent = `Loading… ${Math.round(f * 100)} %`) });
  example.splats = scene.splats;

  // The camera: in front of the scene's box, looking at its middle; up is −y, as the scene's capture has it.
  const { min, max } = scene.bounds;
  const centre = vec3.fromValues((min[0] + max[0]) / 2, (min[1] + max[1]) / 2, (min[2] + max[2]) / 2);
  const radius = vec3.distance(min, max) / 2;
  const eye = vec3.fromValues(centre[0], centre[1], centre[2] - 2.2 * radius);
  const up = vec3.fromValues(0, -1, 0);
  const view = mat4.lookAt(mat4.create(), eye, centre, up);
  const projection = mat4.create();

  // The page's own triangle, halfway between the camera and the scene's middle, facing the camera.
  const mid = vec3.lerp(vec3.create(), eye, centre, 0.5);
  const size = 0.25 * radius;
  const right = vec3.fromValues(1, 0, 0);
  const corners = [[-1, 1], [1, 1], [0, -1]].map(([x, y]) => vec3.scaleAndAdd(vec3.create(), vec3.scaleAndAdd(vec3.create(), mid, right, x! * size), up, y! * size));
  const vertices = device.createBuffer({ size: 36, usage: GPUBufferUsage.VERTEX | GPUBufferUsage.COPY_DST });
  device.queue.writeBuffer(vertices, 0, new Float32Array(corners.flatMap((c) => [...c])));
  const uniforms = device.createBuffer({ size: 64, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
  const module = device.createShaderModule({ code: TRIANGLE_SHADER });
  const pipeline = device.createRenderPipeline({
    layout: 'auto',
    vertex: { module, entryPoint: 'vs', buffers: [{ arrayStride: 12, attributes: [{ shaderLocation: 0, offset: 0, format: 'float32x3' }] }] },
    fragment: { module, entryPoint: 'fs', targets: [{ format }] },
    primitive: { cullMode: 'none' },
    depthStencil: { format: DEPTH_FORMAT, depthWriteEnabled: true, depthCompare: 'less' },
  });
  const bindGroup = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: uniforms } }] });
  let depth: GPUTexture | null = null;

  /** Where a world point falls on the canvas, in CSS pixels. */
  const cssPixelOf = (point: vec3, clipFromWorld: mat4): [number, number] => {
    const clip = vec4.transformMat4(vec4.create(), [point[0], point[1], point[2], 1], clipFromWorld);
    return [((clip[0] / clip[3] + 1) / 2) * canvas.clientWidth, ((1 - clip[1] / clip[3]) / 2) * canvas.clientHeight];
  };

  const frame = () => {
    const width = Math.max(1, Math.round(canvas.clientWidth * devicePixelRatio));
    const height = Math.max(1, Math.round(canvas.clientHeight * devicePixelRatio));
    if (canvas.width !== width || canvas.height !== height || !depth) {
      canvas.width = width;
      canvas.height = height;
      depth?.destroy();
      depth = device.createTexture({ size: [width, height], format: DEPTH_FORMAT, usage: GPUTextureUsage.RENDER_ATTACHMENT });
    }
    mat4.perspectiveZO(projection, Math.PI / 4, width / height, radius / 100, radius * 100);
    const clipFromWorld = mat4.multiply(mat4.create(), projection, view);
    device.queue.writeBuffer(uniforms, 0, clipFromWorld as Float32Array<ArrayBuffer>);
    const color = context.getCurrentTexture().createView();
    const depthView = depth.createView();
    // The page's pass: its background and its triangle, with depth.
    const encoder = device.createCommandEncoder();
    const pass = encoder.beginRenderPass({
      colorAttachments: [{ view: color, loadOp: 'clear', storeOp: 'store', clearValue: BACKGROUND }],
      depthStencilAttachment: { view: depthView, depthLoadOp: 'clear', depthStoreOp: 'store', depthClearValue: 1 },
    });
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, bindGroup);
    pass.setVertexBuffer(0, vertices);
    pass.draw(3);
    pass.end();
    device.queue.submit([encoder.finish()]);
    // Then the splats, over it.
    splats.render({ color, depth: depthView, width, height }, { view, projection });
    example.trianglePixel = cssPixelOf(vec3.lerp(vec3.create(), vec3.lerp(vec3.create(), corners[0]!, corners[1]!, 0.5), corners[2]!, 1 / 3), clipFromWorld);
    example.frames++;
    status.textContent = `${scene.splats.toLocaleString('en-US')} splats behind the page's own triangle`;
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
} catch (error) {
  example.error = error instanceof Error ? error.message : String(error);
  status.textContent = example.error;
}
