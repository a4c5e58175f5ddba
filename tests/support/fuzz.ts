/**
 * The loader fuzzer: mutates real and synthetic splat files (bit flips, byte
 * sets, chunk deletes and duplications, truncations, header number and token
 * edits, special floats, splices between files: fuzz-bytes.ts; SOG scenes
 * edited inside meta.json and their images and zipped again: fuzz-sog.ts;
 * Streamed SOG worlds edited in their index and chunks: fuzz-world.ts),
 * loads each mutant the way the viewer does (loadSplatFile, then
 * validateSplatCloud; a world: openWorld, then every chunk, world-load.ts)
 * in a worker with a time limit, and reports every outcome that is not
 * "accepted" or "rejected with a SplatFormatError" (see loader-harness.ts).
 *
 * Every case is a pure function of (seed, case number): a failure is
 * reproduced by running that one case again (`node scripts/fuzz.mjs --seed S
 * --case N --write case.bin`).
 *
 * This module is also the harness worker's entry: built into one bundle
 * (`npm run bench:build` → bench-dist/fuzz.mjs, or build-harness.ts for the
 * tests), it serves jobs when started as a harness worker.
 */
import './alloc-meter'; // first: it must wrap the allocators before the loaders load
import { readFileSync } from 'node:fs';
import { isMainThread, workerData } from 'node:worker_threads';
import { SCENES_DIR, scenePath } from '../shared-scenes';
import { FAILURES, HarnessWorker, runLoad, serveHarness, type Outcome, type OutcomeKind } from './loader-harness';
import { compressedPly, gzip, inriaPly, rng, spzPayload, spzV4, splatFile } from './splat-files';
import { deflateRun, gzipRun, sogWith, spzHeader, zipArchive } from './bombs';
import { mutateBytes, type Random } from './fuzz-bytes';
import { mutateSog, SOG_STAGE_NAMES, sogParts, sogStage, type SogParts, type SogStage } from './fuzz-sog';
import { mutateWorld, seedFiles, tinyWorld, worldBytes, type WorldMutant, type WorldParts } from './fuzz-world';
import { runWorldLoad, type WorldStage } from './world-load';
import { writeKsplat } from './ksplat-writer';
import { bundleSog, writeSog } from './sog-writer';
import { buildGltf, glb, gltfText, SPLAT_EXTENSION, splatAttributes } from './gltf-files';
import { parseSplatPly } from '../../src/io/ply/parse';
import type { SplatFormatId } from '../../src/io/formats/index';

export { HarnessWorker, runLoad, type Outcome } from './loader-harness';

/** The formats read from one file's bytes (a SOG meta.json's images are fuzzed inside .sog bundles), and Streamed SOG worlds. */
export type SeedFormat = Exclude<SplatFormatId, 'sog-meta'> | 'world';

export interface FuzzSeed {
  id: string;
  format: SeedFormat;
  /** The name passed to loadSplatFile (decides .splat detection). */
  name: string;
  bytes: Uint8Array;
  /** For a gzip-wrapped spz: the payload inside, which most mutations edit before re-wrapping. */
  gzipPayload?: Uint8Array;
  /** For a .sog bundle: its scene in parts, which most mutations edit inside before zipping it again. */
  sog?: SogParts;
  /** For a world: its index and files, which every mutation edits (`bytes`: its files as one string, worldBytes). */
  world?: WorldParts;
}

/** The share of a SOG seed's cases edited inside (fuzz-sog.ts) rather than as bytes. */
const SOG_INSIDE = 0.75;

export const REAL_SCENES: readonly { file: string; format: SeedFormat }[] = [
  { file: 'inria_kacytran_iter7000_9k_sh3.ply', format: 'ply' },
  { file: 'playcanvas_biker.compressed.ply', format: 'compressed-ply' },
  { file: 'playcanvas_biker_v4.spz', format: 'spz' },
  { file: 'justdealman_model.splat', format: 'splat' },
];

