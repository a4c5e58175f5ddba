#!/usr/bin/env node
/**
 * Mutation check (`npm run mutation-check`): shows that the tests would
 * notice a broken sort phase, projector cull or blend rule. Each mutation
 * below edits one shader or source file in place, the test files it names
 * run, and some test must fail: a mutation that every test survives is
 * coverage lost. The file is restored after each run, on failure, and on
 * Ctrl-C; a copy of the original also waits in the system's temp folder
 * and is put back by the next run if this one was killed outright.
 *
 *   node scripts/mutation-check.mjs                 every mutation, after an unmutated run of their tests
 *   node scripts/mutation-check.mjs --no-baseline   without the unmutated run
 *   node scripts/mutation-check.mjs scan scatter    only mutations whose name contains a word given
 *
 * Exits non-zero if a mutation survives, a mutation no longer applies (its
 * text is gone from the file), a mutated shader does not compile (the
 * mutation tests nothing), or the unmutated tests fail.
 */

import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SORT_TESTS = ['tests/gpu/gpu-radix-sort.test.ts'];
const PROJECTOR_TESTS = ['tests/gpu/projector.test.ts'];
const BLEND_TESTS = ['tests/gpu/splat-size-cap.test.ts', 'tests/gpu/reference-psnr.test.ts', 'tests/gpu/anti-aliasing.test.ts'];

/**
 * One mutation: `edits` replaces each `find` (which must occur exactly
 * `times` times, default once) in `file` with `replace`; `tests` must then
 * fail. Add a mutation by adding an entry.
 */
