/**
 * The runs a world's frame marks drawn in its pool (src/scene/splat-pool.ts
 * setDrawn), made from the level fades' runs (world-fades.ts, by number:
 * world-run-table.ts has each one's file, first row and count): each run's
 * chunk found in the stream, and a run that goes on from the one before it
 * in the same chunk at the same opacity joined to it.
 *
 * Why join: in the worlds measured, neighbouring leaves drawn at one level
 * lie end to end in their chunk file, in the order the choice lists them.
 * Along the world benchmark's path over the 4-copy world (1,024 leaves,
 * 300 frames, 0.5 px, every file resident) a choice drew 398 runs a
 * frame, 78 once joined. The pool's setDrawn walks each run twice (to
 * compare with the last frame's and to split it into pages) and keeps
 * them, every frame the camera moves or a fade runs: joined, the world's
 * update fell from 2.04 to 1.65-1.75 ms at p95 on the 100-copy world's
 * path (H200 host; docs/benchmarks.md, "The pool's runs joined"). The
 * drawn splats are the same: the mask is a set.
 *
 * Pure and DOM-free; the records are kept from frame to frame and
 * rewritten, so a frame allocates nothing once they have grown.
 */
import type { PooledChunk, PooledRun } from '../../scene/splat-pool';
import type { WorldRunTable } from './world-run-table';
import { unbound } from '../../gpu/unbound';

export class PoolRuns {
  private readonly list: PooledRun[] = [];

  /** The records: the first `fill` returned, then the one it left spare. */
  get records(): readonly PooledRun[] {
    return this.list;
  }

  /**
   * Writes the first `count` of `runs` (by number in `table`, each drawn at
   * its opacity in `opacities`) as pool runs, joined where they go on from
   * one another, leaving out those whose chunk `chunkOf` does not have (an
   * outgoing level the stream gave up); returns how many. One record more
   * than that is always there, for the caller to use (the environment's
   * run, drawn after the chosen ones).
   */
  fill(runs: ArrayLike<number>, opacities: ArrayLike<number>, count: number, table: Pick<WorldRunTable, 'runFiles' | 'runOffsets' | 'runCounts'>, chunkOf: (file: number) => PooledChunk | undefined): number {
    const list = this.list;
    const { runFiles, runOffsets, runCounts } = table;
    let n = 0;
    let lastFile = -1;
    let chunk: PooledChunk | undefined;
    let last: PooledRun | null = null;
    for (let i = 0; i < count; i++) {
      const run = runs[i]!;
      const opacity = opacities[i]!;
      const file = runFiles[run]!;
      if (file !== lastFile) {
        lastFile = file;
        chunk = chunkOf(file);
      }
      if (!chunk) continue;
      const offset = runOffsets[run]!;
      if (last && last.chunk === chunk && last.offset + last.count === offset && last.opacity === opacity) {
        last.count += runCounts[run]!;
        continue;
      }
      if (n === list.length) list.push({ chunk: unbound<PooledChunk>(), offset: 0, count: 0, opacity: 1 });
      last = list[n++]!;
      last.chunk = chunk;
      last.offset = offset;
      last.count = runCounts[run]!;
      last.opacity = opacity;
    }
    if (n === list.length) list.push({ chunk: unbound<PooledChunk>(), offset: 0, count: 0, opacity: 1 });
    return n;
  }
}