/** The seeds every case starts from: the four real files and small synthetic ones of every format and variant. */
export async function loadFuzzCorpus(): Promise<FuzzSeed[]> {
  const seeds: FuzzSeed[] = REAL_SCENES.map(({ file, format }) => ({
    id: file, format, name: file, bytes: new Uint8Array(readFileSync(scenePath(file))),
  }));
  const spz2 = spzPayload({ version: 2, count: 30, shDegree: 1 });
  const ksplatSource = parseSplatPly(inriaPly({ count: 40, shDegree: 2 }));
  const sog = await writeSog(parseSplatPly(inriaPly({ count: 50, shDegree: 1 })), { paletteSize: 16 });
  const sogV1 = await writeSog(parseSplatPly(inriaPly({ count: 40, shDegree: 2 })), { version: 1 });
  const sogSh3 = await writeSog(parseSplatPly(inriaPly({ count: 30, shDegree: 3 })), { paletteSize: 8, iterations: 1 });
  const sogSh0 = await writeSog(parseSplatPly(inriaPly({ count: 20, shDegree: 0 })), { width: 3 });
  const sogSeed = async (id: string, name: string, written: typeof sog, options: { folder?: string; deflate?: boolean } = {}): Promise<FuzzSeed> =>
    ({ id, format: 'sog', name, bytes: bundleSog(written, options), sog: await sogParts(written, options) });
  const spz3 = spzPayload({ version: 3, count: 40, shDegree: 0 });
  const worldSeed = async (id: string, world: Promise<WorldParts>): Promise<FuzzSeed> => {
    const parts = await world;
    return { id, format: 'world', name: 'lod-meta.json', bytes: worldBytes(seedFiles(parts)), world: parts };
  };
  seeds.push(
    { id: 'synthetic-inria-sh0', format: 'ply', name: 'a.ply', bytes: inriaPly({ count: 40, shDegree: 0 }) },
    { id: 'synthetic-inria-sh1', format: 'ply', name: 'b.ply', bytes: inriaPly({ count: 20, shDegree: 1 }) },
    { id: 'synthetic-inria-sh3', format: 'ply', name: 'c.ply', bytes: inriaPly({ count: 6, shDegree: 3 }) },
    { id: 'synthetic-inria-double', format: 'ply', name: 'd.ply', bytes: inriaPly({ count: 10, type: () => 'double' }) },
    { id: 'synthetic-compressed', format: 'compressed-ply', name: 'e.compressed.ply', bytes: compressedPly({ count: 300 }) },
    { id: 'synthetic-compressed-sh1', format: 'compressed-ply', name: 'f.ply', bytes: compressedPly({ count: 20, shDegree: 1 }) },
    { id: 'synthetic-spz-v2-gzip', format: 'spz', name: 'g.spz', bytes: gzip(spz2), gzipPayload: spz2 },
    { id: 'synthetic-spz-v3-gzip', format: 'spz', name: 'h.spz', bytes: gzip(spz3), gzipPayload: spz3 },
    { id: 'synthetic-spz-v3-raw', format: 'spz', name: 'i.spz', bytes: spzPayload({ version: 3, count: 25, shDegree: 2 }) },
    { id: 'synthetic-spz-v4-sh2', format: 'spz', name: 'j.spz', bytes: spzV4({ count: 20, shDegree: 2 }) },
    { id: 'synthetic-splat', format: 'splat', name: 'k.splat', bytes: splatFile(50) },
    ...([0, 1, 2] as const).map((level): FuzzSeed => ({
      id: `synthetic-ksplat-level${level}`, format: 'ksplat', name: `l${level}.ksplat`,
      bytes: writeKsplat(ksplatSource, { level, bucketSize: 16 }).bytes,
    })),
    await sogSeed('synthetic-sog-stored', 'm.sog', sog),
    await sogSeed('synthetic-sog-deflated', 'n.sog', sog, { deflate: true, folder: 'scene' }),
    await sogSeed('synthetic-sog-v1-sh2', 'm1.sog', sogV1),
    await sogSeed('synthetic-sog-sh3-clustered', 'm3.sog', sogSh3, { deflate: true }),
    await sogSeed('synthetic-sog-sh0', 'm0.sog', sogSh0, { folder: 'a/b' }),
    await worldSeed('world-tiny', tinyWorld()),
    await worldSeed('world-tiny-environment', tinyWorld({ environment: true, seed: 23 })),
    {
      // Two entries of one name: readers that take the first and the last would load different scenes.
      id: 'sog-duplicate-entry', format: 'sog', name: 'md.sog',
      bytes: zipArchive([
        { name: 'meta.json', stored: new TextEncoder().encode(sog.metaJson) },
        ...[...sog.files].map(([name, stored]) => ({ name, stored })),
        { name: 'quats.webp', stored: sog.files.get('scales.webp')! },
      ]),
    },
    ...(await gltfSeeds()),
    // Bombs and lying headers (bombs.ts), kept to a few KB: each claims ~1000× its size.
    { id: 'bomb-spz-gzip-of-zeros', format: 'spz', name: 'o.spz', bytes: gzipRun(new Uint8Array(0), 0, 16) },
    { id: 'bomb-spz-zeros-after-data', format: 'spz', name: 'p.spz', bytes: gzipRun(spz2, 0, 16) },
    { id: 'bomb-spz-lying-count', format: 'spz', name: 'q.spz', bytes: gzipRun(spzHeader(2, 10_000_000, 3), 0, 8) },
    {
      id: 'bomb-sog-huge-entry', format: 'sog', name: 'r.sog',
      bytes: sogWith(sog.metaJson, sog.files, [{ name: 'means_l.webp', deflated: deflateRun(new Uint8Array(0), 0, 32) }]),
    },
    {
      id: 'bomb-sog-oversized-meta', format: 'sog', name: 's.sog',
      bytes: sogWith(sog.metaJson, sog.files, [{ name: 'meta.json', deflated: deflateRun(new TextEncoder().encode(sog.metaJson), 0x20, 2) }]),
    },
  );
  return seeds;
}

