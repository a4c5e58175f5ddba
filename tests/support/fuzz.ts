/**
 * The loader fuzzer: mutates real and synthetic splat files (bit flips, byte
 * sets, chunk deletes and duplications, truncations, header number and token
 * edits, special floats, splices between files), loads each mutant the way
 * the viewer does (loadSplatFile, then validateSplatCloud) in a worker with a
 * time limit, and reports every outcome that is not "accepted" or "rejected
 * with a SplatFormatError" (see loader-harness.ts).
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
import {
  compressedPly, concat, gzip, inriaPly, plyDataStart, rng, spzPayload, spzV4, spzV4Streams, splatFile,
} from './splat-files';

import { deflateRun, gzipRun, sogWith, spzHeader } from './bombs';
import { writeKsplat } from './ksplat-writer';
import { bundleSog, writeSog } from './sog-writer';
import { parseSplatPly } from '../../src/io/ply';
import type { SplatFormatId } from '../../src/io/formats/index';

export { HarnessWorker, runLoad, type Outcome } from './loader-harness';

/** The formats read from one file's bytes (a SOG meta.json's images are fuzzed inside .sog bundles). */
export type SeedFormat = Exclude<SplatFormatId, 'sog-meta'>;

export interface FuzzSeed {
  id: string;
  format: SeedFormat;
  /** The name passed to loadSplatFile (decides .splat detection). */
  name: string;
  bytes: Uint8Array;
  /** For a gzip-wrapped spz: the payload inside, which most mutations edit before re-wrapping. */
  gzipPayload?: Uint8Array;
}

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
  const spz3 = spzPayload({ version: 3, count: 40, shDegree: 0 });
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
    { id: 'synthetic-sog-stored', format: 'sog', name: 'm.sog', bytes: bundleSog(sog) },
    { id: 'synthetic-sog-deflated', format: 'sog', name: 'n.sog', bytes: bundleSog(sog, { deflate: true, folder: 'scene' }) },
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

// ---------------------------------------------------------------------------
// Mutations.

type Random = () => number;

const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const int = (random: Random, lo: number, hi: number): number => lo + Math.floor(random() * (hi - lo + 1));

/** Offsets where the sections of a file begin: header fields, elements, streams. */
function boundaries(seed: FuzzSeed, bytes: Uint8Array): number[] {
  const out = [0, bytes.length];
  try {
    if (seed.format === 'ply' || seed.format === 'compressed-ply') {
      const start = plyDataStart(bytes);
      out.push(start);
      if (seed.format === 'compressed-ply') {
        const text = new TextDecoder('latin1').decode(bytes.subarray(0, start));
        const chunks = Number(/element chunk (\d+)/.exec(text)?.[1] ?? 0);
        const vertices = Number(/element vertex (\d+)/.exec(text)?.[1] ?? 0);
        out.push(start + chunks * 72, start + chunks * 72 + vertices * 16);
      }
    } else if (seed.format === 'spz' && bytes[0] === 0x4e && bytes[4] === 4) {
      out.push(16, 32);
      for (const s of spzV4Streams(bytes)) out.push(s.start, s.end);
    } else if (seed.format === 'spz') {
      out.push(16);
    }
  } catch {
    // a mutant whose sections cannot be found: the ends will do
  }
  return out.filter((b) => b >= 0 && b <= bytes.length);
}

const SPECIAL_FLOATS = [NaN, Infinity, -Infinity, 1e30, -1e30, 1000, -1000, 88.8, 3.4e38, 1e-45, -0, 2 ** 33];

/** Writes special float32s at 4-byte steps of the data section (where floats live in ply and .splat). */
function pokeFloats(random: Random, seed: FuzzSeed, bytes: Uint8Array): string {
  let start = 0;
  if (seed.format === 'ply' || seed.format === 'compressed-ply') {
    try {
      start = plyDataStart(bytes);
    } catch {
      start = 0;
    }
  }
  if (bytes.length - start < 4) return 'floats: no room';
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = int(random, 1, 4);
  const notes: string[] = [];
  for (let k = 0; k < n; k++) {
    const at = start + 4 * Math.floor(random() * Math.floor((bytes.length - start) / 4));
    const v = pick(random, SPECIAL_FLOATS);
    view.setFloat32(at, v, true);
    notes.push(`${v}@${at}`);
  }
  return `floats ${notes.join(' ')}`;
}

