#!/usr/bin/env node
/**
 * The one test command (`npm test`): type checking, then every vitest suite.
 * Extra arguments go to vitest (`npm test -- tests/unit`).
 *
 * The type check counts as one test. The last line printed is always
 * `N passed, N failed` (plus `, N skipped` when tests were skipped), taken
 * from vitest's JSON report, so CI can read the outcome from one line.
 * Exits non-zero when anything failed or when no test ran.
 */

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const resultsDir = join(root, 'test-results');
const reportPath = join(resultsDir, 'vitest.json');

function run(label, script, args) {
  console.log(`\n> ${label}`);
  const started = performance.now();
  const { status, signal, error } = spawnSync(process.execPath, [script, ...args], { cwd: root, stdio: 'inherit' });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (error) console.error(`${label}: could not start: ${error.message}`);
  else if (signal) console.error(`${label}: killed by ${signal}`);
  console.log(`> ${label}: exit ${status ?? signal}, ${seconds} s`);
  return status ?? 1;
}

let passed = 0;
let failed = 0;
let skipped = 0;
let vitestTests = 0;
const failures = [];

// 1. Type checking: a type error is a failed test.
if (run('tsc --noEmit', require.resolve('typescript/bin/tsc'), ['--noEmit']) === 0) {
  passed += 1;
} else {
  failed += 1;
  failures.push('typecheck: tsc --noEmit reported errors (see above)');
}

// 2. vitest, with the JSON report as the source of the counts.
mkdirSync(resultsDir, { recursive: true });
rmSync(reportPath, { force: true });
const vitestArgs = [
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile=${relative(root, reportPath)}`,
  ...process.argv.slice(2),
];
const vitestBin = join(dirname(require.resolve('vitest/package.json')), 'vitest.mjs');
const vitestStatus = run(`vitest ${vitestArgs.join(' ')}`, vitestBin, vitestArgs);

if (existsSync(reportPath)) {
  // Counted per test from the report: a test left "pending" never finished
  // (its worker died), which vitest's own totals would count as skipped.
  const report = JSON.parse(readFileSync(reportPath, 'utf8'));
  let vitestFailed = 0;
  for (const file of report.testResults ?? []) {
    const name = relative(root, file.name);
    const tests = file.assertionResults ?? [];
    vitestTests += tests.length;
    for (const t of tests) {
      const title = `${name} > ${t.fullName || t.title}`;
      if (t.status === 'passed') passed += 1;
      else if (t.status === 'skipped' || t.status === 'todo') skipped += 1;
      else {
        vitestFailed += 1;
        failures.push(t.status === 'failed' ? title : `${title}: did not finish (${t.status})`);
      }
    }
    // A file that fails to load or whose hooks throw may have no failed test of its own: count the file.
    if (file.status === 'failed' && !tests.some((t) => t.status === 'failed')) {
      vitestFailed += 1;
      failures.push(`${name}: ${(file.message || 'failed outside its tests').split('\n')[0]}`);
    }
  }
  if (vitestStatus !== 0 && vitestFailed === 0) {
    // e.g. unhandled errors between tests: vitest fails the run without failing a test.
    vitestFailed += 1;
    failures.push(`vitest exited with status ${vitestStatus} (see its output above)`);
  }
  failed += vitestFailed;
} else {
  failed += 1;
  failures.push(`vitest wrote no report to ${relative(root, reportPath)} (exit status ${vitestStatus})`);
}

if (failures.length > 0) console.log(`\nFailed:\n${failures.map((f) => `  - ${f}`).join('\n')}`);
if (vitestTests === 0) console.log('\nNo vitest test ran (check the arguments and that the test files load).');
console.log('');
console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
process.exitCode = failed > 0 || vitestTests === 0 ? 1 : 0;
