import { beforeAll, describe, expect, it } from 'vitest';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseLodMeta, type LodIndex, type LodNode } from '../../src/io/lod/lod-meta';
import { checkWorld, mergeWorlds } from '../../bench/world-merge';
import { makeDefaultScene } from '../support/default-scene';
import { thinnedScene } from '../support/thinned-scene';
import { makeWorld } from '../support/made-world';
import type { SplatCloud } from '../../src/scene/splat-cloud';

const leavesOf = (node: LodNode): LodNode[] => (node.children.length === 0 ? [node] : node.children.flatMap(leavesOf));

function shifted(cloud: SplatCloud, dx: number): SplatCloud {
  const positions = cloud.positions.slice();
  for (let i = 0; i < cloud.count; i++) positions[3 * i] += dx;
  return { ...cloud, positions };
}

/** Without the higher SH bands: their palette is most of splat-transform's time on SwiftShader, and the merge never reads them. */
const bandZero = (cloud: SplatCloud): SplatCloud => ({ ...cloud, shDegree: 0, sh: new Float32Array(0) });

describe('worlds built side by side, merged into one', () => {
  const fine = thinnedScene(bandZero(makeDefaultScene()), 8);
  const coarse = thinnedScene(fine, 4);
  let root: string;
  let parts: LodIndex[];
  let merged: LodIndex;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'splatsort-merge-'));
    // Two parts of different shapes (one moved aside, one cut finer), as make-world's jobs leave them.
    makeWorld(join(root, 'a'), [fine, coarse], { chunkThousands: 1, chunkExtent: 1 });
    makeWorld(join(root, 'b'), [shifted(fine, 40), shifted(coarse, 40)], { chunkThousands: 1, chunkExtent: 2 });
    parts = ['a', 'b'].map((p) => parseLodMeta(readFileSync(join(root, p, 'world', 'lod-meta.json'), 'utf8')));
    merged = parseLodMeta(readFileSync(mergeWorlds(root, ['a/world', 'b/world']), 'utf8'));
  }, 180_000);

  it('sums the parts: levels, counts, chunks, leaves; the root holds their roots', () => {
    expect(merged.levels).toBe(2);
    expect(merged.counts).toEqual([2 * fine.count, 2 * coarse.count]);
    expect(merged.filenames).toHaveLength(parts[0]!.filenames.length + parts[1]!.filenames.length);
    expect(merged.leaves).toBe(parts[0]!.leaves + parts[1]!.leaves);
    expect(merged.tree.children).toHaveLength(2);
    for (let a = 0; a < 3; a++) {
      expect(merged.tree.bound.min[a]).toBe(Math.min(parts[0]!.tree.bound.min[a]!, parts[1]!.tree.bound.min[a]!));
      expect(merged.tree.bound.max[a]).toBe(Math.max(parts[0]!.tree.bound.max[a]!, parts[1]!.tree.bound.max[a]!));
    }
  });

  it('points every leaf\'s runs at its own part\'s chunk files', () => {
    parts.forEach((part, p) => {
      const prefix = ['a/world/', 'b/world/'][p]!;
      const mine = leavesOf(merged.tree.children[p]!);
      const theirs = leavesOf(part.tree);
      expect(mine).toHaveLength(theirs.length);
      mine.forEach((leaf, i) => {
        leaf.runs.forEach((run, level) => {
          const original = theirs[i]!.runs[level]!;
          expect({ ...run, file: merged.filenames[run!.file] }).toEqual({ ...original, file: prefix + part.filenames[original.file] });
        });
      });
    });
  });

  it('opens: every chunk there, decoded, holding the runs that point into it', async () => {
    const { world, bytes } = await checkWorld(join(root, 'lod-meta.json'), true);
    expect(world.counts).toEqual(merged.counts);
    expect(bytes).toBeGreaterThan(0);
  }, 60_000);

  it('is refused when a chunk\'s image is missing, or a run reaches past its chunk', async () => {
    const broken = mkdtempSync(join(tmpdir(), 'splatsort-merge-broken-'));
    cpSync(root, broken, { recursive: true });
    const chunk = join(broken, merged.filenames[merged.filenames.length - 1]!, '..');
    rmSync(join(chunk, readdirSync(chunk).find((f) => f.endsWith('.webp'))!));
    await expect(checkWorld(join(broken, 'lod-meta.json'))).rejects.toThrow(/which is missing/);

    const short = mkdtempSync(join(tmpdir(), 'splatsort-merge-short-'));
    cpSync(root, short, { recursive: true });
    const metaPath = join(short, merged.filenames[0]!);
    const meta = JSON.parse(readFileSync(metaPath, 'utf8')) as { count: number };
    writeFileSync(metaPath, JSON.stringify({ ...meta, count: meta.count - 1 }));
    await expect(checkWorld(join(short, 'lod-meta.json'))).rejects.toThrow(/runs reach row/);
  });
});
