/**
 * The runs a world's frame marks drawn in its pool
 * (src/app/world/world-pool-runs.ts): a run that goes on from the one
 * before it in the same chunk at the same opacity is joined to it, and no
 * other; a run whose chunk is gone is left out; the splats drawn are the
 * same set as the fades' runs cover, whatever joins; the records are kept
 * from frame to frame, with one spare after them.
 */
import { describe, expect, test } from 'vitest';
import { PoolRuns } from '../../src/app/world/world-pool-runs';
import type { PooledChunk } from '../../src/scene/splat-pool';
import { random } from '../support/up-scenes';

const chunks = [0, 1, 2, 3].map((file): PooledChunk => ({ count: 1000, pages: [file] }));
const chunkOf = (file: number): PooledChunk | undefined => chunks[file];

/** A run to draw at an opacity. */
interface Faded {
  file: number;
  offset: number;
  count: number;
  opacity: number;
}

function faded(file: number, offset: number, count: number, opacity = 1): Faded {
  return { file, offset, count, opacity };
}

/** Fills `runs` from `list` as the fades give it, by run number: the list's runs laid out in a table backwards. */
function fill(runs: PoolRuns, list: Faded[], of = chunkOf): number {
  const backwards = [...list].reverse();
  const table = {
    runFiles: Int32Array.from(backwards, (r) => r.file),
    runOffsets: Float64Array.from(backwards, (r) => r.offset),
    runCounts: Float64Array.from(backwards, (r) => r.count),
  };
  return runs.fill(Int32Array.from(list, (_, i) => list.length - 1 - i), Float64Array.from(list, (r) => r.opacity), list.length, table, of);
}

/** The runs as [file, offset, count, opacity]. */
function filled(runs: PoolRuns, list: Faded[], of = chunkOf): [number, number, number, number][] {
  const n = fill(runs, list, of);
  return runs.records.slice(0, n).map((r) => [chunks.indexOf(r.chunk), r.offset, r.count, r.opacity ?? 1]);
}

describe('pool runs', () => {
  test('runs end to end in one chunk at one opacity are joined; a gap, another chunk or another opacity starts a new one', () => {
    const runs = new PoolRuns();
    expect(filled(runs, [faded(0, 0, 10), faded(0, 10, 5), faded(0, 15, 20)])).toEqual([[0, 0, 35, 1]]);
    expect(filled(runs, [faded(0, 0, 10), faded(0, 11, 5)])).toEqual([[0, 0, 10, 1], [0, 11, 5, 1]]);
    expect(filled(runs, [faded(0, 0, 10), faded(1, 10, 5)])).toEqual([[0, 0, 10, 1], [1, 10, 5, 1]]);
    expect(filled(runs, [faded(0, 0, 10), faded(0, 10, 5, 0.5), faded(0, 15, 5, 0.5), faded(0, 20, 5)])).toEqual([[0, 0, 10, 1], [0, 10, 10, 0.5], [0, 20, 5, 1]]);
    // Backwards is not joined (the pool's pieces would join it; this list is kept in the choice's order).
    expect(filled(runs, [faded(0, 10, 5), faded(0, 0, 10)])).toEqual([[0, 10, 5, 1], [0, 0, 10, 1]]);
  });

  test('a run whose chunk is gone is left out, and the runs around it still join', () => {
    const runs = new PoolRuns();
    const of = (file: number) => (file === 2 ? undefined : chunks[file]);
    expect(filled(runs, [faded(0, 0, 10), faded(2, 10, 5), faded(0, 10, 5), faded(2, 0, 1)], of)).toEqual([[0, 0, 15, 1]]);
    expect(filled(runs, [faded(2, 0, 1)], of)).toEqual([]);
  });

  test('at random: the same splats at the same opacities, fewer runs, the records kept with one spare after them', () => {
    const rand = random(7);
    const runs = new PoolRuns();
    let records: unknown[] = [];
    for (let frame = 0; frame < 50; frame++) {
      // Runs cut from the four chunks in order, some skipped, some at a fading opacity, listed chunk by chunk.
      const list: Faded[] = [];
      for (let file = 0; file < 4; file++) {
        for (let at = 0; at < 1000; ) {
          const count = 1 + Math.floor(rand() * 40);
          if (rand() < 0.8) list.push(faded(file, at, Math.min(count, 1000 - at), rand() < 0.2 ? 0.25 : 1));
          at += count;
        }
      }
      const want = new Map<string, number>();
      for (const run of list) for (let k = run.offset; k < run.offset + run.count; k++) want.set(`${run.file}:${k}`, run.opacity);
      const n = fill(runs, list);
      const got = new Map<string, number>();
      for (const r of runs.records.slice(0, n)) {
        for (let k = r.offset; k < r.offset + r.count; k++) {
          const key = `${chunks.indexOf(r.chunk)}:${k}`;
          expect(got.has(key)).toBe(false);
          got.set(key, r.opacity ?? 1);
        }
      }
      expect(got).toEqual(want);
      expect(n).toBeLessThan(list.length);
      expect(runs.records.length).toBeGreaterThan(n);
      // The records already made are the same objects.
      for (let i = 0; i < Math.min(records.length, runs.records.length); i++) expect(runs.records[i]).toBe(records[i]);
      records = [...runs.records];
    }
  });
});
