/**
 * One leaf's displacements at a time (src/scene/level-displacement.ts), from
 * a world's chunks decoded and kept a few at a time: the work that
 * bench/world-displacements-write.ts does on its own thread or hands to
 * workers (world-displacements-worker.ts), the same either way.
 */
import type { WorldFiles } from '../src/io/lod/world-files';
import { levelDisplacement, type SplatRun } from '../src/scene/level-displacement';
import type { SplatCloud } from '../src/scene/splat-cloud';

/** A leaf's runs by level, as the index's JSON has them. */
export type LeafRuns = Record<string, { file: number; offset: number; count: number }>;

/**
 * Decoded chunks kept at once: a 256K-splat chunk with SH 3 decodes to about
 * 60 MB, so eight stay under half a gigabyte; the leaves' order makes the
 * next leaf's chunks mostly the ones just decoded.
 */
const CHUNKS_KEPT = 8;

/** The leaf's finest run with splats (null: none). */
export function finestRun(lods: LeafRuns, levels: number): LeafRuns[string] | null {
  for (let level = 0; level < levels; level++) {
    const run = lods[String(level)];
    if (run && run.count > 0) return run;
  }
  return null;
}

export class LeafMeasure {
  /** Chunk decodes so far (a chunk evicted and needed again counts again). */
  decoded = 0;
  private readonly kept = new Map<number, SplatCloud>();

  constructor(
    private readonly world: Pick<WorldFiles, 'readChunk'>,
    private readonly levels: number,
  ) {}

  /** Per level, how far it moves the leaf's finest detail, in scene units to 7 digits (0 for a level without splats). */
  async measure(lods: LeafRuns): Promise<number[]> {
    const displacements = new Array<number>(this.levels).fill(0);
    const finest = finestRun(lods, this.levels);
    if (!finest) return displacements;
    const fine = await this.run(finest);
    for (let level = 0; level < this.levels; level++) {
      const ref = lods[String(level)];
      // A level without splats is never drawn: 0 stands in for it.
      if (ref && ref.count > 0) displacements[level] = Number(levelDisplacement(fine, await this.run(ref)).toPrecision(7));
    }
    return displacements;
  }

  private async run(ref: LeafRuns[string]): Promise<SplatRun> {
    return { cloud: await this.chunk(ref.file), offset: ref.offset, count: ref.count };
  }

  private async chunk(file: number): Promise<SplatCloud> {
    const kept = this.kept;
    const cloud = kept.get(file);
    if (cloud) {
      // Most recently used last.
      kept.delete(file);
      kept.set(file, cloud);
      return cloud;
    }
    const read = (await this.world.readChunk(file)).cloud;
    this.decoded++;
    kept.set(file, read);
    if (kept.size > CHUNKS_KEPT) kept.delete(kept.keys().next().value!);
    return read;
  }
}
