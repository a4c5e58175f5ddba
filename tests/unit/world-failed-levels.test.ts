/**
 * A world whose chunks fail (src/app/world/world-choice.ts, `failed`): a
 * leaf whose level is in a failed file wants the nearest level that is
 * not, coarser first, else finer, draws what it has of it meanwhile, and
 * never asks for a failed file again; a leaf all of whose levels failed
 * is not drawn and asks for nothing.
 */
import { describe, expect, it } from 'vitest';
import type { CameraFile } from '../../src/app/camera/camera-file';
import { worldChoice, worldView } from '../../src/app/world/world-lod';
import type { LodIndex, LodNode } from '../../src/io/lod/lod-meta';

/** Splats of each level (0 the finest) of a leaf 10 × 10 across. */
const COUNTS = [40_000, 10_000, 2_500];

/** Four leaves in a row along x, 10 wide, at z from −10 to 0; leaf k's level l is chunk file 3k + l. */
function rowWorld(): LodIndex {
  const leaves: LodNode[] = [0, 1, 2, 3].map((k) => ({
    path: `tree.children[${k}]`,
    bound: { min: [10 * k, 0, -10], max: [10 * (k + 1), 0.1, 0] },
    children: [],
    runs: COUNTS.map((count, level) => ({ file: 3 * k + level, offset: 0, count })),
    errors: null, displacements: null,
  }));
  return {
    levels: 3, counts: COUNTS.map((c) => 4 * c), filenames: leaves.flatMap((_, k) => COUNTS.map((__, l) => `${l}_${k}/meta.json`)),
    environment: null, nodes: 5, leaves: 4,
    tree: { path: 'tree', bound: { min: [0, 0, -10], max: [40, 0.1, 0] }, children: leaves, runs: [], errors: null, displacements: null },
  };
}

/** A camera at `eye` looking at the row's middle, 1920×1080, 60° high. */
const camera = (eye: [number, number, number]): CameraFile => ({
  width: 1920, height: 1080, fovy_deg: 60, eye, target: [20, 0, -5], up: [0, 1, 0], background: [0, 0, 0], sh_degree: 0,
});
const file = (leaf: number, level: number) => 3 * leaf + level;
const choice = worldChoice(rowWorld());
/** Far enough that every leaf wants its coarsest level; near enough that they want the finest. */
const far = worldView(camera([20, 500, 300]));
const near = worldView(camera([20, 3, 2]));

function choose(view: typeof far, resident: (f: number) => boolean, failed: (f: number) => boolean) {
  const c = choice.choose(view, { thresholdPx: 0.5, budget: Infinity, resident, failed });
  return { wanted: [...c.wanted], draw: c.draw.map((run) => [Math.floor(run / choice.levels), run % choice.levels]), fetch: [...c.fetch], wantedSplats: c.wantedSplats, drawnSplats: c.drawnSplats };
}

describe('a leaf whose level failed', () => {
  it('is chosen as before where nothing failed', () => {
    expect(choose(far, () => true, () => false).wanted).toEqual([2, 2, 2, 2]);
    expect(choose(near, () => true, () => false).wanted).toEqual([0, 0, 0, 0]);
  });

  it('whose coarsest level failed, wants the next finer, asks for it first of all, and draws it once it is there', () => {
    const coarsestOfLeaf1 = file(1, 2);
    const failed = (f: number) => f === coarsestOfLeaf1;
    const before = choose(far, () => false, failed);
    expect(before.wanted).toEqual([2, 1, 2, 2]);
    expect(before.draw).toEqual([]);
    expect(before.fetch).not.toContain(coarsestOfLeaf1);
    expect(new Set(before.fetch)).toEqual(new Set([file(0, 2), file(1, 1), file(2, 2), file(3, 2)]));
    expect(before.wantedSplats).toBe(3 * COUNTS[2]! + COUNTS[1]!);
    // Its finer level arrived: the leaf is drawn from it, and nothing is asked for.
    const after = choose(far, (f) => f % 3 === 2 || f === file(1, 1), failed);
    expect(after.draw).toEqual([[0, 2], [1, 1], [2, 2], [3, 2]]);
    expect(after.fetch).toEqual([]);
  });

  it('whose wanted fine level failed, draws its coarser level and asks for the nearest coarser one that did not fail', () => {
    const failed = (f: number) => f === file(2, 0);
    const coarsest = choose(near, (f) => f % 3 === 2, failed);
    expect(coarsest.wanted).toEqual([0, 0, 1, 0]);
    expect(coarsest.draw).toContainEqual([2, 2]);
    expect(coarsest.fetch).toContain(file(2, 1));
    expect(coarsest.fetch).not.toContain(file(2, 0));
  });

  it('whose every coarser level failed, falls back to a finer one; whose every level failed, draws and asks for nothing', () => {
    const coarser = choose(far, () => true, (f) => f === file(0, 2) || f === file(0, 1));
    expect(coarser.wanted[0]).toBe(0);
    expect(coarser.draw).toContainEqual([0, 0]);
    const none = choose(far, () => false, (f) => Math.floor(f / 3) === 3);
    expect(none.wanted[3]).toBe(-1);
    expect(none.fetch.some((f) => Math.floor(f / 3) === 3)).toBe(false);
    expect(none.fetch.length).toBe(3);
  });
});
