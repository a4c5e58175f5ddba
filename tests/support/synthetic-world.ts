/**
 * A world made in memory from a real scene, for the tests of what draws a
 * world (the pool, the session): its splats cut into a grid of leaves
 * across x and z; level 0 the leaves' own splats, level 1 every fourth of
 * them at twice the size (a surface keeps its cover). Chunk files group
 * neighbouring leaves of one level, as splat-transform's do. Splats far
 * out (beyond the 5-95 % range on an axis) are left out. The index is
 * a LodIndex as parseLodMeta gives it; each file's cloud is in memory.
 */
import type { LodIndex, LodNode, LodRun } from '../../src/io/lod/lod-meta';
import { lodOutline } from '../../src/io/lod/lod-outline';
import { allocateSplatCloud, computeBounds, shCoefficients, type SplatCloud } from '../../src/scene/splat-cloud';
import type { WorldChunks } from '../../src/app/world/world-session';

export interface SyntheticWorld {
  index: LodIndex;
  /** Per chunk file, its splats. */
  clouds: SplatCloud[];
  /** The leaves' splats at `level`, in leaf order. */
  level(level: number): SplatCloud;
}

/** Splats `indices` of `cloud`, scales times `grow`. */
export function subsetCloud(cloud: SplatCloud, indices: readonly number[], grow = 1): SplatCloud {
  const out = allocateSplatCloud(indices.length, cloud.shDegree);
  const k = shCoefficients(cloud.shDegree) * 3;
  indices.forEach((i, j) => {
    out.positions.set(cloud.positions.subarray(3 * i, 3 * i + 3), 3 * j);
    for (let a = 0; a < 3; a++) out.scales[3 * j + a] = cloud.scales[3 * i + a]! * grow;
    out.rotations.set(cloud.rotations.subarray(4 * i, 4 * i + 4), 4 * j);
    out.opacities[j] = cloud.opacities[i]!;
    out.dc.set(cloud.dc.subarray(3 * i, 3 * i + 3), 3 * j);
    out.sh.set(cloud.sh.subarray(k * i, k * i + k), k * j);
  });
  out.bounds = computeBounds(out.positions, out.count);
  return out;
}

/** `parts` (of one SH degree) one after the other, as one cloud. */
export function joinClouds(parts: readonly SplatCloud[]): SplatCloud {
  const out = allocateSplatCloud(parts.reduce((n, p) => n + p.count, 0), parts[0]?.shDegree ?? 0);
  const fields = ['positions', 'scales', 'rotations', 'opacities', 'dc', 'sh'] as const;
  for (const field of fields) {
    let at = 0;
    for (const part of parts) {
      out[field].set(part[field], at);
      at += part[field].length;
    }
  }
  out.bounds = computeBounds(out.positions, out.count);
  return out;
}

/** `cloud` as a two-level world of grid × grid leaves, `leavesPerFile` leaves a chunk file. */
export function syntheticWorld(cloud: SplatCloud, grid = 2, leavesPerFile = 2): SyntheticWorld {
  const quantile = (axis: number, q: number) => {
    const v = Array.from({ length: cloud.count }, (_, i) => cloud.positions[3 * i + axis]!).sort((a, b) => a - b);
    return v[Math.min(v.length - 1, Math.floor(q * v.length))]!;
  };
  const cuts = (axis: number) => Array.from({ length: grid - 1 }, (_, c) => quantile(axis, (c + 1) / grid));
  const [cx, cz] = [cuts(0), cuts(2)];
  const cell = (value: number, at: number[]) => at.filter((c) => value >= c).length;
  // Stray splats far out (a capture's background) would stretch the leaves' boxes over the cameras: left out.
  const [lo, hi] = [0, 1, 2].map((axis) => [quantile(axis, 0.05), quantile(axis, 0.95)]).reduce<[number[], number[]]>(([l, h], [a, b]) => [[...l, a!], [...h, b!]], [[], []]);
  const inside = (i: number) => [0, 1, 2].every((a) => cloud.positions[3 * i + a]! >= lo[a]! && cloud.positions[3 * i + a]! <= hi[a]!);
  const members: number[][] = Array.from({ length: grid * grid }, () => []);
  for (let i = 0; i < cloud.count; i++) if (inside(i)) members[cell(cloud.positions[3 * i]!, cx) * grid + cell(cloud.positions[3 * i + 2]!, cz)]!.push(i);
  const levels = [members, members.map((m) => m.filter((_, j) => j % 4 === 0))];

  const clouds: SplatCloud[] = [];
  const filenames: string[] = [];
  const runs: LodRun[][] = members.map(() => []);
  levels.forEach((leaves, level) => {
    for (let first = 0; first < leaves.length; first += leavesPerFile) {
      const file = clouds.length;
      const group = leaves.slice(first, first + leavesPerFile);
      let offset = 0;
      group.forEach((m, g) => {
        runs[first + g]![level] = { file, offset, count: m.length };
        offset += m.length;
      });
      clouds.push(subsetCloud(cloud, group.flat(), level === 0 ? 1 : 2));
      filenames.push(`${level}_${file}/meta.json`);
    }
  });
  const children: LodNode[] = members.map((m, leaf) => {
    const b = subsetCloud(cloud, m).bounds;
    return { path: `tree.children[${leaf}]`, bound: { min: [...b.min], max: [...b.max] }, children: [], runs: runs[leaf]!, errors: null, displacements: null };
  });
  const tree: LodNode = { path: 'tree', bound: { min: [...cloud.bounds.min], max: [...cloud.bounds.max] }, children, runs: [], errors: null, displacements: null };
  const index: LodIndex = {
    levels: 2,
    counts: levels.map((leaves) => leaves.reduce((n, m) => n + m.length, 0)),
    filenames,
    environment: null,
    tree,
    nodes: children.length + 1,
    leaves: children.length,
  };
  return { index, clouds, level: (level) => subsetCloud(cloud, levels[level]!.flat(), level === 0 ? 1 : 2) };
}

/** The world's chunks as the session reads them, from memory; `delay` holds each read back (a throttled server). */
export function syntheticChunks(world: SyntheticWorld, options: { delay?: (file: number) => Promise<void>; reads?: number[] } = {}): WorldChunks {
  return {
    name: 'synthetic/lod-meta.json',
    index: world.index,
    outline: lodOutline(world.index),
    usedSplats: Uint32Array.from(world.clouds, (c) => c.count),
    async readChunk(file, signal) {
      options.reads?.push(file);
      await options.delay?.(file);
      signal?.throwIfAborted();
      return { cloud: world.clouds[file]!, bytes: world.clouds[file]!.count * 16 };
    },
  };
}
