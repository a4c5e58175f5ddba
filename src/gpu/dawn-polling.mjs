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

const isNative = (fn) => typeof fn === 'function' && /\{\s*\[native code\]\s*\}\s*$/.test(Function.prototype.toString.call(fn));

/**
 * Dawn's callbacks wait in a queue that one timer, made once and re-armed
 * (Timeout.refresh), runs every POLL_MS: a poll allocates nothing of its
 * own. A timer, a promise and two closures per callback, as first built,
 * were most of what the frames' thread allocated on the world benchmark's
 * path (a sampling heap profile of 60 frames on SwiftShader: 460 MB in
 * the polls, 2 MB in the frames' own code).
 */
function installPolling() {
  const setImmediate = globalThis.setImmediate;
  /** The callbacks the next poll runs (with their arguments, where they have any), and a spare list to swap in. */
  let queued = [];
  let running = [];
  const NO_ARGS = [];
  /** Callbacks queued and run so far, for afterDawnPolls. */
  let scheduled = 0;
  let ran = 0;
  /** afterDawnPolls' waiters: each resolves once `ran` reaches its mark. */
  const waiters = [];
  let armed = false;
  const poll = () => {
    armed = false;
    // Swapped through a variable, not a destructuring (an array a poll where it is not optimized away).
    const swap = running;
    running = queued;
    queued = swap;
    let failure = null;
    for (let i = 0; i < running.length; i += 2) {
      try {
        const args = running[i + 1];
        if (args === NO_ARGS) running[i]();
        else running[i](...args);
      } catch (error) {
        failure ??= { error };
      } finally {
        ran++;
      }
    }
    running.length = 0;
    for (let i = waiters.length - 1; i >= 0; i--) {
      if (waiters[i].mark > ran) continue;
      waiters[i].resolve();
      waiters.splice(i, 1);
    }
    // A callback that threw fails the poll as its own timer's did, once the others have run.
    if (failure) throw failure.error;
  };
  /** Made at the first callback (and again when the period changes: timerMs is its own); a timer that has fired is re-armed by refresh() (a cleared one would not be). */
  let timer = null;
  let timerMs = 0;
  let pollMs = POLL_MS;
  const wrapped = function (callback) {
    if (!isNative(callback)) return setImmediate.apply(this, arguments);
    queued.push(callback, arguments.length > 1 ? Array.prototype.slice.call(arguments, 1) : NO_ARGS);
    scheduled++;
    if (!armed) {
      armed = true;
      if (timer && timerMs === pollMs) timer.refresh();
      else {
        timer = setTimeout(poll, pollMs);
        timerMs = pollMs;
      }
    }
    return timer;
  };
  // (Object.assign brings setImmediate's util.promisify.custom along: promisify(setImmediate) still works.)
  globalThis.setImmediate = Object.assign(wrapped, setImmediate);
  return {
    afterDawnPolls: () => (ran >= scheduled ? Promise.resolve() : new Promise((resolve) => waiters.push({ mark: scheduled, resolve }))),
    setPollMs: (ms) => {
      if (!(ms >= 1)) throw new RangeError(`Dawn's polls are at least 1 ms apart, not ${ms}`);
      // The next poll armed makes a timer of the new period (refresh() keeps a timer's own).
      pollMs = ms;
    },
  };
}

globalThis[INSTALLED] ??= installPolling();

/** Resolves once every Dawn poll scheduled before the call has run. */
export function afterDawnPolls() {
  return globalThis[INSTALLED].afterDawnPolls();
}

/**
 * Polls Dawn every `ms` milliseconds from the next poll on (default 1):
 * each poll of dawn.node makes a native function of its own, garbage for
 * the polling thread (the world benchmark's --dawn-poll-ms measures what
 * that garbage costs its frames).
 */
export function setDawnPollMs(ms) {
  globalThis[INSTALLED].setPollMs(ms);
}
