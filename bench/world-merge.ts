/**
 * One Streamed SOG world out of several built side by side (bench/make-world.ts
 * builds each group of copies as a world of its own, in a sub-folder of the
 * world, with a splat-transform process of its own): a new lod-meta.json
 * whose root's children are the parts' roots, their chunk paths prefixed by
 * the part's folder and their runs' file numbers moved past the files of the
 * parts before them, the counts summed, and the first part's environment
 * kept. Then the check that the world opens: the index through
 * parseLodMeta, every chunk and the images it names on disk, and every run
 * within its chunk's rows (with `decode`, every chunk decoded by parseSog).
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseLodMeta, type LodIndex, type LodNode } from '../src/io/lod/lod-meta';
import { parseSog } from '../src/io/sog/decode';

/** The parts of lod-meta.json the merge rewrites (each part is first checked by parseLodMeta). */
interface MetaNode {
  bound: { min: number[]; max: number[] };
  children?: MetaNode[];
  lods?: Record<string, { file: number }>;
}
interface Meta {
  asset?: unknown;
  counts: number[];
  lodLevels: number;
  lodErrors?: boolean;
  environment?: string;
  filenames: string[];
  tree: MetaNode;
}

/** Merges the worlds in `root`'s sub-folders `parts` into `root`/lod-meta.json; returns its path. */
export function mergeWorlds(root: string, parts: readonly string[]): string {
  if (parts.length === 0) throw new Error('mergeWorlds: no parts');
  const metas = parts.map((part) => {
    const path = join(root, part, 'lod-meta.json');
    const text = readFileSync(path, 'utf8');
    // Checked as the viewer reads it; its counts summed from the tree (an index may leave them out).
    const { counts } = parseLodMeta(text, path);
    return { ...(JSON.parse(text) as Meta), counts };
  });
  const levels = metas[0]!.lodLevels;
  const filenames: string[] = [];
  const counts = new Array<number>(levels).fill(0);
  const children: MetaNode[] = [];
  let environment: string | undefined;
  metas.forEach((meta, p) => {
    if (meta.lodLevels !== levels) throw new Error(`${parts[p]}: ${meta.lodLevels} levels, the first part ${levels}`);
    const firstFile = filenames.length;
    filenames.push(...meta.filenames.map((f) => `${parts[p]}/${f}`));
    meta.counts.forEach((n, level) => (counts[level]! += n));
    if (meta.environment !== undefined) environment ??= `${parts[p]}/${meta.environment}`;
    // The part's tree, its leaves' file numbers moved past the parts before it (no recursion: trees run deep).
    const pending: MetaNode[] = [meta.tree];
    while (pending.length > 0) {
      const node = pending.pop()!;
      if (node.children) pending.push(...node.children);
      else for (const run of Object.values(node.lods ?? {})) run.file += firstFile;
    }
    children.push(meta.tree);
  });
  const min = [0, 1, 2].map((a) => Math.min(...children.map((c) => c.bound.min[a]!)));
  const max = [0, 1, 2].map((a) => Math.max(...children.map((c) => c.bound.max[a]!)));
  const merged = {
    version: 1,
    asset: metas[0]!.asset,
    count: counts.reduce((a, b) => a + b, 0),
    counts,
    lodLevels: levels,
    // Screen errors per leaf only where every part has them.
    lodErrors: metas.every((m) => m.lodErrors === true),
    ...(environment === undefined ? {} : { environment }),
    filenames,
    tree: children.length === 1 ? children[0] : { bound: { min, max }, children },
  };
  const index = join(root, 'lod-meta.json');
  writeFileSync(index, JSON.stringify(merged));
  return index;
}

export interface WorldCheck {
  world: LodIndex;
  /** Bytes of the index and every chunk's meta.json and images. */
  bytes: number;
}

/**
 * Opens the world at `index` as the viewer would and checks that every
 * chunk it names is there: each meta.json, the images it names, and a
 * splat count that holds every run pointing into it. With `decode`, each
 * chunk is also decoded (parseSog) and its splat count compared.
 */
export async function checkWorld(index: string, decode = false): Promise<WorldCheck> {
  const folder = dirname(index);
  const world = parseLodMeta(readFileSync(index, 'utf8'), index);
  const rowsNeeded = new Array<number>(world.filenames.length).fill(0);
  const pending: LodNode[] = [world.tree];
  while (pending.length > 0) {
    const node = pending.pop()!;
    pending.push(...node.children);
    for (const run of node.runs) if (run) rowsNeeded[run.file] = Math.max(rowsNeeded[run.file]!, run.offset + run.count);
  }
  let bytes = statSync(index).size;
  const chunks = world.environment === null ? world.filenames : [...world.filenames, world.environment];
  for (const [file, name] of chunks.entries()) {
    const metaPath = join(folder, name);
    if (!existsSync(metaPath)) throw new Error(`${index}: chunk ${name} is missing`);
    const metaText = readFileSync(metaPath, 'utf8');
    const meta = JSON.parse(metaText) as Record<string, unknown> & { count: number };
    // Each attribute of a SOG meta.json names its images in `files`.
    const images = Object.values(meta).flatMap((v) => (v !== null && typeof v === 'object' && 'files' in v && Array.isArray(v.files) ? (v.files as string[]) : []));
    bytes += metaText.length;
    for (const image of images) {
      const path = join(dirname(metaPath), image);
      if (!existsSync(path)) throw new Error(`${index}: ${name} names ${image}, which is missing`);
      bytes += statSync(path).size;
    }
    const needed = rowsNeeded[file] ?? 0;
    if (needed > meta.count) throw new Error(`${index}: runs reach row ${needed} of ${name}, which holds ${meta.count}`);
    if (decode) {
      const cloud = await parseSog(metaText, async (entry) => new Uint8Array(readFileSync(join(dirname(metaPath), entry))));
      if (cloud.count !== meta.count) throw new Error(`${index}: ${name} decodes to ${cloud.count} splats, its meta.json says ${meta.count}`);
    }
  }
  return { world, bytes };
}