const NUMBER_EDITS: readonly ((n: number, random: Random) => string)[] = [
  (n, r) => String(n * 2 ** int(r, 1, 40)),
  (n, r) => String(Math.floor(n / 2 ** int(r, 1, 20))),
  (n) => String(n + 1),
  (n) => String(n - 1),
  () => '0',
  () => '-1',
  () => String(2 ** 32),
  () => String(2 ** 53),
  () => '1e3',
  () => '0x10',
  () => 'NaN',
  () => '',
  () => '1.5',
  (n) => `${n}0`,
];

/** Edits one number of a ply header (element counts, the format version). */
function plyNumberEdit(random: Random, bytes: Uint8Array): { bytes: Uint8Array; note: string } {
  let start: number;
  try {
    start = plyDataStart(bytes);
  } catch {
    start = Math.min(bytes.length, 4096);
  }
  const header = new TextDecoder('latin1').decode(bytes.subarray(0, start));
  const numbers = [...header.matchAll(/(?<=element \S+ )\d+|\d+\.\d+/g)];
  if (numbers.length === 0) return { bytes, note: 'numbers: none' };
  const m = pick(random, numbers);
  const replacement = pick(random, NUMBER_EDITS)(Number(m[0]), random);
  const edited = header.slice(0, m.index) + replacement + header.slice(m.index! + m[0].length);
  return {
    bytes: concat(new Uint8Array([...edited].map((c) => c.charCodeAt(0) & 0xff)), bytes.subarray(start)),
    note: `number ${m[0]}→"${replacement}"@${m.index}`,
  };
}

const U32_EDITS: readonly ((v: number, random: Random) => number)[] = [
  (v, r) => v * 2 ** int(r, 1, 12),
  (v, r) => Math.floor(v / 2 ** int(r, 1, 12)),
  (v) => v + 1,
  (v) => v - 1,
  () => 0,
  () => 0xffffffff,
  () => 10_000_001,
  (_, r) => Math.floor(r() * 2 ** 32),
];

/** Edits one header / table field of an spz payload (count, version, SH degree, bits, streams, table sizes, zstd frame header). */
function spzFieldEdit(random: Random, data: Uint8Array): string {
  if (data.length < 16) return 'spz field: too short';
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const u32 = (at: number, label: string): string => {
    const old = view.getUint32(at, true);
    const v = pick(random, U32_EDITS)(old, random);
    view.setUint32(at, ((v % 2 ** 32) + 2 ** 32) % 2 ** 32, true);
    return `${label} ${old}→${view.getUint32(at, true)}`;
  };
  const byte = (at: number, label: string, values: number[]): string => {
    const old = data[at]!;
    data[at] = pick(random, values);
    return `${label} ${old}→${data[at]}`;
  };
  const fields: (() => string)[] = [
    () => u32(8, 'count'),
    () => u32(8, 'count'),
    () => byte(4, 'version', [0, 1, 2, 3, 4, 5, 255]),
    () => byte(12, 'SH degree', [0, 1, 2, 3, 4, 255]),
    () => byte(13, 'fractional bits', [0, 8, 12, 23, 24, 31, 255]),
  ];
  if (view.getUint32(4, true) === 4 && data.length >= 32) {
    const streams = data[15]!;
    const toc = view.getUint32(16, true);
    fields.push(() => byte(15, 'streams', [0, 1, 4, 5, 6, 7, 255]));
    fields.push(() => u32(16, 'toc offset'));
    if (toc + streams * 16 <= data.length) {
      const u64 = (at: number, label: string): string => {
        const old = view.getBigUint64(at, true);
        const edits = [old * 2n, old / 2n, old + 1n, old - 1n, 0n, 2n ** 53n, 2n ** 63n, old * 1024n];
        const v = pick(random, edits);
        view.setBigUint64(at, BigInt.asUintN(64, v), true);
        return `${label} ${old}→${view.getBigUint64(at, true)}`;
      };
      const s = int(random, 0, Math.max(0, streams - 1));
      fields.push(() => u64(toc + s * 16, `stream ${s} compressed size`));
      fields.push(() => u64(toc + s * 16 + 8, `stream ${s} raw size`));
      // The zstd frame header of a stream: its flags byte and content size.
      const frame = spzV4Streams(data)[s];
      if (frame && frame.start + 9 <= data.length) {
        fields.push(() => byte(frame.start + 4, `stream ${s} zstd flags`, [0x00, 0x20, 0x40, 0x60, 0x80, 0xa0, 0xc0, 0xe0, 0x24]));
        fields.push(() => u32(frame.start + 5, `stream ${s} zstd content size`));
      }
    }
  }
  return pick(random, fields)();
}

