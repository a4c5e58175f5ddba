/**
 * What recording a compute dispatch costs the thread that records it, in
 * Node's WebGPU (Dawn, in this thread), direct against indirect. A frame's
 * recording in the world benchmark spends much of its time in a few steps
 * with an indirect dispatch (the tile binning's, the ranges'), and Dawn
 * records more for an indirect dispatch than for a direct one: its check
 * of the workgroup counts in the buffer, which only the GPU can read,
 * goes with it. In a page, Chromium records in its
 * GPU process and the page's thread only sends the calls: this measures
 * the Node benchmark's share, not a page's. Per round: --frames encoders,
 * each a compute pass of --dispatches dispatches (setPipeline,
 * setBindGroup, dispatch), finished and submitted; the mean µs a dispatch
 * of the recording (encoder to finish, not the submit), direct then
 * indirect, in turn, --rounds times (the first not counted: the JIT's and
 * Dawn's caches). Prints the median over the rounds, and its JSON.
 *
 *   npm run bench:build && node bench-dist/dispatch-cost.mjs [--frames 200] [--dispatches 10] [--rounds 5]
 */
import { createNodeGpuContext } from '../src/gpu/node-gpu';
import { wholeNumber } from './bench-options';
import { commandLine } from './command-line';
import help from './dispatch-cost.ts?help';

const { values: args } = commandLine('dispatch-cost', help, {
  frames: { type: 'string', default: '200' },
  dispatches: { type: 'string', default: '10' },
  rounds: { type: 'string', default: '5' },
});
const frames = wholeNumber('frames', args.frames, 1);
const dispatches = wholeNumber('dispatches', args.dispatches, 1);
const rounds = wholeNumber('rounds', args.rounds, 2);

const { device, adapterName } = await createNodeGpuContext('dispatch-cost');
const module = device.createShaderModule({
  code: '@group(0) @binding(0) var<storage, read_write> b: array<u32>;\n@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3u) { if (id.x < arrayLength(&b)) { b[id.x] += 1u; } }',
});
const pipeline = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' } });
const data = device.createBuffer({ size: 4096, usage: GPUBufferUsage.STORAGE });
const indirectArgs = device.createBuffer({ size: 12, usage: GPUBufferUsage.INDIRECT | GPUBufferUsage.COPY_DST });
device.queue.writeBuffer(indirectArgs, 0, new Uint32Array([1, 1, 1]));
const group = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: data } }] });

/** The mean µs a dispatch of the recording, over `frames` encoders. */
async function recordingUs(indirect: boolean): Promise<number> {
  let ms = 0;
  for (let f = 0; f < frames; f++) {
    const start = performance.now();
    const encoder = device.createCommandEncoder();
    const pass = encoder.beginComputePass();
    for (let k = 0; k < dispatches; k++) {
      pass.setPipeline(pipeline);
      pass.setBindGroup(0, group);
      if (indirect) pass.dispatchWorkgroupsIndirect(indirectArgs, 0);
      else pass.dispatchWorkgroups(1);
    }
    pass.end();
    const commands = encoder.finish();
    ms += performance.now() - start;
    device.queue.submit([commands]);
    // A few frames in flight at most, as a frame loop keeps.
    if (f % 4 === 3) await device.queue.onSubmittedWorkDone();
  }
  await device.queue.onSubmittedWorkDone();
  return (1000 * ms) / (frames * dispatches);
}

const direct: number[] = [];
const indirect: number[] = [];
for (let round = 0; round < rounds; round++) {
  const d = await recordingUs(false);
  const i = await recordingUs(true);
  if (round === 0) continue;
  direct.push(d);
  indirect.push(i);
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const line = { adapter: adapterName, frames, dispatches, rounds: rounds - 1, directUs: Math.round(10 * median(direct)) / 10, indirectUs: Math.round(10 * median(indirect)) / 10 };
console.log(`recording a dispatch (with its pipeline and bind group): direct ${line.directUs} µs, indirect ${line.indirectUs} µs (${line.adapter})`);
console.log(JSON.stringify(line));
device.destroy();
