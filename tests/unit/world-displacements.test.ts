/**
 * The world tool writes each leaf's measured displacements into a world
 * splat-transform made (bench/world-displacements-write.ts), and the
 * viewer's reader reads them back: a plane of 32 × 32 splats 1/8 apart
 * whose levels are it merged 2 × 2 and 4 × 4 (each merged splat at the
 * centre of its block), so that each finest splat lies √2/16 and 3√2/16
 * from the nearest centre of the two coarser levels.
 */
import { afterAll, expect, test } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeDisplacements } from '../../bench/world-displacements-write';
import { parseLodMeta, type LodNode } from '../../src/io/lod/lod-meta';
import { allocateSplatCloud, computeBounds, type SplatCloud } from '../../src/scene/splat-cloud';
import { makeWorld } from '../support/made-world';

/** side × side splats on the plane y = 0, `step` apart from (offset, offset), σ half the step. */
function plane(side: number, step: number, offset: number): SplatCloud {
  const cloud = allocateSplatCloud(side * side, 0);
  for (let k = 0; k < side * side; k++) {
    cloud.positions.set([offset + (k % side) * step, 0, offset + Math.floor(k / side) * step], 3 * k);
    cloud.scales.set([step / 2, step / 20, step / 2], 3 * k);
    cloud.rotations[4 * k] = 1;
    cloud.opacities[k] = 0.8;
    cloud.dc.set([0.5, 0.2, 0.1], 3 * k);
  }
  cloud.bounds = computeBounds(cloud.positions, cloud.count);
  return cloud;
}

const root = mkdtempSync(join(tmpdir(), 'world-displacements-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

test('a made world gets one displacement a level for each leaf, the finest 0 and the merged levels as far as their blocks reach; the rest of the index as it was', async () => {
  const step = 1 / 8;
  // Merged 2 × 2: the block's centre is half a step in from each of its splats; 4 × 4: one and a half steps.
  const levels = [plane(32, step, 0), plane(16, 2 * step, step / 2), plane(8, 4 * step, (3 * step) / 2)];
  const indexPath = makeWorld(join(root, 'plane'), levels, { chunkThousands: 2, chunkExtent: 100 });
  const before = parseLodMeta(readFileSync(indexPath, 'utf8'), indexPath);

  const written = await writeDisplacements(indexPath);
  const after = parseLodMeta(readFileSync(indexPath, 'utf8'), indexPath);
  expect(written.leaves).toBe(after.leaves);
  const leaves: LodNode[] = [];
  for (const pending = [after.tree]; pending.length > 0; ) {
    const node = pending.pop()!;
    if (node.children.length === 0) leaves.push(node);
    for (const child of node.children) pending.push(child);
  }
  expect(leaves.length).toBeGreaterThan(0);
  for (const leaf of leaves) {
    const [finest, merged2, merged4] = leaf.displacements!;
    expect(finest).toBe(0);
    // SOG stores positions to about 1e-4 of the world's extent: within a few per cent.
    expect(merged2).toBeCloseTo(Math.SQRT2 * (step / 2), 2);
    expect(merged4).toBeCloseTo(Math.SQRT2 * ((3 * step) / 2), 2);
  }
  // Only the displacements were added.
  const strip = (node: LodNode): unknown => ({ ...node, displacements: null, children: node.children.map(strip) });
  expect(strip(after.tree)).toEqual(strip(before.tree));
  expect(after.filenames).toEqual(before.filenames);
  expect(after.counts).toEqual(before.counts);
});
