/**
 * Every command the project gives (the Node tools bench:build makes: the
 * benchmarks, make-world, render, convert) answers --help with what it
 * does and its options, and an option it does not know with one line that
 * names it, not a stack trace. Built into a folder of this test's own.
 */
import { beforeAll, expect, test } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
// Inside the project (test-results/ is ignored), so the commands find its node_modules (webgpu stays external).
mkdirSync(join(ROOT, 'test-results'), { recursive: true });
const OUT = mkdtempSync(join(ROOT, 'test-results', 'commands-'));
const COMMANDS = ['bench-frame', 'bench-parse', 'bench-popping', 'bench-sort', 'bench-world', 'big-scene', 'make-world', 'world-choice', 'world-fades', 'world-displacements', 'render', 'convert'];

beforeAll(() => {
  const vite = join(dirname(createRequire(join(ROOT, 'package.json')).resolve('vite/package.json')), 'bin/vite.js');
  execFileSync(process.execPath, [vite, 'build', '--config', 'bench/vite.config.ts', '--logLevel', 'error', '--outDir', OUT], { cwd: ROOT, stdio: 'pipe' });
}, 120_000);
afterAll(() => rmSync(OUT, { recursive: true, force: true }));

const run = (command: string, ...args: string[]) => spawnSync(process.execPath, [join(OUT, `${command}.mjs`), ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, SPLATSORT_DEBUG: '' } });

test.each(COMMANDS)('%s --help says what it does and exits 0; an unknown option is one line', (command) => {
  const help = run(command, '--help');
  expect(help.status, help.stderr).toBe(0);
  expect(help.stdout.split('\n').length).toBeGreaterThan(3);
  expect(help.stdout).toMatch(/--[a-z]/);
  const wrong = run(command, '--no-such-option');
  expect(wrong.status).not.toBe(0);
  expect(wrong.stderr.trim()).toMatch(/no-such-option/);
  expect(wrong.stderr.trim().split('\n').length, wrong.stderr).toBe(1);
});
