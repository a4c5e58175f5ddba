/**
 * The splat loader fuzzer (tests/support/fuzz.ts), a few hundred seeded
 * cases: every mutant of the real and synthetic files must either load into
 * a finite, valid cloud or be refused with a SplatFormatError, in time and
 * without an absurd allocation. Longer runs: `npm run fuzz -- --cases 10000`.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCENES_DIR, scenePath } from '../shared-scenes';
import { buildHarness, removeHarness } from '../support/build-harness';
import {
  describeResult, formatSummary, fuzzCase, HarnessWorker, loadFuzzCorpus, runFuzz, type FuzzSeed,
} from '../support/fuzz';

const SEED = 20_240_611;
const CASES = 600;
/** Case numbers whose world cases run (a world seed is drawn by about one case in sixteen). */
const WORLD_CASES = 2400;

let bundle: string;
let corpus: FuzzSeed[];
beforeAll(async () => {
  bundle = await buildHarness();
  corpus = await loadFuzzCorpus();
}, 120_000);
afterAll(() => {
  if (bundle) removeHarness(bundle);
});

describe('the loader fuzzer', () => {
  it('builds each case from (seed, case number) alone', async () => {
    const again = await loadFuzzCorpus();
    for (const index of [0, 1, 57, 299]) {
      const a = await fuzzCase(corpus, SEED, index);
      const b = await fuzzCase(again, SEED, index);
      expect(b.ops).toEqual(a.ops);
      expect(b.seedId).toBe(a.seedId);
      expect(Buffer.from(b.bytes).equals(Buffer.from(a.bytes))).toBe(true);
    }
    expect((await fuzzCase(corpus, SEED + 1, 0)).ops).not.toEqual((await fuzzCase(corpus, SEED, 0)).ops);
  });

  it('changes the file in almost every case and draws on every seed file', async () => {
    const seen = new Set<string>();
    let unchanged = 0;
    for (let index = 0; index < CASES; index++) {
      const c = await fuzzCase(corpus, SEED, index);
      seen.add(c.seedId);
      const source = corpus.find((s) => s.id === c.seedId)!;
      if (Buffer.from(c.bytes).equals(Buffer.from(source.bytes))) unchanged++;
    }
    expect(seen.size).toBe(corpus.length);
    expect(unchanged).toBeLessThan(CASES * 0.05);
  });

  it('reports a case that does not settle in time as a hang, and goes on with a fresh worker', async () => {
    const worker = new HarnessWorker(bundle, { SPLATSORT_SCENES: SCENES_DIR });
    try {
      const spz = new Uint8Array(readFileSync(scenePath('playcanvas_biker_v4.spz')));
      const slow = await worker.run({ kind: 'load', bytes: spz, name: 'biker.spz' }, 1);
      expect(slow.outcome.kind).toBe('hang');
      const next = await worker.run({ kind: 'load', bytes: new Uint8Array(0), name: 'empty.splat' }, 10_000);
      expect(next.outcome.kind).toBe('rejected');
      expect(next.outcome.errorName).toBe('SplatFormatError');
    } finally {
      await worker.close();
    }
  }, 60_000);

  it(`runs ${CASES} seeded cases with no crash, hang, non-finite result or absurd allocation`, async () => {
    const summary = await runFuzz({ bundle, seed: SEED, cases: CASES, workers: 1, timeoutMs: 10_000 });
    console.log(formatSummary(summary));
    expect(summary.cases).toBe(CASES);
    expect(summary.failures.map(describeResult)).toEqual([]);
    // The mutants exercise the parsers rather than only the format detection.
    expect(summary.byOutcome.rejected).toBeGreaterThan(CASES / 3);
    expect(summary.byOutcome.accepted).toBeGreaterThan(CASES / 20);
    // SOG mutants get past the zip layer and meta.json's checks into the decoder, where some load and some are refused.
    const sog = Object.values(summary.sogStages).map((c) => Object.values(c).reduce((a, b) => a + b, 0));
    const decoder = summary.sogStages.decoder;
    expect(decoder.accepted + decoder.rejected).toBeGreaterThan(sog.reduce((a, b) => a + b, 0) / 5);
    expect(decoder.accepted).toBeGreaterThan(5);
    expect(decoder.rejected).toBeGreaterThan(5);
  }, 120_000);

  it(`reads the world cases among ${WORLD_CASES} from a server and a folder, refusing every hostile one by name`, async () => {
    const summary = await runFuzz({ bundle, seed: SEED, cases: WORLD_CASES, workers: 1, timeoutMs: 10_000, format: 'world' });
    console.log(formatSummary(summary));
    expect(summary.failures.map(describeResult)).toEqual([]);
    // Some mutants still load (an edit the world survives); most are refused, by the index's checks or a chunk's.
    const { index, chunks } = summary.worldStages;
    expect(index.rejected).toBeGreaterThan(summary.cases / 4);
    expect(chunks.accepted).toBeGreaterThan(5);
    expect(chunks.rejected).toBeGreaterThan(summary.cases / 10);
    // Every refusal names what it refused: the index, or the chunk (whichever are the most frequent in this sample).
    expect(summary.topMessages.filter(([m]) => !/^(lod-meta\.json|chunk [^:]*): /.test(m))).toEqual([]);
    expect(summary.worldChunkMessages.length).toBeGreaterThan(0);
    expect(summary.worldChunkMessages.every(([m]) => /^chunk [^:]*: /.test(m))).toBe(true);
  }, 120_000);
});
