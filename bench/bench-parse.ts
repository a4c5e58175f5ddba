/**
 * Parse-throughput benchmark under Node: splat files read from memory into
 * decoded arrays, by this viewer's loaders and by @playcanvas/splat-transform
 * in the same process, runs interleaved so both see the same machine state.
 * Prints one JSON line per file and reader:
 *   {"file", "bytes", "splats", "reader", "ms" (median), "min", "max", "runs", "mbPerS"}
 * and, with --table, a markdown table at the end.
 *
 *   npm run bench:parse -- --files A.ply,B.ply [--runs 9] [--table]
 *
 * Readers:
 * - splatsort-stream: what the viewer runs (loadSplatStream over 1 MiB
 *   chunks): header, rows decoded with activations applied (exp, sigmoid,
 *   quaternion normalisation), SH reordered, bounds computed.
 * - splatsort-buffer: the same decoder handed the whole file as one chunk.
 * - splat-transform: its readFile + materializeToDataTable, the documented
 *   way to get every column of a file decoded (raw stored values, no
 *   activations) from a MemoryReadFileSystem.
 * MB/s is file bytes (10^6) per second of median time. The loader runs
 * under the load limits of this machine's GPU, as the viewer's would.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { createChunkDataPool, materializeToDataTable, MemoryReadFileSystem, readFile } from '@playcanvas/splat-transform';
import { chunksOf } from '../src/io/source-bytes';
import { loadSplatStream } from '../src/io/splat-stream';
import { median } from '../src/sort/self-test';
import { nodeLoadLimits } from '../src/app/node-viewer';
import { commandLine } from './command-line';
import help from './bench-parse.ts?help';

const { values: args } = commandLine('bench-parse', help, {
  files: { type: 'string' },
  runs: { type: 'string', default: '9' },
  table: { type: 'boolean', default: false },
});
if (!args.files) throw new Error('--files A.ply[,B.ply] is required');
const files = args.files.split(',').map((f) => f.trim()).filter(Boolean);
const runs = Number(args.runs);
// What this machine's GPU could draw, as the viewer would allow it.
const limits = await nodeLoadLimits();

type Reader = (bytes: Uint8Array, name: string) => Promise<number>;

const READERS: Record<string, Reader> = {
  'splatsort-stream': async (bytes, name) =>
    (await loadSplatStream(chunksOf(bytes, 1 << 20), { name, totalBytes: bytes.length, limits })).count,
  'splatsort-buffer': async (bytes, name) =>
    (await loadSplatStream([bytes], { name, totalBytes: bytes.length, limits })).count,
  'splat-transform': async (bytes, name) => {
    const fileSystem = new MemoryReadFileSystem();
    fileSystem.set(name, bytes);
    const [source] = await readFile({ filename: name, inputFormat: 'ply', fileSystem });
    if (!source) throw new Error('splat-transform returned no source');
    const table = await materializeToDataTable(source, createChunkDataPool());
    source.close();
    return table.numRows;
  },
};

const collect = (globalThis as { gc?: () => void }).gc;
const rows: Record<string, unknown>[] = [];

for (const file of files) {
  const bytes = new Uint8Array(readFileSync(file));
  const name = basename(file);
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(READERS).map((r) => [r, []]));
  const splats: Record<string, number> = {};
  // One untimed run each, then interleaved timed runs.
  for (const [reader, read] of Object.entries(READERS)) splats[reader] = await read(bytes, name);
  for (let run = 0; run < runs; run++) {
    for (const [reader, read] of Object.entries(READERS)) {
      collect?.();
      const start = performance.now();
      await read(bytes, name);
      times[reader]!.push(performance.now() - start);
    }
  }
  for (const reader of Object.keys(READERS)) {
    const t = times[reader]!;
    const ms = median(t);
    const row = {
      file: name, bytes: bytes.length, splats: splats[reader], reader,
      ms: round(ms), min: round(Math.min(...t)), max: round(Math.max(...t)), runs: t.length,
      mbPerS: round(bytes.length / 1e6 / (ms / 1000)),
    };
    rows.push(row);
    console.log(JSON.stringify(row));
  }
}

if (args.table) {
  console.log('\n| file | MB | splats | Splatsort (stream) | Splatsort (one buffer) | splat-transform | stream / splat-transform |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const file of files.map((f) => basename(f))) {
    const get = (reader: string) => rows.find((r) => r.file === file && r.reader === reader)!;
    const stream = get('splatsort-stream'), buffer = get('splatsort-buffer'), other = get('splat-transform');
    const cell = (r: Record<string, unknown>) => `${r.ms} ms (${r.mbPerS} MB/s)`;
    console.log(
      `| ${file} | ${((stream.bytes as number) / 1e6).toFixed(1)} | ${(stream.splats as number).toLocaleString('en-US')} | ` +
      `${cell(stream)} | ${cell(buffer)} | ${cell(other)} | ${((stream.mbPerS as number) / (other.mbPerS as number)).toFixed(2)}× |`,
    );
  }
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}
