/**
 * The world tool writes each leaf's measured displacements into a world
 * splat-transform made (bench/world-displacements-write.ts), and the
 * viewer's reader reads them back: a plane of 32 × 32 splats 1/8 apart
 * whose levels are it merged 2 × 2 and 4 × 4 (each merged splat at the
 * centre of its block), so that each finest splat lies √2/16 and 3√2/16
 * from the nearest centre of the two coarser levels. The command measures
 * in worker threads (--jobs) to the same index, byte for byte.
 */
import { afterAll, describe, expect, test } from 'vitest';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeDisplacements } from '../../bench/world-displacements-write';
import { parseLodMeta, type LodNode } from '../../src/io/lod/lod-meta';
import { allocateSplatCloud, computeBounds, type SplatCloud } from '../../src/scene/splat-cloud';
import { makeWorld } from '../support/made-world';
import { COMMAND_TIMEOUT_MS, useNodeTools } from '../support/node-tools';

/** side × side splats on the plane y = 0, `step` apart from (offset, offset), σ half the step; each moved along x by `shift` of where it is. */
function plane(side: number, step: number, offset: number, shift = (_x: number, _z: number) => 0): SplatCloud {
  const cloud = allocateSplatCloud(side * side, 0);
  for (let k = 0; k < side * side; k++) {
    const [x, z] = [offset + (k % side) * step, offset + Math.floor(k / side) * step];
    cloud.positions.set([x + shift(x, z), 0, z], 3 * k);
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

describe('in worker threads', () => {
  const bundle = useNodeTools('displacements');
  const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

  test('the command with --jobs 2 writes the same index as with --jobs 1, byte for byte, on a world whose leaves differ', () => {
    // Coarser levels moved along x by a share of x + 2z: each leaf its own displacements.
    const step = 1 / 8;
    const levels = [plane(64, step, 0), plane(32, 2 * step, step / 2, (x, z) => 0.01 * (x + 2 * z)), plane(16, 4 * step, (3 * step) / 2, (x, z) => 0.02 * (x + 2 * z))];
    const made = makeWorld(join(root, 'jobs'), levels, { chunkThousands: 1, chunkExtent: 2 });
    const world = dirname(made);
    const [one, two] = ['one', 'two'].map((name) => {
      cpSync(world, join(root, name), { recursive: true });
      return join(root, name, 'lod-meta.json');
    });
    const run = (index: string, jobs: number) => JSON.parse(execFileSync(process.execPath, [join(bundle, 'world-displacements.mjs'), '--index', index, '--jobs', String(jobs)], { cwd: ROOT, encoding: 'utf8', timeout: COMMAND_TIMEOUT_MS })) as { leaves: number; jobs: number };
    const [byOne, byTwo] = [run(one!, 1), run(two!, 2)];
    expect(byOne.jobs).toBe(1);
    expect(byTwo.jobs).toBe(2);
    expect(byTwo.leaves).toBeGreaterThanOrEqual(8);
    const written = readFileSync(one!, 'utf8');
    expect(readFileSync(two!, 'utf8')).toBe(written);
    // The leaves' figures differ, so that one leaf's written into another's place would show.
    const index = parseLodMeta(written, one!);
    const figures = new Set<string>();
    for (const pending = [index.tree]; pending.length > 0; ) {
      const node = pending.pop()!;
      if (node.children.length === 0) figures.add(String(node.displacements));
      for (const child of node.children) pending.push(child);
    }
    expect(figures.size).toBe(byOne.leaves);
  }, 120_000);
});
