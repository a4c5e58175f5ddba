/**
 * What a world's main thread needs of its index (lod-meta.ts), in a few
 * flat arrays: the chunk files, the environment, the world's box, and each
 * leaf's run at each level. The level choice, which walks the tree, runs in
 * a worker that reads the index's text itself (world-choice-runner.ts), so
 * the page's thread never holds the tree's objects: for the 100-copy
 * world's index (20,480 leaves, 7.4 MB of JSON; Node, 2 cores) receiving
 * them from the world's worker took 226-235 ms of that thread, one long
 * task as the world opened, where these arrays are transferred whole.
 * Pure and DOM-free.
 */
import type { LodBound, LodIndex, LodNode, LodRun } from './lod-meta';

export interface LodOutline {
  /** Levels of detail; the run tables' stride. */
  levels: number;
  /** Splats per level. */
  counts: number[];
  filenames: string[];
  environment: string | null;
  /** The tree's box: the whole world. */
  bound: LodBound;
  leaves: number;
  /**
   * Per leaf (in forEachLeaf's order, the order the choice numbers them)
   * and level, at leaf · levels + level: its run's chunk file, or −1 where
   * the leaf has no run at that level; and the run's first row and count.
   */
  runFiles: Int32Array;
  runOffsets: Float64Array;
  runCounts: Float64Array;
}

/** Calls `visit` with each leaf of `tree`, left to right: the one order every list of leaves takes. */
export function forEachLeaf(tree: LodNode, visit: (leaf: LodNode) => void): void {
  const pending: LodNode[] = [tree];
  while (pending.length > 0) {
    const node = pending.pop()!;
    if (node.children.length === 0) {
      visit(node);
      continue;
    }
    for (let i = node.children.length - 1; i >= 0; i--) pending.push(node.children[i]!);
  }
}

/** The outline of `index`. */
export function lodOutline(index: LodIndex): LodOutline {
  const leaves: LodNode[] = [];
  forEachLeaf(index.tree, (leaf) => leaves.push(leaf));
  return {
    levels: index.levels,
    counts: index.counts,
    filenames: index.filenames,
    environment: index.environment,
    bound: index.tree.bound,
    leaves: leaves.length,
    ...runArrays(leaves, index.levels),
  };
}

/** The run arrays of `leaves` (each with its runs by level), laid out by `levels`. */
function runArrays(leaves: readonly { readonly runs: readonly (LodRun | null)[] }[], levels: number): Pick<LodOutline, 'runFiles' | 'runOffsets' | 'runCounts'> {
  const runFiles = new Int32Array(leaves.length * levels).fill(-1);
  // Offsets and counts as f64: the parser bounds each by a chunk's rows (< 2^32), which an index may state exactly.
  const runOffsets = new Float64Array(leaves.length * levels);
  const runCounts = new Float64Array(leaves.length * levels);
  leaves.forEach((leaf, i) => {
    leaf.runs.forEach((run, level) => {
      if (!run) return;
      runFiles[i * levels + level] = run.file;
      runOffsets[i * levels + level] = run.offset;
      runCounts[i * levels + level] = run.count;
    });
  });
  return { runFiles, runOffsets, runCounts };
}

/** Leaf `leaf`'s run at `level`, or null where it has none. */
export function outlineRun(outline: Pick<LodOutline, 'levels' | 'runFiles' | 'runOffsets' | 'runCounts'>, leaf: number, level: number): LodRun | null {
  const at = leaf * outline.levels + level;
  const file = outline.runFiles[at]!;
  return file < 0 ? null : { file, offset: outline.runOffsets[at]!, count: outline.runCounts[at]! };
}

/** The typed arrays an outline holds, to transfer with it to another thread. */
export function outlineBuffers(outline: LodOutline): ArrayBuffer[] {
  return [outline.runFiles.buffer as ArrayBuffer, outline.runOffsets.buffer as ArrayBuffer, outline.runCounts.buffer as ArrayBuffer];
}
