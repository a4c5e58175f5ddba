#!/usr/bin/env node
/**
 * What the page's main thread spends while a Streamed SOG world streams:
 * the viewer page, built as users get it (vite build, served by vite
 * preview with the world copied beside it), opened in headless Chromium on
 * SwiftShader (tests/e2e/chromium.mjs) on `?url=<world>/lod-meta.json`,
 * and flown along a scripted path from the view it opens on: a turn about
 * its target, in to a third of its distance, and back out, each leg
 * FLIGHT_SECONDS. Meanwhile Chromium's own trace (devtools.timeline)
 * records every task of the page's main thread, and the page collects its
 * long tasks (PerformanceObserver 'longtask', its own performance entries).
 *
 * Per frame (from one animation frame fired to the next), the main
 * thread's work is the sum of its tasks' durations in that span: the
 * frame's own recording and whatever else ran there (worker messages with
 * decoded chunks, uploads, garbage collection). The durations are wall
 * time; mainCpuMsPerFrame sums the same tasks' thread time (the trace's
 * tdur), without the time the thread waited for a core: SwiftShader draws
 * on the GPU process's threads, which on a machine of few cores take them
 * from the page's main thread in the middle of its tasks. Software WebGPU draws
 * slowly, so frames are few and long; the main thread's own time is a
 * property of the page's code and is what this measures. Prints one JSON
 * line: frames, main-thread ms a frame (p50, p95, max), the tasks over
 * 50 ms (the trace's and the page's own), and the world's chunks loaded.
 * Where frames are seconds apart (a world on a software adapter), a
 * frame's span also holds a second or more of the work between frames, so
 * the line splits the two as well: the frame callback's own CPU
 * (frameCallbackCpuMs: p50, p95, max), and the tasks between frames
 * (betweenFrames: their number, CPU a second of the path, the longest).
 * Frames and long tasks are those of the path (between console.timeStamp
 * marks the page writes at its start and end); the long tasks of the
 * page's opening before it (its scripts, the first chunks) are given
 * apart, as `opening`.
 *
 *   node scripts/page-main-thread.mjs --world /path/to/world [--width 960] [--height 540] [--query '&renderer=quads'] [--budget N] [--warm-up] [--profile] [--heap] [--trace out.json]
 *
 * --budget sets the world's splat budget before the world opens (the page
 * opens on its default scene, then loads the world): under a budget well
 * below the world's splats the choice moves between levels as the path
 * turns, and chunks arrive along it. The pool is sized by the memory
 * (src/app/world/world-options.ts), so chunks are evicted only where the
 * world passes it.
 *
 * --warm-up flies the turn once first, from twice as far and unmeasured:
 * on a software adapter the path has only tens of frames, and without it
 * each runs code the JIT has barely met.
 *
 * --profile adds a CPU profile of the main thread's JavaScript over the
 * path (V8's sampling profiler): the functions that took the most time
 * themselves, with their script and line, those sampled inside the frame
 * callbacks apart from the rest (`inFrames`, `betweenFrames`), and,
 * callees included, in every frame callback (`inFramesInclusive`) and in
 * those of the most CPU (`inWorstFrames`: the tenth at the top, at least
 * two). The path's
 * line also counts the chunks that arrived while it flew (chunksArrived):
 * a measure whose chunks all arrived before it says nothing of uploads.
 *
 * --heap adds what the page's main thread allocated on its JavaScript heap
 * over the path (V8's sampling heap profiler, every allocation sampled
 * whether it lives or is collected, about one in 4 KiB): the sum, and the
 * functions that allocated most (`heap`: {sampledMB, perFrameKB, top}).
 *
 * --trace writes Chromium's whole trace (its events, as JSON) to a file.
 *
 * --world is a folder holding lod-meta.json and its chunks (make-world's
 * world/, or any Streamed SOG world). Quads draw by default: the tile
 * renderer's frames take seconds on SwiftShader, and what the main thread
 * does is the same.
 */