const PLY_TOKENS = [
  'float', 'double', 'uchar', 'char', 'int', 'uint', 'short', 'list', 'float32', 'int8', 'toString', '__proto__', 'constructor',
  'element', 'property', 'end_header', 'comment', 'format', 'ascii', 'binary_big_endian', 'binary_little_endian',
  'vertex', 'chunk', 'sh', 'x', 'opacity', 'scale_0', 'rot_0', 'f_dc_0', 'f_rest_0', 'f_rest_44', 'f_rest_45', 'packed_position',
  '0', '1', '-1', '1e3', '4294967296', '9007199254740992', '',
];

/** Replaces, deletes, duplicates or swaps words and lines of a ply header. */
function plyTokenEdit(random: Random, bytes: Uint8Array): { bytes: Uint8Array; note: string } {
  let start: number;
  try {
    start = plyDataStart(bytes);
  } catch {
    start = Math.min(bytes.length, 4096);
  }
  const lines = new TextDecoder('latin1').decode(bytes.subarray(0, start)).split('\n');
  const last = lines.length - 2; // the line before the final ""
  const i = int(random, 1, Math.max(1, last));
  let note: string;
  switch (int(random, 0, 3)) {
    case 0: {
      const words = (lines[i] ?? '').split(' ');
      // Half the time on a property line, its type: where a reader looks a name up in a table.
      const w = words[0] === 'property' && words.length > 2 && random() < 0.5 ? words.length - 2 : int(random, 0, words.length - 1);
      const token = pick(random, PLY_TOKENS);
      note = `token ${words[w]}→${token} in line ${i}`;
      words[w] = token;
      lines[i] = words.join(' ');
      break;
    }
    case 1:
      note = `delete line ${i} "${lines[i]}"`;
      lines.splice(i, 1);
      break;
    case 2:
      note = `duplicate line ${i} "${lines[i]}"`;
      lines.splice(i, 0, lines[i] ?? '');
      break;
    default: {
      const j = int(random, 1, Math.max(1, last));
      note = `swap lines ${i} and ${j}`;
      [lines[i], lines[j]] = [lines[j] ?? '', lines[i] ?? ''];
    }
  }
  const text = lines.join('\n');
  return { bytes: concat(new Uint8Array([...text].map((c) => c.charCodeAt(0) & 0xff)), bytes.subarray(start)), note };
}

type Mutation = (random: Random, seed: FuzzSeed, bytes: Uint8Array, corpus: FuzzSeed[]) => { bytes: Uint8Array; note: string };

/** A position, half the time inside the first 512 bytes (headers, tables), else anywhere. */
function position(random: Random, length: number): number {
  const span = random() < 0.5 ? Math.min(length, 512) : length;
  return Math.floor(random() * span);
}

