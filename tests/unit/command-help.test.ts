/**
 * Every command the project gives (the Node tools bench:build makes: the
 * benchmarks, make-world, render, convert) answers --help with what it
 * does and its options, and an option it does not know with one line that
 * names it, not a stack trace. Built into a folder of this test's own.
 */
import { expect, test } from 'vitest';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { COMMAND_TIMEOUT_MS, useNodeTools } from '../support/node-tools';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const OUT = useNodeTools('commands');
const COMMANDS = ['bench-frame', 'bench-parse', 'bench-popping', 'bench-sort', 'bench-world', 'big-scene', 'make-world', 'world-choice', 'world-fades', 'world-run-layout', 'dispatch-cost', 'world-displacements', 'render', 'convert'];

const run = (command: string, ...args: string[]) => spawnSync(process.execPath, [join(OUT, `${command}.mjs`), ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, SPLATSORT_DEBUG: '' }, timeout: COMMAND_TIMEOUT_MS });

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
