/**
 * The Node tools (bench/vite.config.ts: the render and convert commands,
 * the benchmarks) built for one test file into a folder of its own under
 * test-results/ (inside the project, so the tools find its node_modules:
 * webgpu stays external), removed after the file.
 *
 * Not bench-dist/: the build empties its folder first, so two files that
 * built there side by side (the node tests run two files at a time) broke
 * each other's runs: a fresh-clone run here failed five render-command
 * tests with "Cannot find module bench-dist/render.mjs" while
 * convert-command.test.ts built.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Registers the build (beforeAll) and its removal (afterAll); returns the folder the tools are built into. */
export function useNodeTools(name: string): string {
  mkdirSync(join(ROOT, 'test-results'), { recursive: true });
  const out = mkdtempSync(join(ROOT, 'test-results', `${name}-`));
  beforeAll(() => {
    const vite = join(dirname(createRequire(join(ROOT, 'package.json')).resolve('vite/package.json')), 'bin/vite.js');
    execFileSync(process.execPath, [vite, 'build', '--config', 'bench/vite.config.ts', '--logLevel', 'error', '--outDir', out], { cwd: ROOT, stdio: 'pipe' });
  }, 120_000);
  afterAll(() => rmSync(out, { recursive: true, force: true }));
  return out;
}

/**
 * The most a tool run by a test may take. A command run synchronously
 * holds the test's thread, so vitest's own limit cannot end it: a command
 * that hung (world-displacements once did, src/io/node-worker-thread.ts)
 * held the whole run. Killed at this, it fails its test instead. A render
 * on two busy cores takes 10–40 s.
 */
export const COMMAND_TIMEOUT_MS = 240_000;
