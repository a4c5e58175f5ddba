/**
 * Runs a Node script (a benchmark) and reports what its main thread
 * allocates on the JavaScript heap: V8's sampling heap profiler (the
 * inspector's, in this thread) samples about one allocation in every
 * --interval bytes (default 2048), whether the object lives or is
 * collected, from the moment the script prints a JSON line of kind --from
 * (default 'first': the world benchmark's first picture, so that its path
 * is what is measured; 'none' starts at once) until the process exits.
 *
 *   node scripts/heap-allocations.mjs [--from first] [--interval 2048] [--out run.heapprofile] <script.mjs> [its arguments…]
 *
 * The script's stdout passes through. At exit, one JSON line on stderr:
 * {kind: 'allocations', from, seconds, sampledMB, top: [{at, MB}]}, `at`
 * the allocating function and its file and line (bundled names where the
 * script is a bundle), the 20 largest; --out also writes the whole
 * profile (Chrome's DevTools read it).
 */
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { allocationsByFunction } from './heap-profile-summary.mjs';

const args = process.argv.slice(2);
const options = { from: 'first', interval: '2048', out: '' };
while (args[0]?.startsWith('--')) {
  const name = args.shift().slice(2);
  if (!(name in options) || args.length === 0) throw new Error(`heap-allocations: unknown option or missing value: --${name}`);
  options[name] = args.shift();
}
const interval = Number(options.interval);
if (!(interval >= 1)) throw new Error(`--interval takes bytes (≥ 1), got ${options.interval}`);
const script = args.shift();
if (!script) throw new Error('usage: node scripts/heap-allocations.mjs [--from first] [--interval 2048] [--out FILE] <script.mjs> [arguments…]');

const session = new Session();
session.connect();
let startedAt = null;
const start = () => {
  if (startedAt !== null) return;
  startedAt = performance.now();
  session.post('HeapProfiler.startSampling', { samplingInterval: interval, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
};
if (options.from === 'none') start();
else {
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = (chunk, ...rest) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
    if (text.includes(`"kind":"${options.from}"`)) start();
    return write(chunk, ...rest);
  };
}

process.on('exit', () => {
  if (startedAt === null) {
    process.stderr.write(`${JSON.stringify({ kind: 'allocations', from: options.from, error: `no JSON line of kind '${options.from}' was printed` })}\n`);
    return;
  }
  // The inspector answers a session of its own thread at once, inside post.
  session.post('HeapProfiler.stopSampling', (error, result) => {
    if (error) throw error;
    if (options.out) writeFileSync(options.out, JSON.stringify(result.profile));
    const { sampledMB, top } = allocationsByFunction(result.profile);
    process.stderr.write(`${JSON.stringify({ kind: 'allocations', from: options.from, seconds: (performance.now() - startedAt) / 1000, sampledMB, top })}\n`);
  });
});

process.argv = [process.argv[0], resolve(script), ...args];
await import(pathToFileURL(resolve(script)).href);
