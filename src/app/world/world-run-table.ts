/**
 * A world's runs by number: the run of leaf `leaf` at level `level` is run
 * leaf · levels + level, its chunk file, first row and count in flat
 * arrays (a world's outline, src/io/lod/lod-outline.ts, holds them: the
 * page's thread reads its runs there). A choice lists the runs it draws by
 * number (world-choice.ts, and a worker's answers, world-choice-runner.ts),
 * the level fades key on the numbers (world-fades.ts), and the pool's runs
 * are read from the arrays (world-pool-runs.ts).
 *
 * Why numbers rather than an object per run: a frame's loops reach a few
 * thousand of a world's runs, and it is the first loop to reach each
 * object that pays for fetching it. Over 3,000 of 61,440 runs a frame
 * (bench/world-run-layout.ts, Node, 2 cores) a first loop took 55-56 µs
 * over objects and 9 over typed arrays. Pure and DOM-free.
 */
import type { LodRun } from '../../io/lod/lod-meta';
import { outlineRun, type LodOutline } from '../../io/lod/lod-outline';
import type { WorldLeaf } from './world-choice-types';

/** A world's runs by number, as its outline holds them (file −1: the leaf has no run at that level). */
export type WorldRunTable = Pick<LodOutline, 'leaves' | 'levels' | 'runFiles' | 'runOffsets' | 'runCounts'>;

/** The levels a table of `leaves` is laid out by: the most any leaf has. */
export function levelsOf(leaves: readonly WorldLeaf[]): number {
  return leaves.reduce((most, leaf) => Math.max(most, leaf.runs.length, leaf.errors.length), 0);
}

/** The leaf of run `run` in a world of `levels` levels. */
export function runLeaf(run: number, levels: number): number {
  return Math.floor(run / levels);
}

/** The level of run `run` in a world of `levels` levels. */
export function runLevel(run: number, levels: number): number {
  return run - runLeaf(run, levels) * levels;
}

/** A run spelled out: its leaf, its level and its rows. */
export interface SpelledRun {
  leaf: number;
  level: number;
  run: LodRun;
}

/** Runs by number spelled out, for a test or a tool to read (made on each call, not for a frame). */
export function spelledRuns(table: WorldRunTable, runs: readonly number[]): SpelledRun[] {
  return runs.map((n) => {
    const leaf = runLeaf(n, table.levels);
    const level = n - leaf * table.levels;
    return { leaf, level, run: outlineRun(table, leaf, level)! };
  });
}