/**
 * glTF splats: a plain .glb of SH degree 1, one whose views are
 * meshopt-compressed, one of sparse accessors (over a view and over zeros),
 * one of SH degree 2 placed by a node hierarchy that turns, scales its axes
 * unevenly and mirrors, and a .gltf text.
 */
async function gltfSeeds(): Promise<FuzzSeed[]> {
  const plain = await buildGltf([{ attributes: splatAttributes(30, 1), splat: SPLAT_EXTENSION }]);
  const packed = await buildGltf([{ attributes: splatAttributes(40, 0).map((a) => ({ ...a, meshopt: true })), splat: SPLAT_EXTENSION }]);
  const sparse = await buildGltf([{
    attributes: splatAttributes(30, 1).map((a) => {
      if (a.name === 'POSITION') return { ...a, sparse: { indices: Uint8Array.of(2, 9, 29), values: new Float32Array(9).fill(0.5) } };
      if (a.name.endsWith(':OPACITY')) return { ...a, data: new Float32Array(30), sparse: { indices: Uint16Array.of(0, 17), values: Float32Array.of(0.9, 0.4), base: false } };
      return a;
    }),
    splat: SPLAT_EXTENSION,
  }]);
  const placed = await buildGltf([{ attributes: splatAttributes(30, 2), splat: SPLAT_EXTENSION }]);
  placed.json.nodes = [
    { matrix: [0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0, 1, 2, 3, 1], children: [1] },
    { mesh: 0, rotation: [0.5, 0.5, 0.5, 0.5], scale: [2, -1, 0.5] },
  ];
  return [
    { id: 'synthetic-glb-sh1', format: 'glb', name: 't.glb', bytes: glb(plain.json, plain.bin) },
    { id: 'synthetic-glb-meshopt', format: 'glb', name: 'u.glb', bytes: glb(packed.json, packed.bin) },
    { id: 'synthetic-glb-sparse', format: 'glb', name: 'u1.glb', bytes: glb(sparse.json, sparse.bin) },
    { id: 'synthetic-glb-nodes-sh2', format: 'glb', name: 'u2.glb', bytes: glb(placed.json, placed.bin) },
    { id: 'synthetic-gltf-data-uri', format: 'gltf', name: 'v.gltf', bytes: gltfText(plain.json, plain.bin) },
  ];
}

export interface FuzzCase {
  seed: number;
  index: number;
  seedId: string;
  format: SeedFormat;
  name: string;
  bytes: Uint8Array;
  /** What was done, in order. */
  ops: string[];
  /** Streamed with no size and followed by zeros that never end (runLoad's `endless`; a world: one of its files, from a server). */
  endless: boolean;
  /** For a world: the mutant's files and where they are read from. */
  world?: WorldMutant;
}

