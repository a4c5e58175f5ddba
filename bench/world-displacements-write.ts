/**
 * The measure behind bench/world-displacements.ts, for make-world and the
 * tests: reads the world's index, decodes its chunks (a few at a time,
 * leaves taken in the order of their finest chunk so that a chunk is
 * seldom decoded twice), measures each leaf's levels against its finest
 * (levelDisplacement) and writes them into the index as `displacements`.
 */
import { readFileSync } from 'node:fs';
import { replaceFile } from '../cli/replace-file';
import { openWorld } from '../src/io/lod/world-files';
import { parseLodMeta } from '../src/io/lod/lod-meta';
import { nodeFileSource } from '../src/io/node-scene-source';
import { levelDisplacement, type SplatRun } from '../src/scene/level-displacement';
import { worldLeaves, type WorldLeaf } from '../src/app/world/world-lod';
import type { SplatCloud } from '../src/scene/splat-cloud';

/** A leaf of the index's JSON: its runs by level. */
interface MetaLeaf {
  lods: Record<string, { file: number; offset: number; count: number }>;
  displacements?: number[];
}

/**
 * Decoded chunks kept at once: a 256K-splat chunk with SH 3 decodes to about
 * 60 MB, so eight stay under half a gigabyte; the leaves' order makes the
 * next leaf's chunks mostly the ones just decoded.
 */
const CHUNKS_KEPT = 8;

/** Per level, over the leaves that have it: the median measured displacement, the median error the splats' spacing gave, and the median ratio of the two. */
export interface LevelFigures {
  level: number;
  displacement: number;
  spacing: number;
  ratio: number;
}

export interface DisplacementsWritten {
  leaves: number;
  levels: LevelFigures[];
  /** Chunk decodes (a chunk evicted and needed again counts again). */
  chunks: number;
  seconds: number;
}

export async function writeDisplacements(indexPath: string, options: { say?: (line: string) => void } = {}): Promise<DisplacementsWritten> {
  const started = performance.now();
  const text = readFileSync(indexPath, 'utf8');
  const index = parseLodMeta(text, indexPath);
  const json = JSON.parse(text) as { tree: unknown };
  const world = await openWorld(nodeFileSource(indexPath));
  const leaves: MetaLeaf[] = [];
  const pending: unknown[] = [json.tree];
  while (pending.length > 0) {
    const node = pending.pop() as { children?: unknown[]; lods?: MetaLeaf['lods'] };
    if (node.children) for (const child of node.children) pending.push(child);
    else leaves.push(node as MetaLeaf);
  }
  const finestRun = (leaf: MetaLeaf) => {
    for (let level = 0; level < index.levels; level++) {
      const run = leaf.lods[String(level)];
      if (run && run.count > 0) return run;
    }
    return null;
  };
  leaves.sort((a, b) => (finestRun(a)?.file ?? -1) - (finestRun(b)?.file ?? -1));

  const kept = new Map<number, SplatCloud>();
  let decoded = 0;
  const chunk = async (file: number): Promise<SplatCloud> => {
    const cloud = kept.get(file);
    if (cloud) {
      // Most recently used last.
      kept.delete(file);
      kept.set(file, cloud);
      return cloud;
    }
    const read = (await world.readChunk(file)).cloud;
    decoded++;
    kept.set(file, read);
    if (kept.size > CHUNKS_KEPT) kept.delete(kept.keys().next().value!);
    return read;
  };
  const runOf = async (ref: { file: number; offset: number; count: number }): Promise<SplatRun> => ({ cloud: await chunk(ref.file), offset: ref.offset, count: ref.count });

  for (const [k, leaf] of leaves.entries()) {
    const finest = finestRun(leaf);
    const displacements = new Array<number>(index.levels).fill(0);
    if (finest) {
      const fine = await runOf(finest);
      for (let level = 0; level < index.levels; level++) {
        const ref = leaf.lods[String(level)];
        // A level without splats is never drawn: 0 stands in for it.
        if (ref && ref.count > 0) displacements[level] = Number(levelDisplacement(fine, await runOf(ref)).toPrecision(7));
      }
    }
    leaf.displacements = displacements;
    if ((k + 1) % 100 === 0) options.say?.(`${k + 1} of ${leaves.length} leaves, ${decoded} chunk decodes`);
  }
  const written = JSON.stringify(json);
  await replaceFile(indexPath, new TextEncoder().encode(written));
  const levels = compare(worldLeaves(index), worldLeaves(parseLodMeta(written, indexPath)), index.levels);
  return { leaves: leaves.length, levels, chunks: decoded, seconds: Math.round((performance.now() - started) / 100) / 10 };
}

/** The measured errors (`measured`) against the spacing's (`guessed`), leaf by leaf, level by level (the finest, 0 in both, left out). */
function compare(guessed: readonly WorldLeaf[], measured: readonly WorldLeaf[], levelCount: number): LevelFigures[] {
  const figures: LevelFigures[] = [];
  const median = (values: number[]) => (values.length === 0 ? NaN : values.sort((a, b) => a - b)[values.length >> 1]!);
  for (let level = 1; level < levelCount; level++) {
    const pairs = measured.flatMap((leaf, k) => {
      const [m, g] = [leaf.errors[level], guessed[k]!.errors[level]];
      return m == null || g == null || m === 0 ? [] : [[m, g] as const];
    });
    if (pairs.length === 0) continue;
    figures.push({
      level,
      displacement: median(pairs.map(([m]) => m)),
      spacing: median(pairs.map(([, g]) => g)),
      ratio: median(pairs.map(([m, g]) => m / Math.max(g, 1e-12))),
    });
  }
  return figures;
}