const MUTATIONS: Record<string, Mutation> = {
  flip(random, _seed, bytes) {
    const n = int(random, 1, 8);
    const at: number[] = [];
    for (let k = 0; k < n && bytes.length > 0; k++) {
      const p = position(random, bytes.length);
      bytes[p] = bytes[p]! ^ (1 << int(random, 0, 7));
      at.push(p);
    }
    return { bytes, note: `flip bits @${at.join(',')}` };
  },
  set(random, _seed, bytes) {
    const n = int(random, 1, 16);
    const value = pick(random, [0, 0xff, -1]);
    const at: number[] = [];
    for (let k = 0; k < n && bytes.length > 0; k++) {
      const p = position(random, bytes.length);
      bytes[p] = value < 0 ? int(random, 0, 255) : value;
      at.push(p);
    }
    return { bytes, note: `set bytes to ${value < 0 ? 'random' : value} @${at.join(',')}` };
  },
  delete(random, _seed, bytes) {
    if (bytes.length < 2) return { bytes, note: 'delete: too short' };
    const at = position(random, bytes.length);
    const len = int(random, 1, Math.max(1, Math.min(4096, (bytes.length - at) >> 1)));
    return { bytes: concat(bytes.subarray(0, at), bytes.subarray(at + len)), note: `delete ${len} bytes @${at}` };
  },
  duplicate(random, _seed, bytes) {
    if (bytes.length < 2) return { bytes, note: 'duplicate: too short' };
    const from = position(random, bytes.length);
    const len = int(random, 1, Math.max(1, Math.min(4096, bytes.length - from)));
    const to = position(random, bytes.length);
    const chunk = bytes.slice(from, from + len);
    return { bytes: concat(bytes.subarray(0, to), chunk, bytes.subarray(to)), note: `duplicate ${len} bytes @${from} to @${to}` };
  },
  truncate(random, seed, bytes) {
    const marks = boundaries(seed, bytes);
    const r = random();
    const cut = r < 0.4 ? Math.floor(random() * bytes.length)
      : r < 0.7 ? Math.floor(random() * Math.min(bytes.length, 1024))
      : Math.max(0, Math.min(bytes.length - 1, pick(random, marks) + int(random, -3, 3)));
    return { bytes: bytes.subarray(0, cut), note: `truncate to ${cut} of ${bytes.length}` };
  },
  numbers(random, seed, bytes) {
    if (seed.format === 'ply' || seed.format === 'compressed-ply') return plyNumberEdit(random, bytes);
    if (seed.format === 'spz') return { bytes, note: spzFieldEdit(random, bytes) };
    return { bytes, note: pokeFloats(random, seed, bytes) };
  },
  tokens(random, seed, bytes) {
    if (seed.format === 'ply' || seed.format === 'compressed-ply') return plyTokenEdit(random, bytes);
    return MUTATIONS.set!(random, seed, bytes, []);
  },
  floats(random, seed, bytes) {
    return { bytes, note: pokeFloats(random, seed, bytes) };
  },
  splice(random, seed, bytes, corpus) {
    const other = pick(random, corpus);
    const cut = position(random, bytes.length);
    const from = position(random, other.bytes.length);
    return {
      bytes: concat(bytes.subarray(0, cut), other.bytes.subarray(from)),
      note: `splice ${seed.id}[0, ${cut}) + ${other.id}[${from}, end)`,
    };
  },
};

const WEIGHTS: readonly [string, number][] = [
  ['flip', 14], ['set', 12], ['delete', 8], ['duplicate', 6], ['truncate', 14],
  ['numbers', 16], ['tokens', 10], ['floats', 10], ['splice', 4], ['stack', 6],
];
const WEIGHT_TOTAL = WEIGHTS.reduce((n, [, w]) => n + w, 0);

function pickMutation(random: Random, allowStack: boolean): string {
  for (;;) {
    let r = random() * WEIGHT_TOTAL;
    for (const [name, w] of WEIGHTS) {
      r -= w;
      if (r < 0) {
        if (name === 'stack' && !allowStack) break;
        return name;
      }
    }
  }
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
  /** Streamed with no size and followed by zeros that never end (runLoad's `endless`). */
  endless: boolean;
}

/** Every ENDLESS_EVERY-th case is an endless stream, whatever its format. */
const ENDLESS_EVERY = 8;

/** The random source of one case: a pure function of (seed, index). */
function caseRandom(seed: number, index: number): Random {
  return rng((Math.imul(seed >>> 0, 0x9e3779b1) ^ Math.imul(index + 1, 0x85ebca6b)) >>> 0);
}