/** Every ENDLESS_EVERY-th case is an endless stream, whatever its format. */
const ENDLESS_EVERY = 8;

/** The random source of one case: a pure function of (seed, index). */
function caseRandom(seed: number, index: number): Random {
  return rng((Math.imul(seed >>> 0, 0x9e3779b1) ^ Math.imul(index + 1, 0x85ebca6b)) >>> 0);
}

/** The seed file case `index` of run `seed` starts from (the first draw of its random source). */
export function caseSource(corpus: FuzzSeed[], seed: number, index: number): FuzzSeed {
  return corpus[Math.floor(caseRandom(seed, index)() * corpus.length)]!;
}

/** Builds case `index` of run `seed`. */
export async function fuzzCase(corpus: FuzzSeed[], seed: number, index: number): Promise<FuzzCase> {
  const random = caseRandom(seed, index);
  const source = corpus[Math.floor(random() * corpus.length)]!;
  // Chosen by the index, not the random source, so the other cases stay as they were.
  const endless = index % ENDLESS_EVERY === ENDLESS_EVERY - 1;
  if (source.world) {
    const { ops, ...world } = mutateWorld(random, source.world, endless);
    return { seed, index, seedId: source.id, format: source.format, name: source.name, bytes: worldBytes(world.files), ops, endless, world };
  }
  // A SOG scene: mostly edited inside meta.json and its images and zipped again, so that the edit reaches the decoder.
  const { bytes, ops } = source.sog && random() < SOG_INSIDE
    ? await mutateSog(random, source.sog)
    : mutateBytes(random, source, corpus);
  if (endless) ops.push('stream it with no size, then zeros for ever');
  return { seed, index, seedId: source.id, format: source.format, name: source.name, bytes, ops, endless };
}

// ---------------------------------------------------------------------------
// The worker's side of a fuzz job.

let workerCorpus: FuzzSeed[] | undefined;

async function runFuzzJob(seed: number, index: number): Promise<{ outcome: Outcome; info: Record<string, unknown> }> {
  workerCorpus ??= await loadFuzzCorpus();
  const c = await fuzzCase(workerCorpus, seed, index);
  if (c.world) {
    const { outcome, stage } = await runWorldLoad(c.world, `case-${index}`);
    return { outcome, info: { seedId: c.seedId, format: c.format, ops: c.ops, size: c.bytes.length, worldStage: stage } };
  }
  const outcome = await runLoad(c.bytes, c.name, { endless: c.endless });
  // How far a SOG mutant got, told apart by running the bundle's layers on their own (an endless stream is refused by its size).
  const stage = c.format === 'sog' && !c.endless ? sogStage(c.bytes) : undefined;
  return { outcome, info: { seedId: c.seedId, format: c.format, ops: c.ops, size: c.bytes.length, stage } };
}

if (!isMainThread && (workerData as { splatsortHarness?: boolean } | null)?.splatsortHarness === true) {
  void serveHarness(runFuzzJob);
}

// ---------------------------------------------------------------------------
// The main thread's side: a run of many cases over a few workers.

export interface FuzzOptions {
  /** Path of the harness bundle (bench-dist/fuzz.mjs or buildHarness()'s). */
  bundle: string;
  seed: number;
  cases: number;
  /** First case number (default 0). */
  from?: number;
  workers?: number;
  /** A case that does not settle within this is a hang (default 10 s). */
  timeoutMs?: number;
  /** Only the cases whose seed file is of this format (the others are skipped, not counted). */
  format?: SeedFormat;
  /** Called after each case with how many are done, of how many to run (fewer than `cases` with `format`). */
  onCase?: (result: FuzzResult, done: number, total: number) => void;
}

export interface FuzzResult {
  seed: number;
  index: number;
  seedId: string;
  format: SeedFormat | '?';
  ops: string[];
  size: number;
  outcome: Outcome;
  /** For a SOG case (not an endless one): how far it got (fuzz-sog.ts's sogStage). */
  stage?: SogStage;
  /** For a world case: whether its index opened (world-load.ts). */
  worldStage?: WorldStage;
}