import { cp, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { withBuiltPage } from './built-page.mjs';
import { allocationsByFunction } from './heap-profile-summary.mjs';

/** The longest the page may take to open the world: a slow machine's first chunks, decoded in its workers. */
const READY_TIMEOUT_MS = 300_000;
/** Each leg of the path: long enough that chunks are asked for and arrive while the camera moves. */
const FLIGHT_SECONDS = 4;
/** A task this long blocks input for a visible moment (the web's own measure of a long task). */
const LONG_TASK_MS = 50;

const { values: args } = parseArgs({
  options: {
    world: { type: 'string' },
    width: { type: 'string', default: '960' },
    height: { type: 'string', default: '540' },
    query: { type: 'string', default: '&renderer=quads' },
    profile: { type: 'boolean', default: false },
    heap: { type: 'boolean', default: false },
    trace: { type: 'string' },
    budget: { type: 'string' },
    'warm-up': { type: 'boolean', default: false },
  },
});
if (!args.world || !existsSync(join(args.world, 'lod-meta.json'))) throw new Error('--world must name a folder holding lod-meta.json');
const width = Number(args.width);
const height = Number(args.height);

await withBuiltPage({ width, height, timeoutMs: READY_TIMEOUT_MS, served: (built) => cp(resolve(args.world), join(built, 'world'), { recursive: true }) }, async ({ url, context }) => {
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(error.message));
  // The page's own long tasks, from its first script on.
  await page.addInitScript(() => {
    window.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) window.__longTasks.push({ start: entry.startTime, ms: entry.duration });
    }).observe({ type: 'longtask', buffered: true });
  });
  const cdp = await context.newCDPSession(page);
  await cdp.send('Tracing.start', { categories: 'devtools.timeline,disabled-by-default-devtools.timeline', transferMode: 'ReturnAsStream' });

  const worldUrl = `${url}world/lod-meta.json`;
  if (args.budget === undefined) await page.goto(`${url}?url=${encodeURIComponent(worldUrl)}&ui=0${args.query}`);
  else {
    await page.goto(`${url}?ui=0${args.query}`);
    await page.waitForFunction('window.__splatsortViewer !== undefined', undefined, { polling: 250 });
    await page.evaluate(({ budget, worldUrl }) => {
      const viewer = window.__splatsortViewer;
      viewer.setSettings({ worldBudget: budget });
      void viewer.load(worldUrl);
    }, { budget: Number(args.budget), worldUrl });
  }
  await page.waitForFunction('window.__splatsort?.world?.chunksLoaded > 0 && window.__splatsortViewer !== undefined', undefined, { polling: 250 });
  if (args.profile) {
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
    await cdp.send('Profiler.start');
  }
  if (args.heap) await cdp.send('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  const path = await page.evaluate(async ({ seconds, warmUp }) => {
    const viewer = window.__splatsortViewer;
    const loadedAtStart = () => window.__splatsort.world.chunksLoaded;
    const start = viewer.camera.get();
    const around = (turn, scale) => {
      const d = start.eye.map((e, a) => (e - start.target[a]) * scale);
      const [c, s] = [Math.cos(turn), Math.sin(turn)];
      const eye = [start.target[0] + c * d[0] + s * d[2], start.target[1] + d[1], start.target[2] - s * d[0] + c * d[2]];
      return { ...start, eye };
    };
    const legs = [around(Math.PI / 2, 1), around(Math.PI, 1), around(Math.PI, 1 / 3), around(0, 1)];
    // Warmed up: the same turn flown first from twice as far (coarser levels, so the finer chunks of the
    // measured path still arrive along it), unmeasured, so that the page's code is not met for the first time.
    if (warmUp) for (const turn of [Math.PI / 2, Math.PI, 0]) await viewer.camera.flyTo(around(turn, 2), { seconds });
    const begun = performance.now();
    const loaded = loadedAtStart();
    console.timeStamp('path-start');
    for (const pose of legs) await viewer.camera.flyTo(pose, { seconds });
    // The last flight ends inside a frame callback, and this function goes on in its microtasks: the mark,
    // and what follows (this result serialized for the test's side, 5-20 ms), go to tasks of their own, so
    // the path's last frame is the page's own work.
    const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));
    await nextTask();
    console.timeStamp('path-end');
    await nextTask();
    // Chunks that arrived while the path flew: what the frames' spans held besides the frames themselves.
    const arrived = window.__splatsort.world.chunksLoaded - loaded;
    return { legs: legs.length, ms: performance.now() - begun, chunksArrived: arrived, start: begun, end: performance.now() };
  }, { seconds: FLIGHT_SECONDS, warmUp: args['warm-up'] });
  const cpuProfile = args.profile ? (await cdp.send('Profiler.stop')).profile : undefined;
  const heapProfile = args.heap ? (await cdp.send('HeapProfiler.stopSampling')).profile : undefined;
  const world = await page.evaluate(() => window.__splatsort.world);
  const pageLongTasks = await page.evaluate(() => window.__longTasks);

  const done = new Promise((resolveDone) => cdp.once('Tracing.tracingComplete', resolveDone));
  await cdp.send('Tracing.end');
  const { stream } = await done;
  let text = '';
  for (;;) {
    const { data, eof, base64Encoded } = await cdp.send('IO.read', { handle: stream, size: 1 << 20 });
    text += base64Encoded ? Buffer.from(data, 'base64').toString('utf8') : data;
    if (eof) break;
  }
  await cdp.send('IO.close', { handle: stream });
  const trace = JSON.parse(text);
  const events = Array.isArray(trace) ? trace : trace.traceEvents;
  if (args.trace) await writeFile(args.trace, JSON.stringify(events));
  const pathLongTasks = pageLongTasks.filter((t) => t.start >= path.start && t.start < path.end);
  const { start, end, ...pathFacts } = path;
  const thread = mainThread(events, pathLongTasks);
  const profile = cpuProfile && {
    inFrames: topFunctions(cpuProfile, thread.callbacks),
    betweenFrames: topFunctions(cpuProfile, thread.callbacks, false),
    inFramesInclusive: inclusiveFunctions(cpuProfile, thread.callbacks),
    inWorstFrames: { frames: thread.worst.length, inclusive: inclusiveFunctions(cpuProfile, thread.worst) },
  };
  const allocations = heapProfile && allocationsByFunction(heapProfile, 15);
  const heap = allocations && { sampledMB: allocations.sampledMB, perFrameKB: thread.frames > 0 ? Math.round(allocations.totalBytes / thread.frames / 100) / 10 : null, top: allocations.top };
  delete thread.callbacks;
  delete thread.worst;
  console.log(JSON.stringify({ width, height, query: args.query, path: pathFacts, world, errors, ...thread, profile, heap }));
});

