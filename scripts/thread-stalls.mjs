/**
 * Runs a Node script (a benchmark) and reports the stalls of its main
 * thread: every stretch over --over ms (default 50, a browser's long task)
 * in which a 5 ms timer could not run. Node's own measure of a page's long
 * tasks, for tools whose main thread does what a page's does
 * (bench-dist/bench-world.mjs: the world's opening and its frames).
 *
 *   node scripts/thread-stalls.mjs [--over 50] <script.mjs> [its arguments…]
 *
 * The script's stdout passes through. At exit, one JSON line on stderr:
 * {kind: 'stalls', over, stalls: [{atMs, ms, after}]}, atMs from the
 * start, `after` the `kind` of the script's last JSON line on stdout
 * before the stall began ('start', 'first', …; null: none yet), so that a
 * stall can be put in the script's own phases. A stall is seen to within
 * 5 ms (the timer's period), and one that runs into the exit is counted.
 */
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

const TICK_MS = 5;
const args = process.argv.slice(2);
let over = 50;
if (args[0] === '--over') {
  over = Number(args[1]);
  if (!(over > 0)) throw new Error(`--over takes milliseconds (> 0), got ${args[1]}`);
  args.splice(0, 2);
}
const script = args.shift();
if (!script) throw new Error('usage: node scripts/thread-stalls.mjs [--over 50] <script.mjs> [arguments…]');

const started = performance.now();
let lastKind = null;
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, ...rest) => {
  const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
  for (const match of text.matchAll(/"kind":"([^"]+)"/g)) lastKind = match[1];
  return write(chunk, ...rest);
};

const stalls = [];
let last = performance.now();
/** The script's last line's kind when the timer last ran: what a stall found under way when it began. */
let kindAtLast = null;
const tick = () => {
  const now = performance.now();
  const gap = now - last - TICK_MS;
  if (gap > over) stalls.push({ atMs: Math.round(last - started), ms: Math.round(gap), after: kindAtLast });
  last = now;
  kindAtLast = lastKind;
};
setInterval(tick, TICK_MS).unref();

process.on('exit', () => {
  tick();
  process.stderr.write(`${JSON.stringify({ kind: 'stalls', over, stalls })}\n`);
});

process.argv = [process.argv[0], resolve(script), ...args];
await import(pathToFileURL(resolve(script)).href);