export interface FuzzSummary {
  seed: number;
  cases: number;
  seconds: number;
  byOutcome: Record<OutcomeKind, number>;
  byFormat: Record<string, Record<OutcomeKind, number>>;
  slowest: FuzzResult | undefined;
  failures: FuzzResult[];
  /** The most frequent rejection messages (numbers blanked out), with counts. */
  topMessages: [string, number][];
  /** SOG cases (endless ones aside) by how far they got, and outcome. */
  sogStages: Record<SogStage, Record<OutcomeKind, number>>;
  /** The most frequent rejections of SOG cases that reached the decoder. */
  sogDecoderMessages: [string, number][];
  /** World cases by how far they got (refused with their index, or opened), and outcome. */
  worldStages: Record<WorldStage, Record<OutcomeKind, number>>;
  /** The most frequent rejections of world cases whose index opened: of their chunks. */
  worldChunkMessages: [string, number][];
}

const emptyCounts = (): Record<OutcomeKind, number> =>
  ({ accepted: 0, rejected: 0, crash: 0, 'non-finite': 0, 'absurd-alloc': 0, hang: 0 });

/** Runs cases [from, from + cases) of run `seed`; resolves with the summary. */
export async function runFuzz(options: FuzzOptions): Promise<FuzzSummary> {
  const { bundle, seed, cases } = options;
  const from = options.from ?? 0;
  const timeoutMs = options.timeoutMs ?? 10_000;
  for (const { file } of REAL_SCENES) scenePath(file); // fail now, not in every case, when the scenes are missing
  const workers = Array.from({ length: Math.max(1, options.workers ?? 1) },
    () => new HarnessWorker(bundle, { SPLATSORT_SCENES: SCENES_DIR }));
  const started = performance.now();
  const results: FuzzResult[] = [];
  let indices: number[] = Array.from({ length: cases }, (_, i) => from + i);
  if (options.format) {
    const corpus = await loadFuzzCorpus();
    indices = indices.filter((index) => caseSource(corpus, seed, index).format === options.format);
  }
  let next = 0;
  let done = 0;
  try {
    await Promise.all(workers.map(async (worker) => {
      while (next < indices.length) {
        const index = indices[next++]!;
        const reply = await worker.run({ kind: 'fuzz', seed, index }, timeoutMs);
        const info = (reply.info ?? {}) as { seedId?: string; format?: SeedFormat; ops?: string[]; size?: number; stage?: SogStage; worldStage?: WorldStage };
        const result: FuzzResult = {
          seed, index, seedId: info.seedId ?? '?', format: info.format ?? '?', ops: info.ops ?? [], size: info.size ?? 0,
          outcome: reply.outcome, stage: info.stage, worldStage: info.worldStage,
        };
        results.push(result);
        options.onCase?.(result, ++done, indices.length);
      }
    }));
  } finally {
    await Promise.all(workers.map((w) => w.close()));
  }
  results.sort((a, b) => a.index - b.index);
  return summarise(seed, results, (performance.now() - started) / 1000);
}

/** Rejection messages with numbers and quoted text blanked out, by count, the most frequent first. */
function messageCounts(results: FuzzResult[], most: number): [string, number][] {
  const messages = new Map<string, number>();
  for (const r of results) {
    if (r.outcome.kind !== 'rejected') continue;
    // Numbers inside names ('sh0.webp', UTF-8) are kept.
    const key = (r.outcome.message ?? '').replace(/(?<![\w.-])-?\d[\d,.e+]*/g, 'N').replace(/"[^"]*"/g, '"…"').slice(0, 110);
    messages.set(key, (messages.get(key) ?? 0) + 1);
  }
  return [...messages].sort((a, b) => b[1] - a[1]).slice(0, most);
}

function summarise(seed: number, results: FuzzResult[], seconds: number): FuzzSummary {
  const byOutcome = emptyCounts();
  const byFormat: Record<string, Record<OutcomeKind, number>> = {};
  const sogStages = { zip: emptyCounts(), json: emptyCounts(), meta: emptyCounts(), decoder: emptyCounts() };
  const worldStages = { index: emptyCounts(), chunks: emptyCounts() };
  let slowest: FuzzResult | undefined;
  for (const r of results) {
    byOutcome[r.outcome.kind]++;
    (byFormat[r.format] ??= emptyCounts())[r.outcome.kind]++;
    if (r.stage) sogStages[r.stage][r.outcome.kind]++;
    if (r.worldStage) worldStages[r.worldStage][r.outcome.kind]++;
    if (r.outcome.kind !== 'hang' && (!slowest || r.outcome.ms > slowest.outcome.ms)) slowest = r;
  }
  const failures = results.filter((r) => FAILURES.includes(r.outcome.kind));
  return {
    seed, cases: results.length, seconds, byOutcome, byFormat, slowest, failures, topMessages: messageCounts(results, 12),
    sogStages, sogDecoderMessages: messageCounts(results.filter((r) => r.stage === 'decoder'), 12),
    worldStages, worldChunkMessages: messageCounts(results.filter((r) => r.worldStage === 'chunks'), 12),
  };
}

