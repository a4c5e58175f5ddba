/**
 * The Node tools' worker threads make their optimizing compiles on their
 * own thread (src/io/node-worker-thread.ts): with compiles in the
 * background, a thread ending could wait forever on one of them, and
 * world-displacements hung after its last leaf in CI. Asked of V8 itself:
 * a function optimized "concurrently" inside the worker is already
 * optimized when the call that asked returns, where in a thread started
 * as before it is still being optimized in the background. And no Node
 * worker thread is started anywhere else.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import type { Worker } from 'node:worker_threads';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { startWorkerThread } from '../../src/io/node-worker-thread';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
/** This file starts a plain worker on purpose, in a process of its own: the probe's other side. */
const THIS_FILE = 'tests/unit/node-worker-thread.test.ts';

/** The project's TypeScript and JavaScript files under `folders`, relative to the root. */
function codeFiles(folders: string[]): string[] {
  return folders.flatMap((folder) => readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((name) => /\.(ts|mts|mjs|js)$/.test(name))
    .map((name) => relative(ROOT, join(ROOT, folder, name))));
}

/** V8's %GetOptimizationStatus bit for a function optimized in the background (src/runtime/runtime.h, OptimizationStatus). */
const OPTIMIZING_CONCURRENTLY = 1 << 10;
/** Functions a probe optimizes: a background compile of so small a function sometimes ends before it is asked about. */
const PROBES = 20;

/**
 * A worker's script: asks for a "concurrent" optimization of each of PROBES
 * functions and posts how many of them are still being optimized in the
 * background right after the call that asked.
 */
const PROBE = `
  const { parentPort } = require('node:worker_threads');
  let background = 0;
  for (let i = 0; i < ${PROBES}; i++) {
    const f = new Function('x', 'return x * 2 + ' + i + ';');
    const status = new Function('f', \`
      %PrepareFunctionForOptimization(f);
      f(1); f(2);
      %OptimizeFunctionOnNextCall(f, "concurrent");
      f(3);
      return %GetOptimizationStatus(f);
    \`)(f);
    if (status & ${OPTIMIZING_CONCURRENTLY}) background++;
  }
  parentPort.postMessage(background);
`;

function backgroundCompiles(worker: Worker): Promise<number> {
  return new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}

describe('startWorkerThread', () => {
  // Natives syntax for the probe, in this test file's own process.
  setFlagsFromString('--allow-natives-syntax');

  it("makes a worker's optimizing compiles on its own thread, where a plain worker makes them in the background", async () => {
    // The plain worker in a process of its own: once startWorkerThread has run, every later isolate of a process compiles on its own thread.
    const plain = `
      const { Worker } = require('node:worker_threads');
      new Worker(${JSON.stringify(PROBE)}, { eval: true }).once('message', (n) => console.log(n));
    `;
    expect(Number(execFileSync(process.execPath, ['--allow-natives-syntax', '-e', plain], { encoding: 'utf8' }))).toBeGreaterThan(0);
    expect(await backgroundCompiles(startWorkerThread(PROBE, { eval: true }))).toBe(0);
  });

  it('is the only place a Node worker thread is started', () => {
    const starters = codeFiles(['src', 'bench', 'cli', 'scripts', 'tests']).filter((file) => {
      const text = readFileSync(join(ROOT, file), 'utf8');
      return file !== THIS_FILE && /from 'node:worker_threads'/.test(text) && /new Worker\(/.test(text);
    });
    expect(starters).toEqual(['src/io/node-worker-thread.ts']);
  });
});