/** Builds case `index` of run `seed`. */
export function fuzzCase(corpus: FuzzSeed[], seed: number, index: number): FuzzCase {
  const random = caseRandom(seed, index);
  const source = corpus[Math.floor(random() * corpus.length)]!;
  const first = pickMutation(random, true);
  const names = first === 'stack'
    ? Array.from({ length: int(random, 2, 3) }, () => pickMutation(random, false))
    : [first];
  // A gzip-wrapped spz: usually edit the payload and wrap it again, so that
  // the edit reaches the spz parser rather than only breaking the gzip stream.
  const inner = source.gzipPayload !== undefined && random() < 0.75;
  let bytes: Uint8Array = (inner ? source.gzipPayload! : source.bytes).slice();
  const ops: string[] = [];
  for (const name of names) {
    const result = MUTATIONS[name]!(random, source, bytes, corpus);
    bytes = result.bytes;
    ops.push(result.note);
  }
  if (inner) {
    bytes = gzip(bytes);
    ops.push('gzip the edited payload');
  }
  // Chosen by the index, not the random source, so the other cases stay as they were.
  const endless = index % ENDLESS_EVERY === ENDLESS_EVERY - 1;
  if (endless) ops.push('stream it with no size, then zeros for ever');
  return { seed, index, seedId: source.id, format: source.format, name: source.name, bytes, ops, endless };
}

// ---------------------------------------------------------------------------
// The worker's side of a fuzz job.

let workerCorpus: FuzzSeed[] | undefined;

async function runFuzzJob(seed: number, index: number): Promise<{ outcome: Outcome; info: Record<string, unknown> }> {
  workerCorpus ??= await loadFuzzCorpus();
  const c = fuzzCase(workerCorpus, seed, index);
  const outcome = await runLoad(c.bytes, c.name, { endless: c.endless });
  return { outcome, info: { seedId: c.seedId, format: c.format, ops: c.ops, size: c.bytes.length } };
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
  onCase?: (result: FuzzResult, done: number) => void;
}

export interface FuzzResult {
  seed: number;
  index: number;
  seedId: string;
  format: SeedFormat | '?';
  ops: string[];
  size: number;
  outcome: Outcome;
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
  let next = from;
  let done = 0;
  try {
    await Promise.all(workers.map(async (worker) => {
      while (next < from + cases) {
        const index = next++;
        const reply = await worker.run({ kind: 'fuzz', seed, index }, timeoutMs);
        const info = (reply.info ?? {}) as { seedId?: string; format?: SeedFormat; ops?: string[]; size?: number };
        const result: FuzzResult = {
          seed, index, seedId: info.seedId ?? '?', format: info.format ?? '?', ops: info.ops ?? [], size: info.size ?? 0,
          outcome: reply.outcome,
        };
        results.push(result);
        options.onCase?.(result, ++done);
      }
    }));
  } finally {
    await Promise.all(workers.map((w) => w.close()));
  }
  results.sort((a, b) => a.index - b.index);
  return summarise(seed, results, (performance.now() - started) / 1000);
}

function summarise(seed: number, results: FuzzResult[], seconds: number): FuzzSummary {
  const byOutcome = emptyCounts();
  const byFormat: Record<string, Record<OutcomeKind, number>> = {};
  const messages = new Map<string, number>();
  let slowest: FuzzResult | undefined;
  for (const r of results) {
    byOutcome[r.outcome.kind]++;
    (byFormat[r.format] ??= emptyCounts())[r.outcome.kind]++;
    if (r.outcome.kind !== 'hang' && (!slowest || r.outcome.ms > slowest.outcome.ms)) slowest = r;
    if (r.outcome.kind === 'rejected') {
      const key = (r.outcome.message ?? '').replace(/-?\d[\d,.e+]*/g, 'N').replace(/"[^"]*"/g, '"…"').slice(0, 110);
      messages.set(key, (messages.get(key) ?? 0) + 1);
    }
  }
  const failures = results.filter((r) => FAILURES.includes(r.outcome.kind));
  const topMessages = [...messages].sort((a, b) => b[1] - a[1]).slice(0, 12);
  return { seed, cases: results.length, seconds, byOutcome, byFormat, slowest, failures, topMessages };
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