const MUTATIONS = [
  {
    name: 'count: digit taken one bit too high',
    file: 'shaders/radix_count.wgsl',
    edits: [['atomicAdd(&histogram[copy + digit_of(loaded[q][c])], 1u);', 'atomicAdd(&histogram[copy + digit_of(loaded[q][c] >> 1u)], 1u);']],
    tests: SORT_TESTS,
  },
  {
    name: 'count: one pair past the end counted',
    file: 'shaders/radix_count.wgsl',
    edits: [['if (first + c < n) {', 'if (first + c <= n) {']],
    tests: SORT_TESTS,
  },
  {
    name: 'scan: the blocks before a block include its own (inclusive prefix)',
    file: 'shaders/radix_scan.wgsl',
    edits: [['got[j], b0 + j * LANES + lane < block);', 'got[j], b0 + j * LANES + lane <= block);']],
    tests: SORT_TESTS,
  },
  {
    name: "scan: a digit's start includes its own total (inclusive scan)",
    file: 'shaders/radix_scan.wgsl',
    edits: [['vec4<u32>(start, start + t.x, start + t.x + t.y, start + t.x + t.y + t.z)', 'vec4<u32>(start + t.x, start + t.x + t.y, start + t.x + t.y + t.z, start + t.x + t.y + t.z + t.w)']],
    tests: SORT_TESTS,
  },
  {
    name: 'scatter (portable): equal nibbles ranked in reverse invocation order (unstable)',
    file: 'shaders/radix_scatter.wgsl',
    edits: [['padded(w * WG + lid)', 'padded(w * WG + (WG - 1u - lid))', 2]],
    tests: SORT_TESTS,
  },
  {
    name: 'scatter (subgroup): equal digits ranked in reverse lane order (unstable)',
    file: 'shaders/radix_scatter_subgroup.wgsl',
    edits: [['(before + lane_count(peers & below)) << 8u', '(before + lane_count(peers & ~below) - 1u) << 8u']],
    tests: SORT_TESTS,
  },
  {
    name: 'scatter (portable): each value written where the key of another pair goes',
    file: 'shaders/radix_scatter.wgsl',
    edits: [['values_out[keys[k]] = shared_words[padded(j)];', 'values_out[keys[k]] = values[k];']],
    tests: SORT_TESTS,
  },
  {
    name: "tiles: a 2D grid's rows ignored",
    file: 'shaders/radix_common.wgsl',
    edits: [['return wid.y * control.tiles_x + wid.x;', 'return wid.x;']],
    tests: SORT_TESTS,
  },
  {
    name: 'prepare: a GPU count not clamped to the capacity',
    file: 'shaders/radix_prepare.wgsl',
    edits: [['let n = min(source.count, source.capacity);', 'let n = source.count;']],
    tests: SORT_TESTS,
  },
  {
    name: 'encode: scan blocks rounded down for a CPU count',
    file: 'src/sort/radix-encode.ts',
    edits: [['grid.blocks = Math.ceil(numTiles / blockTiles);', 'grid.blocks = Math.floor(numTiles / blockTiles);']],
    tests: SORT_TESTS,
  },
  {
    name: 'projector: near-plane cull loosened (depth > 0 kept)',
    file: 'shaders/splat_project.wgsl',
    edits: [['if (depth <= NEAR_CULL || threshold <= 0.0) {', 'if (depth <= 0.0 || threshold <= 0.0) {']],
    tests: PROJECTOR_TESTS,
  },
  {
    name: 'projector: near-plane cull tightened (depth > 1 kept)',
    file: 'shaders/splat_project.wgsl',
    edits: [['if (depth <= NEAR_CULL || threshold <= 0.0) {', 'if (depth <= 5.0 * NEAR_CULL || threshold <= 0.0) {']],
    tests: PROJECTOR_TESTS,
  },
  {
    name: 'projector: frustum test loosened (quads twice their size)',
    file: 'shaders/splat_project.wgsl',
    edits: [['any(abs(centre_px) - box_px > window)', 'any(abs(centre_px) - 2.0 * box_px > window)']],
    tests: PROJECTOR_TESTS,
  },
  {
    name: 'blend: the 1/255 alpha skip removed',
    file: 'shaders/splat_render.wgsl',
    edits: [['if (alpha < 1.0 / 255.0) {\n    discard;\n  }', '']],
    tests: BLEND_TESTS,
  },
  {
    name: 'blend: the 0.99 alpha clamp removed (clamped at 1)',
    file: 'shaders/splat_render.wgsl',
    edits: [['let alpha = min(0.99, in.opacity', 'let alpha = min(1.0, in.opacity']],
    tests: BLEND_TESTS,
  },
];

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const vitestBin = join(dirname(require.resolve('vitest/package.json')), 'vitest.mjs');
/** Originals of files mutated now: restored on every way out. */
const mutated = new Map();
/** Copies of the originals that outlive a killed run (one folder per checkout). */
const workDir = join(tmpdir(), `splatsort-mutation-check-${createHash('sha1').update(root).digest('hex').slice(0, 12)}`);
const backupDir = join(workDir, 'originals');
const backupPath = (file) => join(backupDir, encodeURIComponent(file));
let child = null;

function restoreAll() {
  for (const [file, original] of mutated) {
    writeFileSync(join(root, file), original);
    rmSync(backupPath(file), { force: true });
  }
  mutated.clear();
}

/** Puts back any file a killed earlier run left mutated. */
function restoreLeftovers() {
  if (!existsSync(backupDir)) return;
  for (const name of readdirSync(backupDir)) {
    const file = decodeURIComponent(name);
    writeFileSync(join(root, file), readFileSync(join(backupDir, name)));
    rmSync(join(backupDir, name));
    console.log(`restored ${file}, left mutated by an earlier run`);
  }
}

function mutate(mutation) {
  const original = readFileSync(join(root, mutation.file), 'utf8');
  let text = original;
  for (const [find, replace, times = 1] of mutation.edits) {
    const parts = text.split(find);
    if (parts.length - 1 !== times) throw new Error(`${mutation.name}: ${mutation.file} has ${parts.length - 1} of ${JSON.stringify(find)}, expected ${times}`);
    text = parts.join(replace);
  }
  return { original, text };
}

function apply(mutation) {
  const { original, text } = mutate(mutation);
  mkdirSync(backupDir, { recursive: true });
  writeFileSync(backupPath(mutation.file), original);
  mutated.set(mutation.file, original);
  writeFileSync(join(root, mutation.file), text);
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    child?.kill(signal);
    restoreAll();
    console.log(`\n${signal}: files restored`);
    process.exit(130);
  });
}
process.on('exit', restoreAll);