/**
 * The page's main thread in the trace: the renderer thread named
 * CrRendererMain that fired animation frames. Its tasks (RunTask) summed
 * between consecutive animation frames of the path, and those over
 * LONG_TASK_MS (the path's, and the opening's before it).
 */
function mainThread(events, pageLongTasks) {
  const round = (ms) => Math.round(ms * 100) / 100;
  const names = new Map(events.filter((e) => e.ph === 'M' && e.name === 'thread_name').map((e) => [`${e.pid}:${e.tid}`, e.args.name]));
  const frameEvents = events.filter((e) => e.name === 'FireAnimationFrame' && names.get(`${e.pid}:${e.tid}`) === 'CrRendererMain');
  if (frameEvents.length < 2) throw new Error(`the trace holds ${frameEvents.length} animation frames of the page: nothing to measure`);
  const thread = `${frameEvents[0].pid}:${frameEvents[0].tid}`;
  const mark = (message) => events.find((e) => e.name === 'TimeStamp' && e.args?.data?.message === message && `${e.pid}:${e.tid}` === thread)?.ts;
  const [pathStart, pathEnd] = [mark('path-start'), mark('path-end')];
  if (pathStart === undefined || pathEnd === undefined) throw new Error('the trace holds no path-start and path-end marks of the page');
  const allTasks = events.filter((e) => e.ph === 'X' && e.name === 'RunTask' && `${e.pid}:${e.tid}` === thread).sort((a, b) => a.ts - b.ts);
  const tasks = allTasks.filter((t) => t.ts + t.dur > pathStart && t.ts < pathEnd);
  const opening = allTasks.filter((t) => t.ts < pathStart && t.dur / 1000 > LONG_TASK_MS).map((t) => Math.round(t.dur / 100) / 10);
  const starts = frameEvents.filter((e) => `${e.pid}:${e.tid}` === thread && e.ts >= pathStart && e.ts <= pathEnd).map((e) => e.ts).sort((a, b) => a - b);
  const perFrame = [];
  const cpuPerFrame = [];
  let k = 0;
  for (let f = 0; f + 1 < starts.length; f++) {
    let busy = 0;
    let cpu = 0;
    while (k < tasks.length && tasks[k].ts < starts[f]) k++;
    for (let j = k; j < tasks.length && tasks[j].ts < starts[f + 1]; j++) {
      busy += tasks[j].dur / 1000;
      cpu += (tasks[j].tdur ?? tasks[j].dur) / 1000;
    }
    perFrame.push(busy);
    cpuPerFrame.push(cpu);
  }
  const quantiles = (values) => {
    const sorted = [...values].sort((a, b) => a - b);
    const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
    return { p50: round(at(0.5)), p95: round(at(0.95)), max: round(sorted[sorted.length - 1]) };
  };
  // The frame callback alone (what each frame runs whatever the machine's pace), and the tasks between frames
  // (chunks arriving, staging blocks coming back, garbage collection): their CPU a second of the path and the
  // longest, which a display's frame would meet one at a time.
  const fires = frameEvents.filter((e) => `${e.pid}:${e.tid}` === thread && e.ts >= pathStart && e.ts <= pathEnd);
  const cpuOf = (e) => (e.tdur ?? e.dur) / 1000;
  const between = tasks.filter((t) => !fires.some((f) => f.ts >= t.ts && f.ts <= t.ts + t.dur)).map(cpuOf);
  const betweenFrames = {
    tasks: between.length,
    cpuMsPerSecond: round(between.reduce((sum, ms) => sum + ms, 0) / ((pathEnd - pathStart) / 1e6)),
    longestCpuMs: round(Math.max(0, ...between)),
  };
  const longTasks = tasks.filter((t) => t.dur / 1000 > LONG_TASK_MS);
  const long = longTasks.map((t) => Math.round(t.dur / 100) / 10);
  // What the long tasks were: the events inside each, by name (a function call named by its function and script).
  const inside = events.filter((e) => e.ph === 'X' && e.name !== 'RunTask' && `${e.pid}:${e.tid}` === thread);
  const what = longTasks.map((t) => {
    const parts = new Map();
    for (const e of inside) {
      if (e.ts < t.ts || e.ts + e.dur > t.ts + t.dur) continue;
      const frame = e.args?.data?.functionName ? `${e.name} ${e.args.data.functionName} ${(e.args.data.url ?? '').split('/').pop()}:${e.args.data.lineNumber ?? ''}` : e.name;
      parts.set(frame, (parts.get(frame) ?? 0) + e.dur / 1000);
    }
    return { ms: Math.round(t.dur / 100) / 10, inside: [...parts].sort((a, b) => b[1] - a[1]).slice(0, 6).map(([name, ms]) => `${name} ${ms.toFixed(1)}`) };
  });
  return {
    frames: perFrame.length,
    mainMsPerFrame: quantiles(perFrame),
    mainCpuMsPerFrame: quantiles(cpuPerFrame),
    frameCallbackCpuMs: quantiles(fires.map(cpuOf)),
    betweenFrames,
    longTaskParts: what,
    longTasks: { trace: long.length, longestMs: long.length ? Math.max(...long) : 0, page: pageLongTasks.length, pageLongestMs: pageLongTasks.length ? round(Math.max(...pageLongTasks.map((t) => t.ms))) : 0 },
    opening: { longTasks: opening.length, longestMs: opening.length ? Math.max(...opening) : 0 },
    // Every frame callback's CPU, in the path's order: p95 of a few tens of frames is their largest, so the list says whether it stands alone.
    frameCallbackCpuList: fires.map((f) => round(cpuOf(f))),
    // The frame callbacks' spans (µs, the trace's clock, which the CPU profile's samples share): the profile split by them.
    callbacks: fires.map((f) => [f.ts, f.ts + f.dur]).sort((a, b) => a[0] - b[0]),
    // The spans of the frame callbacks of the most CPU (the tenth at the top, at least two): what the p95 is made of.
    worst: [...fires].sort((a, b) => cpuOf(b) - cpuOf(a)).slice(0, Math.max(2, Math.ceil(fires.length / 10))).map((f) => [f.ts, f.ts + f.dur]).sort((a, b) => a[0] - b[0]),
  };
}

