/**
 * Dawn's event polling, every 1 ms instead of in a busy loop, installed
 * when this module is imported: in every Node process the tests run WebGPU
 * in (a setup file of vitest.config.ts's node project imports it, and
 * vitest.config.ts puts `--import` of it in NODE_OPTIONS, which the render
 * and convert commands the tests run inherit), and in the world
 * benchmark, whose frames' thread must wait for the GPU as a page's does,
 * without spinning (bench/bench-world.ts, --dawn-polling).
 *
 * Why: while a promise of the `webgpu` package is pending (a pipeline made
 * asynchronously, mapAsync, onSubmittedWorkDone) dawn.node polls for its
 * completion by calling the global setImmediate again and again with a
 * fresh native callback: the process's main thread spins at 100 % of a
 * core, allocating a function per turn, while SwiftShader's threads do the
 * work on the same 2 cores. Profiled here with perf, a render command's
 * run spent about half its CPU in that loop (node, malloc, the kernel);
 * polled every 1 ms instead it used 5.1 s of CPU instead of 9.7 s, for the
 * same picture byte for byte. The functions it allocates are garbage the
 * thread collects in the middle of its own work (`--trace-gc`, the world
 * benchmark's path): on SwiftShader (20 frames of a 5.5M-splat world) 189
 * full collections and 540 scavenges spinning, 2 and 113 polled; on an
 * H200's host (300 frames at 4M) 658 ms of collections spinning, 197
 * polled, and the frames' recording 7.4-9.4 ms at p95 spinning, 5.9-6.8
 * polled (docs/benchmarks.md). Nothing of the GPU's work changes, only how
 * soon the main thread looks for it: at most a millisecond later.
 *
 * Only native callbacks (dawn.node's) are delayed; JavaScript's own
 * setImmediate calls are untouched. afterDawnPolls() waits for the polls
 * already scheduled, as one setImmediate used to (errors Dawn delivers as
 * events arrive in a poll: tests/support/no-uncaptured-gpu-errors.ts).
 */

/** Milliseconds between Dawn's polls (Node's shortest timer). */
const POLL_MS = 1;

const INSTALLED = Symbol.for('splatsort.dawnPolling');

/** Settles when each poll scheduled so far has run. */
const pending = new Set();

const isNative = (fn) => typeof fn === 'function' && /\{\s*\[native code\]\s*\}\s*$/.test(Function.prototype.toString.call(fn));

if (!globalThis[INSTALLED]) {
  const setImmediate = globalThis.setImmediate;
  const wrapped = function (callback, ...args) {
    if (!isNative(callback)) return setImmediate(callback, ...args);
    let polled;
    const done = new Promise((resolve) => (polled = resolve));
    pending.add(done);
    return setTimeout(() => {
      pending.delete(done);
      try {
        callback(...args);
      } finally {
        polled();
      }
    }, POLL_MS);
  };
  // (Object.assign brings setImmediate's util.promisify.custom along: promisify(setImmediate) still works.)
  globalThis.setImmediate = Object.assign(wrapped, setImmediate);
  globalThis[INSTALLED] = { afterDawnPolls: () => Promise.all([...pending]).then(() => {}) };
}

/** Resolves once every Dawn poll scheduled before the call has run. */
export function afterDawnPolls() {
  return globalThis[INSTALLED].afterDawnPolls();
}
