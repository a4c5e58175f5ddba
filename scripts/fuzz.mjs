#!/usr/bin/env node
/**
 * Fuzzes the splat loaders by hand: mutants of the real scenes in
 * ../shared/scenes and of small synthetic files, each loaded as the viewer
 * loads files (loadSplatFile, then validateSplatCloud) in a worker thread
 * with a time limit. A case fails when it throws anything but a
 * SplatFormatError, does not settle in time (a hang), allocates absurdly, or
 * yields a cloud with NaN or Infinity in it. The engine is
 * tests/support/fuzz.ts, built into bench-dist/fuzz.mjs by
 * `npm run bench:build` (`npm run fuzz` builds it first).
 *
 *   npm run fuzz -- --cases 10000 --seed 1 [--workers 2] [--timeout 10000] [--from 0]
 *   npm run fuzz -- --cases 10000 --format sog   (only the cases, among those, of one format's seeds)
 *   node scripts/fuzz.mjs --seed 1 --case 4711 [--write case.bin]   (one case: what it does, its bytes)
 *   (--bundle FILE: another build of the engine than bench-dist/fuzz.mjs)
 *
 * Prints a summary (cases by outcome and by format, the slowest case, the
 * most frequent rejections) and, for each failure, the seed and case number
 * that reproduce it. Exits 1 when any case failed.
 */

import { existsSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const { values } = parseArgs({
  options: {
    cases: { type: 'string', default: '1000' },
    seed: { type: 'string', default: '1' },
    from: { type: 'string', default: '0' },
    workers: { type: 'string' },
    timeout: { type: 'string', default: '10000' },
    case: { type: 'string' },
    write: { type: 'string' },
    bundle: { type: 'string' },
    format: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
// The built engine: bench-dist/fuzz.mjs unless --bundle names another build of tests/support/fuzz.ts.
const bundle = resolve(values.bundle ?? join(root, 'bench-dist', 'fuzz.mjs'));

if (values.help) {
  console.log('usage: node scripts/fuzz.mjs [--cases N] [--seed S] [--from I] [--workers W] [--timeout MS] [--format F]\n' +
    '       node scripts/fuzz.mjs --seed S --case I [--write FILE]');
  process.exit(0);
}

function integer(name, text) {
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 0) {
    console.error(`--${name} must be a non-negative integer, not "${text}"`);
    process.exit(2);
  }
  return n;
}

if (!existsSync(bundle)) {
  console.error(`${bundle} is missing: run "npm run bench:build" first (or use "npm run fuzz")`);
  process.exit(2);
}
// Where the real scenes are, as the tests find them (the bundle may live anywhere).
process.env.SPLATSORT_SCENES ??= resolve(root, '../shared/scenes');
const fuzz = await import(pathToFileURL(bundle).href);

const seed = integer('seed', values.seed);
const timeoutMs = integer('timeout', values.timeout);

if (values.case !== undefined) {
  // One case: rebuild it here, say what it does, run it in a worker.
  const index = integer('case', values.case);
  const c = await fuzz.fuzzCase(await fuzz.loadFuzzCorpus(), seed, index);
  console.log(`seed ${seed} case ${index}: ${c.seedId} (${c.format}), ${c.bytes.length} bytes, loaded as "${c.name}"`);
  for (const op of c.ops) console.log(`  ${op}`);
  if (values.write) {
    writeFileSync(values.write, c.bytes);
    console.log(`  bytes written to ${values.write}`);
  }
  const worker = new fuzz.HarnessWorker(bundle);
  // A world case is its files and a server or folder, rebuilt and read in the worker.
  const job = c.world ? { kind: 'fuzz', seed, index } : { kind: 'load', bytes: c.bytes, name: c.name };
  const { outcome } = await worker.run(job, timeoutMs);
  await worker.close();
  console.log(`  ${outcome.kind}${outcome.errorName ? ` ${outcome.errorName}` : ''}${outcome.message ? `: ${outcome.message}` : ''}` +
    ` (${outcome.ms.toFixed(0)} ms, largest allocation ${outcome.largestAlloc.toLocaleString('en-US')} bytes)`);
  if (outcome.stack && outcome.kind === 'crash') console.log(outcome.stack);
  process.exitCode = ['crash', 'non-finite', 'absurd-alloc', 'hang'].includes(outcome.kind) ? 1 : 0;
} else {
  const cases = integer('cases', values.cases);
  const workers = values.workers === undefined
    ? Math.max(1, Math.min(4, availableParallelism() - 1))
    : Math.max(1, integer('workers', values.workers));
  const every = Math.max(100, Math.ceil(cases / 20));
  const started = performance.now();
  console.log(`fuzzing: seed ${seed}, cases ${values.from}..${integer('from', values.from) + cases - 1}, ${workers} worker(s), ${timeoutMs} ms per case`);
  const summary = await fuzz.runFuzz({
    bundle, seed, cases, from: integer('from', values.from), workers, timeoutMs, format: values.format,
    onCase(result, done, total) {
      if (['crash', 'non-finite', 'absurd-alloc', 'hang'].includes(result.outcome.kind)) {
        console.log(`  FAIL ${fuzz.describeResult(result)}`);
      }
      if (done % every === 0) {
        console.log(`  ${done}/${total} cases, ${((performance.now() - started) / 1000).toFixed(0)} s`);
      }
    },
  });
  console.log(fuzz.formatSummary(summary));
  process.exitCode = summary.failures.length > 0 ? 1 : 0;
}