/**
 * Calls `visit(nodeId, ms)` for each sample of a V8 CPU profile inside `spans` (µs, sorted), or, with
 * `inside` false, outside them: the sample's node and the time until the next sample.
 */
function eachSample(profile, spans, inside, visit) {
  const deltas = profile.timeDeltas;
  let at = profile.startTime;
  let span = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    at += deltas[i];
    while (span < spans.length && spans[span][1] < at) span++;
    const inSpan = span < spans.length && spans[span][0] <= at;
    if (inSpan === inside) visit(profile.samples[i], (deltas[i + 1] ?? 0) / 1000);
  }
}

/** A profile node's function as the lists name it (null: idle, the profiler's own, the root), by node id. */
function functionNames(profile) {
  const names = new Map();
  for (const { id, callFrame: { functionName, url, lineNumber } } of profile.nodes) {
    const skipped = functionName === '(root)' || functionName === '(idle)' || functionName === '(program)';
    names.set(id, skipped ? null : `${functionName || '(anonymous)'} ${url.split('/').pop()}:${lineNumber + 1}`);
  }
  return names;
}

/** The `count` largest of `ms` by name, as "name ms" lines. */
function largest(ms, count) {
  return [...ms].sort((a, b) => b[1] - a[1]).slice(0, count).map(([name, value]) => `${name} ${value.toFixed(1)}`);
}

/**
 * The functions with the most time inside them, callees included, of the samples in `spans` (ms): a
 * function on the stack twice counts once. Where the time of a frame's parts goes, by part.
 */
function inclusiveFunctions(profile, spans, count = 25) {
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const names = functionNames(profile);
  const totalMs = new Map();
  eachSample(profile, spans, true, (node, ms) => {
    const seen = new Set();
    for (let id = node; id !== undefined; id = parent.get(id)) {
      const name = names.get(id);
      if (name === null || seen.has(name)) continue;
      seen.add(name);
      totalMs.set(name, (totalMs.get(name) ?? 0) + ms);
    }
  });
  return largest(totalMs, count);
}

/**
 * The functions with the most time of their own in a V8 CPU profile (ms), idle and the profiler's own left
 * out: of the samples inside the frame callbacks' spans (`inside`), or of those outside them.
 */
function topFunctions(profile, spans, inside = true, count = 15) {
  const names = functionNames(profile);
  const selfMs = new Map();
  eachSample(profile, spans, inside, (node, ms) => {
    const name = names.get(node);
    if (name !== null) selfMs.set(name, (selfMs.get(name) ?? 0) + ms);
  });
  return largest(selfMs, count);
}