/** One line for a case: how to reproduce it, what was done, what happened. */
export function describeResult(r: FuzzResult): string {
  const o = r.outcome;
  return `seed ${r.seed} case ${r.index} [${r.seedId}, ${r.size} bytes; ${r.ops.join('; ')}]: ` +
    `${o.kind}${o.errorName ? ` ${o.errorName}` : ''}${o.message ? `: ${o.message}` : ''} (${o.ms.toFixed(0)} ms)`;
}

export function formatSummary(s: FuzzSummary): string {
  const lines: string[] = [];
  const counts = (c: Record<OutcomeKind, number>): string =>
    Object.entries(c).filter(([, n]) => n > 0).map(([k, n]) => `${k} ${n}`).join(', ') || 'none';
  lines.push(`fuzz: seed ${s.seed}, ${s.cases} cases in ${s.seconds.toFixed(1)} s`);
  lines.push(`  outcomes: ${counts(s.byOutcome)}`);
  for (const [format, c] of Object.entries(s.byFormat).sort()) lines.push(`  ${format.padEnd(15)} ${counts(c)}`);
  if (s.slowest) lines.push(`  slowest: ${describeResult(s.slowest)}`);
  if (s.topMessages.length > 0) {
    lines.push('  most frequent rejections:');
    for (const [m, n] of s.topMessages) lines.push(`    ${String(n).padStart(6)}  ${m}`);
  }
  const total = (c: Record<OutcomeKind, number>): number => Object.values(c).reduce((a, b) => a + b, 0);
  const sogCases = Object.values(s.sogStages).reduce((n, c) => n + total(c), 0);
  if (sogCases > 0) {
    lines.push(`  sog cases (endless ones aside): ${sogCases}`);
    for (const [stage, c] of Object.entries(s.sogStages) as [SogStage, Record<OutcomeKind, number>][]) {
      lines.push(`    ${SOG_STAGE_NAMES[stage].padEnd(32)} ${String(total(c)).padStart(6)}  (${counts(c)})`);
    }
    lines.push('  most frequent rejections past meta.json (in the decoder, or by validation):');
    for (const [m, n] of s.sogDecoderMessages) lines.push(`    ${String(n).padStart(6)}  ${m}`);
  }
  const worldCases = total(s.worldStages.index) + total(s.worldStages.chunks);
  if (worldCases > 0) {
    lines.push(`  world cases: ${worldCases}`);
    lines.push(`    ${'refused with its index'.padEnd(32)} ${String(total(s.worldStages.index)).padStart(6)}  (${counts(s.worldStages.index)})`);
    lines.push(`    ${'opened, its chunks read'.padEnd(32)} ${String(total(s.worldStages.chunks)).padStart(6)}  (${counts(s.worldStages.chunks)})`);
    lines.push('  most frequent rejections of a chunk:');
    for (const [m, n] of s.worldChunkMessages) lines.push(`    ${String(n).padStart(6)}  ${m}`);
  }
  if (s.failures.length === 0) {
    lines.push('  failures: none');
  } else {
    lines.push(`  FAILURES (${s.failures.length}): reproduce one with node scripts/fuzz.mjs --seed S --case N --write case.bin`);
    const shown = 25;
    for (const f of s.failures.slice(0, shown)) {
      lines.push(`    ${describeResult(f)}`);
      if (f.outcome.stack && f.outcome.kind === 'crash') lines.push(`      ${f.outcome.stack.split('\n').slice(0, 4).join('\n      ')}`);
    }
    if (s.failures.length > shown) lines.push(`    ... and ${s.failures.length - shown} more`);
  }
  return lines.join('\n');
}