/** Runs vitest on `files`; resolves to the failed tests' titles and first messages (empty: all passed). */
function runTests(files, { bail }) {
  const report = join(workDir, 'report.json');
  mkdirSync(workDir, { recursive: true });
  rmSync(report, { force: true });
  const args = [vitestBin, 'run', '--reporter=json', `--outputFile=${report}`, ...(bail ? ['--bail=1'] : []), ...files];
  return new Promise((resolvePromise) => {
    const started = performance.now();
    child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
    child.on('close', (status) => {
      child = null;
      const seconds = (performance.now() - started) / 1000;
      const failures = [];
      let ran = 0;
      if (existsSync(report)) {
        for (const file of JSON.parse(readFileSync(report, 'utf8')).testResults ?? []) {
          for (const t of file.assertionResults ?? []) {
            if (t.status === 'passed' || t.status === 'failed') ran += 1;
            if (t.status === 'failed') failures.push({ title: `${relative(root, file.name)} > ${t.fullName || t.title}`, message: (t.failureMessages ?? [''])[0] ?? '' });
          }
          if (file.status === 'failed' && !(file.assertionResults ?? []).some((t) => t.status === 'failed')) {
            failures.push({ title: relative(root, file.name), message: file.message ?? 'failed outside its tests' });
          }
        }
      }
      if (status !== 0 && failures.length === 0) failures.push({ title: `vitest exited with status ${status}`, message: stderr });
      resolvePromise({ failures, ran, seconds });
    });
  });
}

const firstLine = (text) => text.split('\n').find((line) => line.trim()) ?? '';

async function main() {
  const args = process.argv.slice(2);
  const baseline = !args.includes('--no-baseline');
  const words = args.filter((a) => !a.startsWith('--'));
  const chosen = MUTATIONS.filter((m) => words.length === 0 || words.some((w) => m.name.includes(w)));
  if (chosen.length === 0) throw new Error(`no mutation's name contains ${words.join(' or ')}`);
  restoreLeftovers();
  // Every mutation must still apply before any test runs.
  for (const m of chosen) mutate(m);

  if (baseline) {
    const files = [...new Set(chosen.flatMap((m) => m.tests))];
    console.log(`unmutated: ${files.join(' ')}`);
    const { failures, ran, seconds } = await runTests(files, { bail: false });
    console.log(`  ${ran} tests, ${failures.length} failed (${seconds.toFixed(0)} s)`);
    if (failures.length > 0 || ran === 0) {
      for (const f of failures) console.log(`  ${f.title}: ${firstLine(f.message)}`);
      console.log('the tests fail without a mutation: nothing to check');
      return 1;
    }
  }

  const results = [];
  for (const m of chosen) {
    apply(m);
    let outcome;
    try {
      outcome = await runTests(m.tests, { bail: true });
    } finally {
      restoreAll();
    }
    const { failures, seconds } = outcome;
    const invalid = failures.some((f) => /WGSL compilation failed/.test(f.message));
    const verdict = invalid ? 'INVALID' : failures.length > 0 ? 'killed' : 'SURVIVED';
    results.push(verdict);
    console.log(`${verdict.padEnd(8)} ${m.name}  [${m.file}; ${seconds.toFixed(0)} s]`);
    if (failures.length > 0) console.log(`         ${failures[0].title}\n         ${firstLine(failures[0].message).slice(0, 300)}`);
  }
  const survived = results.filter((r) => r === 'SURVIVED').length;
  const invalid = results.filter((r) => r === 'INVALID').length;
  console.log(`\n${results.length - survived - invalid} of ${results.length} mutations killed, ${survived} survived${invalid ? `, ${invalid} did not compile` : ''}`);
  return survived + invalid > 0 ? 1 : 0;
}

main().then(
  (code) => {
    restoreAll();
    process.exitCode = code;
  },
  (error) => {
    restoreAll();
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 2;
  },
);
