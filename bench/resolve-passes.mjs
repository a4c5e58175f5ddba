// What the last pass of a frame costs, by kind of pass: a full-window render pass copying a
// W×H rgba16float picture into the output (as the resolve did), the same with a storage buffer
// read (the tile picture's), with a picture never bound for storage, a flat colour, a flat colour
// over a loaded target, an empty loaded pass, one with an indirect draw of nothing, and a compute
// pass writing the same pixels (alone, and before such an empty pass: the tile resolve now).
// Medians of 30 timed passes after 30 untimed, each pass alone in its command buffer.
//
//   node bench/resolve-passes.mjs                      # on the GPU machine, after source .devkit/setup.sh
//   W=3840 H=2160 OUT_FORMAT=bgra8unorm node bench/resolve-passes.mjs
import { create, globals } from 'webgpu';
Object.assign(globalThis, globals);
const gpu = create(['disable-dawn-features=timestamp_quantization']);
const adapter = await gpu.requestAdapter();
const device = await adapter.requestDevice({ requiredFeatures: ['timestamp-query'] });
device.addEventListener('uncapturederror', (e) => console.error('GPU error', e.error.message));
const W = Number(process.env.W ?? 1920), H = Number(process.env.H ?? 1080);
const outFormat = process.env.OUT_FORMAT ?? 'rgba8unorm';
const tex = (format, usage) => device.createTexture({ size: [W, H], format, usage });
const U = GPUTextureUsage;
const pictureStorage = tex('rgba16float', U.STORAGE_BINDING | U.TEXTURE_BINDING);
const pictureCopied = tex('rgba16float', U.TEXTURE_BINDING | U.COPY_DST | U.RENDER_ATTACHMENT);
const out = tex(outFormat, U.RENDER_ATTACHMENT | U.COPY_SRC);
const outStorage = tex('rgba8unorm', U.STORAGE_BINDING);
const outBoth = tex(outFormat, U.STORAGE_BINDING | U.RENDER_ATTACHMENT | U.COPY_SRC);
const indirect = device.createBuffer({ size: 16, usage: GPUBufferUsage.INDIRECT | GPUBufferUsage.COPY_DST });
device.queue.writeBuffer(indirect, 0, new Uint32Array([0, 1, 0, 0]));
const words = device.createBuffer({ size: 1024, usage: GPUBufferUsage.STORAGE });
const fill = device.createShaderModule({ code: `
@group(0) @binding(0) var pic: texture_storage_2d<rgba16float, write>;
@compute @workgroup_size(8, 8) fn main(@builtin(global_invocation_id) g: vec3<u32>) {
  if (g.x < ${W}u && g.y < ${H}u) { textureStore(pic, g.xy, vec4<f32>(f32(g.x) / ${W}.0, f32(g.y) / ${H}.0, 0.5, 1.0)); }
}` });
const fillPipe = device.createComputePipeline({ layout: 'auto', compute: { module: fill, entryPoint: 'main' } });
const fs = device.createShaderModule({ code: `
@group(0) @binding(0) var picture: texture_2d<f32>;
@group(0) @binding(1) var<storage, read> tile_words: array<u32>;
@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
  let p = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
  return vec4<f32>(p * 2.0 - 1.0, 0.0, 1.0);
}
@fragment fn plain(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
  return vec4<f32>(textureLoad(picture, vec2<i32>(p.xy), 0).rgb, 1.0);
}
@fragment fn words(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
  if (tile_words[3] > tile_words[4]) { discard; }
  return vec4<f32>(textureLoad(picture, vec2<i32>(p.xy), 0).rgb, 1.0);
}
@fragment fn flat(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
  return vec4<f32>(0.2, 0.3, 0.4, 1.0);
}` });
const cs = device.createShaderModule({ code: `
@group(0) @binding(0) var picture: texture_2d<f32>;
@group(0) @binding(1) var outp: texture_storage_2d<rgba8unorm, write>;
@compute @workgroup_size(8, 8) fn main(@builtin(global_invocation_id) g: vec3<u32>) {
  if (g.x < ${W}u && g.y < ${H}u) { textureStore(outp, g.xy, vec4<f32>(textureLoad(picture, g.xy, 0).rgb, 1.0)); }
}` });
const layout = device.createBindGroupLayout({ entries: [
  { binding: 0, visibility: GPUShaderStage.FRAGMENT, texture: { sampleType: 'unfilterable-float' } },
  { binding: 1, visibility: GPUShaderStage.FRAGMENT, buffer: { type: 'read-only-storage' } },
] });
const pl = device.createPipelineLayout({ bindGroupLayouts: [layout] });
const pipe = (entryPoint) => device.createRenderPipeline({ layout: pl, vertex: { module: fs, entryPoint: 'vs' }, fragment: { module: fs, entryPoint, targets: [{ format: outFormat }] }, primitive: { topology: 'triangle-list' } });
const pipes = { plain: pipe('plain'), words: pipe('words'), flat: pipe('flat') };
const group = (picture) => device.createBindGroup({ layout, entries: [{ binding: 0, resource: picture.createView() }, { binding: 1, resource: { buffer: words } }] });
const gStorage = group(pictureStorage), gCopied = group(pictureCopied);
const csPipe = device.createComputePipeline({ layout: 'auto', compute: { module: cs, entryPoint: 'main' } });
const csGroup = device.createBindGroup({ layout: csPipe.getBindGroupLayout(0), entries: [{ binding: 0, resource: pictureStorage.createView() }, { binding: 1, resource: outStorage.createView() }] });
const csGroup2 = device.createBindGroup({ layout: csPipe.getBindGroupLayout(0), entries: [{ binding: 0, resource: pictureStorage.createView() }, { binding: 1, resource: outBoth.createView() }] });
const fillGroup = device.createBindGroup({ layout: fillPipe.getBindGroupLayout(0), entries: [{ binding: 0, resource: pictureStorage.createView() }] });
const qs = device.createQuerySet({ type: 'timestamp', count: 2 });
const res = device.createBuffer({ size: 16, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
const rd = device.createBuffer({ size: 16, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
const tw = { querySet: qs, beginningOfPassWriteIndex: 0, endOfPassWriteIndex: 1 };
async function time(record) {
  const e = device.createCommandEncoder();
  // The picture written by compute first, as the tile raster does.
  const f = e.beginComputePass(); f.setPipeline(fillPipe); f.setBindGroup(0, fillGroup); f.dispatchWorkgroups(Math.ceil(W / 8), Math.ceil(H / 8)); f.end();
  record(e);
  e.resolveQuerySet(qs, 0, 2, res, 0); e.copyBufferToBuffer(res, 0, rd, 0, 16);
  device.queue.submit([e.finish()]);
  await rd.mapAsync(GPUMapMode.READ); const t = new BigInt64Array(rd.getMappedRange()); const ms = Number(t[1] - t[0]) / 1e6; rd.unmap(); return ms;
}
const renderPass = (e, p, g, loadOp = 'clear') => { const r = e.beginRenderPass({ colorAttachments: [{ view: out.createView(), loadOp, storeOp: 'store', clearValue: [0, 0, 0, 1] }], timestampWrites: tw }); r.setPipeline(p); r.setBindGroup(0, g); r.draw(3); return r; };
const variants = {
  'fragment, picture written by compute': (e) => renderPass(e, pipes.plain, gStorage).end(),
  'fragment + storage words (fs_tile_picture)': (e) => renderPass(e, pipes.words, gStorage).end(),
  'fragment, picture never a storage texture': (e) => renderPass(e, pipes.plain, gCopied).end(),
  'flat colour, no texture': (e) => renderPass(e, pipes.flat, gStorage).end(),
  'flat colour, loadOp load': (e) => renderPass(e, pipes.flat, gStorage, 'load').end(),
  'render pass, loadOp load, no draw': (e) => e.beginRenderPass({ colorAttachments: [{ view: out.createView(), loadOp: 'load', storeOp: 'store' }], timestampWrites: tw }).end(),
  'render pass, loadOp load, drawIndirect of 0 vertices': (e) => { const r = e.beginRenderPass({ colorAttachments: [{ view: out.createView(), loadOp: 'load', storeOp: 'store' }], timestampWrites: tw }); r.setPipeline(pipes.flat); r.setBindGroup(0, gStorage); r.drawIndirect(indirect, 0); r.end(); },
  'compute copy, then load pass with drawIndirect of 0': (e) => { const c = e.beginComputePass({ timestampWrites: { querySet: qs, beginningOfPassWriteIndex: 0 } }); c.setPipeline(csPipe); c.setBindGroup(0, csGroup2); c.dispatchWorkgroups(Math.ceil(W / 8), Math.ceil(H / 8)); c.end(); const r = e.beginRenderPass({ colorAttachments: [{ view: outBoth.createView(), loadOp: 'load', storeOp: 'store' }], timestampWrites: { querySet: qs, endOfPassWriteIndex: 1 } }); r.setPipeline(pipes.flat); r.setBindGroup(0, gStorage); r.drawIndirect(indirect, 0); r.end(); },
  'compute copy into an rgba8 storage texture': (e) => { const c = e.beginComputePass({ timestampWrites: tw }); c.setPipeline(csPipe); c.setBindGroup(0, csGroup); c.dispatchWorkgroups(Math.ceil(W / 8), Math.ceil(H / 8)); c.end(); },
};
console.log(JSON.stringify({ adapter: adapter.info.description, W, H, outFormat }));
for (const [name, record] of Object.entries(variants)) {
  for (let i = 0; i < 30; i++) await time(record);
  const xs = []; for (let i = 0; i < 30; i++) xs.push(await time(record));
  xs.sort((a, b) => a - b);
  console.log(`${name}: median ${xs[15].toFixed(4)} ms, min ${xs[0].toFixed(4)}`);
}
