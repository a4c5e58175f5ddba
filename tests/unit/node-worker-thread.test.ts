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
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import type { Worker } from 'node:worker_threads';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { startWorkerThread } from '../../src/io/node-worker-thread';
import { COMMAND_TIMEOUT_MS } from '../support/node-tools';
import { PROJECT_ROOT, projectCodeFiles } from '../support/project-files';

const KEEPER = 'src/io/node-worker-thread.ts';
/** This test starts a plain worker all the same (the control, in a process of its own) and holds the check's examples. */
const THIS_FILE = 'tests/unit/node-worker-thread.test.ts';

/** Whether `source` takes Worker from Node's worker_threads as a value (a type-only import starts nothing). */
function importsWorker(source: string): boolean {
  for (const match of source.matchAll(/import\s*\{([^}]*)\}\s*from\s*['"](?:node:)?worker_threads['"]/g)) {
    if (match[1]!.split(',').some((name) => name.trim().split(/\s+as\s+/)[0] === 'Worker')) return true;
  }
  return /import\s*\*\s*as\s+\w+\s+from\s*['"](?:node:)?worker_threads['"]/.test(source) || /\bWorker\b[^;]*require\(\s*['"](?:node:)?worker_threads['"]\s*\)/.test(source);
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
    // The plain worker in a process of its own (once startWorkerThread has run, every later isolate of a
    // process compiles on its own thread). It could meet the very hang as it ends, so the process prints
    // the count and kills itself without ending the worker.
    const plain = `
      const { Worker } = require('node:worker_threads');
      const worker = new Worker(${JSON.stringify(PROBE)}, { eval: true });
      worker.once('message', (n) => { process.stdout.write(n + '\\n', () => process.kill(process.pid, 'SIGKILL')); });
      setInterval(() => {}, 1000);
    `;
    const { stdout } = spawnSync(process.execPath, ['--allow-natives-syntax', '-e', plain], { encoding: 'utf8', timeout: COMMAND_TIMEOUT_MS });
    expect(Number(stdout)).toBeGreaterThan(0);
    expect(await backgroundCompiles(startWorkerThread(PROBE, { eval: true }))).toBe(0);
  });

  it('is the only place a Node worker thread is started', () => {
    const files = projectCodeFiles();
    expect(files.length).toBeGreaterThan(200);
    expect(importsWorker(readFileSync(join(PROJECT_ROOT, KEEPER), 'utf8'))).toBe(true);
    expect(files.filter((file) => file !== KEEPER && file !== THIS_FILE && importsWorker(readFileSync(join(PROJECT_ROOT, file), 'utf8')))).toEqual([]);
  });

  it('the check sees Worker imported, renamed, through the whole module or required, and not a type or another name', () => {
    expect(importsWorker("import { Worker } from 'node:worker_threads';")).toBe(true);
    expect(importsWorker('import { parentPort, Worker as Thread } from "worker_threads";')).toBe(true);
    expect(importsWorker("import * as threads from 'node:worker_threads';")).toBe(true);
    expect(importsWorker("const { Worker } = require('node:worker_threads');")).toBe(true);
    expect(importsWorker("import type { Worker } from 'node:worker_threads';")).toBe(false);
    expect(importsWorker("import { parentPort } from 'node:worker_threads';")).toBe(false);
  });
});
