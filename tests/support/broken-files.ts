/**
 * The broken-file corpus's common ground (tests/unit/broken-files-*.test.ts):
 * each file is loaded the way the viewer loads files (loadSplatFile, then
 * validateSplatCloud) in a worker thread with a time limit and an
 * allocation meter (tests/support/loader-harness.ts), and must end in a
 * SplatFormatError whose message says what is wrong: never a RangeError or
 * TypeError, never a hang, never an absurd allocation for a lying count.
 * Also here: the real scenes the broken files are made from, and the byte
 * edits that break them.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect } from 'vitest';
import { scenePath, SCENES_DIR } from '../shared-scenes';
import { buildHarness, removeHarness } from './build-harness';
import { HarnessWorker, type Outcome } from './loader-harness';
import { ascii, concat, plyDataStart } from './splat-files';

/** A case that has not settled after this long is a hang. */
const CASE_MS = 5_000;
/** Per-test timeout: the case's limit plus room to replace a hung worker. */
export const IT_MS = CASE_MS + 10_000;
/** Lying counts must be refused before anything big is allocated. */
export const SMALL_ALLOCATION = 8 * 2 ** 20;

export function read(name: string): Uint8Array {
  return new Uint8Array(readFileSync(scenePath(name)));
}

// The real scenes, read at collection time (the truncation cases are made from their sizes).
export const PLY = read('inria_kacytran_iter7000_9k_sh3.ply');
export const CPLY = read('playcanvas_biker.compressed.ply');
export const SPZ = read('playcanvas_biker_v4.spz');
export const SPLAT = read('justdealman_model.splat');

export const HEADER_TRUNCATED = /PLY header is truncated|ends before the "end_header"/;
export const PLY_TRUNCATED = /truncated|larger than the data/;
export const SPZ_TRUNCATED = /SPZ data is truncated/;
export const NOT_RECOGNISED = /Unrecognised splat file/;

export function show(o: Outcome): string {
  return `${o.kind}${o.errorName ? ` (${o.errorName})` : ''}${o.message ? `: ${o.message}` : ''}`;
}

/** Loads of the file's cases, in the worker the file starts in beforeAll and closes in afterAll. */
export interface LoaderHarness {
  load(bytes: Uint8Array, name: string): Promise<Outcome>;
  /** Loads in the harness; expects a SplatFormatError whose message matches `pattern`. */
  expectRejected(bytes: Uint8Array, name: string, pattern: RegExp): Promise<Outcome>;
  expectAccepted(bytes: Uint8Array, name: string): Promise<Outcome>;
}

/** The file's loader worker (its bundle built once for the file): call at the top of a test file. */
export function useLoaderHarness(): LoaderHarness {
  let bundle: string | undefined;
  let harness: HarnessWorker | undefined;
  beforeAll(async () => {
    bundle = await buildHarness();
    harness = new HarnessWorker(bundle, { SPLATSORT_SCENES: SCENES_DIR });
  }, 120_000);
  afterAll(async () => {
    await harness?.close();
    if (bundle) removeHarness(bundle);
  });

  const load = async (bytes: Uint8Array, name: string): Promise<Outcome> => {
    if (!harness) throw new Error('the loader harness was used outside its file\'s tests');
    return (await harness.run({ kind: 'load', bytes, name }, CASE_MS)).outcome;
  };
  return {
    load,
    async expectRejected(bytes, name, pattern) {
      const o = await load(bytes, name);
      expect(show(o)).toMatch(/^rejected \(SplatFormatError\): /);
      expect(o.message).toMatch(pattern);
      return o;
    },
    async expectAccepted(bytes, name) {
      const o = await load(bytes, name);
      expect(show(o)).toMatch(/^accepted/);
      return o;
    },
  };
}

/** A copy of `bytes` with a little-endian uint32 / uint64 / byte changed. */
export function withU32(bytes: Uint8Array, at: number, value: number): Uint8Array {
  const out = bytes.slice();
  new DataView(out.buffer).setUint32(at, value, true);
  return out;
}
export function withU64(bytes: Uint8Array, at: number, value: bigint): Uint8Array {
  const out = bytes.slice();
  new DataView(out.buffer).setBigUint64(at, value, true);
  return out;
}
export function withByte(bytes: Uint8Array, at: number, value: number): Uint8Array {
  const out = bytes.slice();
  out[at] = value;
  return out;
}

/** A ply whose header text is edited (first match of `from` replaced). */
export function editHeader(bytes: Uint8Array, from: string | RegExp, to: string): Uint8Array {
  const start = plyDataStart(bytes);
  const header = new TextDecoder('latin1').decode(bytes.subarray(0, start));
  const edited = header.replace(from, to);
  if (edited === header) throw new Error(`header has no ${from}`);
  return concat(ascii(edited), bytes.subarray(start));
}
