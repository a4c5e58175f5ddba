/**
 * The one DrawnRun per leaf and level of a world, made once: a choice's
 * draw list holds these objects, so the same run is the same object every
 * frame (the level fades key on it). The choice in this thread
 * (world-choice.ts) and the answers of a choice made in a worker
 * (world-choice-runner.ts, which maps leaf and level pairs back to runs)
 * use tables laid out alike: a choice's runs are these objects, a
 * worker's answers their leaf and level. Pure and DOM-free.
 */
import { outlineRun, type LodOutline } from '../../io/lod/lod-outline';
import type { DrawnRun, WorldLeaf } from './world-choice-types';

/** The levels a table of `leaves` is laid out by: the most any leaf has. */
export function levelsOf(leaves: readonly WorldLeaf[]): number {
  return leaves.reduce((most, leaf) => Math.max(most, leaf.runs.length, leaf.errors.length), 0);
}

/** Per leaf and level (leaf · levelsOf(leaves) + level): the run drawn for it, or null where the leaf has no run there. */
export function drawnRunTable(leaves: readonly WorldLeaf[]): (DrawnRun | null)[] {
  const levels = levelsOf(leaves);
  const table = new Array<DrawnRun | null>(leaves.length * levels).fill(null);
  leaves.forEach((leaf, i) => {
    leaf.runs.forEach((run, level) => {
      if (run) table[i * levels + level] = { leaf: i, level, run };
    });
  });
  return table;
}

/** The same table from a world's outline (src/io/lod/lod-outline.ts), laid out by its levels: for a thread that holds no tree. */
export function outlineRunTable(outline: LodOutline): (DrawnRun | null)[] {
  const table = new Array<DrawnRun | null>(outline.leaves * outline.levels).fill(null);
  for (let leaf = 0; leaf < outline.leaves; leaf++) {
    for (let level = 0; level < outline.levels; level++) {
      const run = outlineRun(outline, leaf, level);
      if (run) table[leaf * outline.levels + level] = { leaf, level, run };
    }
  }
  return table;
}
