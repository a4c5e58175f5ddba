/**
 * A scene bigger than 2 GB, end to end under Node: an INRIA PLY of N splats
 * (default 9M, 248 B/splat with SH degree 3: 2.2 GB) is generated as a
 * stream of chunks, never as a file or one buffer, by tiling the default
 * scene (data/default-scene.ply) on a grid; the Viewer opens it as the
 * page does (its streaming loader decodes it while it "arrives", under the
 * load limits of this device's real buffer sizes), the scene is uploaded in
 * as many GPU buffers as the device's binding limit needs, and one frame is
 * rendered with the viewer's passes and written as a PNG. Prints one JSON
 * line:
 *   {splats, fileBytes, parseMs, parseMBps, uploadMs, chunks, splatsPerChunk,
 *    projectMs, sortMs, renderMs, litPixels, adapter, limits}
 *
 *   node bench-dist/big-scene.mjs [--splats 9000000] [--out picture.png]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parsePlyHeader } from '../src/io/ply/parse';
import { loadSplatStream } from '../src/io/splat-stream';
import { createNodeViewer } from '../src/app/node-viewer';
import type { CameraFile } from '../src/app/camera/camera-file';
import { encodePng } from '../cli/png';
import { commandLine } from './command-line';
import help from './big-scene.ts?help';

const { values: args } = commandLine('big-scene', help, {
  splats: { type: 'string', default: '9000000' },
  tile: { type: 'string', default: 'data/default-scene.ply' },
  out: { type: 'string' },
  width: { type: 'string', default: '1920' },
  height: { type: 'string', default: '1080' },
});
const total = Number(args.splats);

// The tile: its header and rows; x and z are shifted per copy.
const tileBytes = new Uint8Array(readFileSync(args.tile));
const tileHeader = parsePlyHeader(tileBytes);
const vertex = tileHeader.elements.find((e) => e.name === 'vertex')!;
const rowSize = vertex.rowSize!;
const tileRows = tileBytes.subarray(tileHeader.headerLength, tileHeader.headerLength + vertex.count * rowSize);
const offsetOf = (name: string) => {
  const p = vertex.properties.find((q) => q.name === name);
  if (!p || p.kind !== 'scalar' || p.type !== 'float32') throw new Error(`tile has no float32 ${name}`);
  return p.offset;
};
const xAt = offsetOf('x'), zAt = offsetOf('z');
const headerText = new TextDecoder().decode(tileBytes.subarray(0, tileHeader.headerLength))
  .replace(/element vertex \d+/, `element vertex ${total}`);
const header = new TextEncoder().encode(headerText);
const fileBytes = header.length + total * rowSize;
const copies = Math.ceil(total / vertex.count);
const side = Math.ceil(Math.sqrt(copies));
const spacing = 1.2; // the default scene is about one unit across

/** The file, as chunks of one tile each (9 MB), generated as they are consumed. */
function* generate(): Generator<Uint8Array> {
  yield header;
  const block = new Uint8Array(tileRows.length);
  const view = new DataView(block.buffer);
  for (let copy = 0, left = total; left > 0; copy++) {
    block.set(tileRows);
    const dx = ((copy % side) - (side - 1) / 2) * spacing, dz = (Math.floor(copy / side) - (side - 1) / 2) * spacing;
    const rows = Math.min(left, vertex.count);
    for (let r = 0; r < rows; r++) {
      const at = r * rowSize;
      view.setFloat32(at + xAt, view.getFloat32(at + xAt, true) + dx, true);
      view.setFloat32(at + zAt, view.getFloat32(at + zAt, true) + dz, true);
    }
    left -= rows;
    yield block.subarray(0, rows * rowSize);
  }
}

// The Viewer's own load, with a loader that hands it the generated stream.
let parseMs = 0;
const { viewer, gpu, destroy } = await createNodeViewer<number>('big-scene', {
  load: async (_splats, options) => {
    const started = performance.now();
    const cloud = await loadSplatStream(generate(), { name: 'big.ply', totalBytes: fileBytes, limits: options.limits, signal: options.signal });
    parseMs = performance.now() - started;
    return { cloud, warnings: [], bytes: fileBytes };
  },
});
const openStart = performance.now();
if ((await viewer.open(total, { name: 'big.ply' })) !== 'opened') throw new Error(viewer.state.lastError ?? 'the scene did not open');
await gpu.device.queue.onSubmittedWorkDone();
const uploadMs = performance.now() - openStart - parseMs;
const scene = viewer.core.gpuScene!;

const width = Number(args.width), height = Number(args.height);
const extent = side * spacing;
const camera: CameraFile = {
  width, height, fovy_deg: 50,
  eye: [0, extent * 0.5, extent * 0.8], target: [0, 0, 0], up: [0, 1, 0],
  background: [0, 0, 0], sh_degree: 3,
};
viewer.settings.keyBits = 32;
// First frame compiles and warms up; the second is the one timed.
await viewer.render(camera);
const picture = await viewer.render(camera);
let litPixels = 0;
for (let i = 0; i < picture.rgba.length; i += 4) {
  if (picture.rgba[i]! + picture.rgba[i + 1]! + picture.rgba[i + 2]! > 0) litPixels++;
}
if (args.out) writeFileSync(args.out, encodePng(picture.width, picture.height, picture.rgba));
console.log(JSON.stringify({
  splats: scene.count,
  fileBytes,
  parseMs: Math.round(parseMs),
  parseMBps: Math.round(fileBytes / 1e6 / (parseMs / 1000)),
  uploadMs: Math.round(uploadMs),
  chunks: scene.layout.chunks.length,
  splatsPerChunk: scene.layout.chunkSplats,
  projectMs: picture.timings.project,
  sortMs: picture.timings.sort,
  renderMs: picture.timings.render,
  litPixels,
  adapter: gpu.adapterName,
  limits: {
    maxStorageBufferBindingSize: gpu.device.limits.maxStorageBufferBindingSize,
    maxBufferSize: gpu.device.limits.maxBufferSize,
    maxSplatsBySh: viewer.limits.maxSplats,
  },
}));
destroy();
