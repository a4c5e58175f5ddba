import { describe, expect, it } from 'vitest';
import type { CameraFile } from '../../src/app/camera/camera-file';
import { chooseLevels, worldLeaves, worldView, type WorldLeaf } from '../../src/app/world/world-lod';
import type { LodIndex, LodNode } from '../../src/io/lod/lod-meta';

/** Splats of each level of a 10 × 10 patch of ground: 0.05, 0.1 and 0.2 apart. */
const COUNTS = [40_000, 10_000, 2_500];

/**
 * A world of ground patches 10 × 10 (0.1 thick), one leaf each, `across` ×
 * `deep` of them from x = 0, z = 0 towards −z; leaf k's level l is chunk
 * file 3k + l, with `displacements` per leaf where given, and splat-transform's
 * relative `errors` where given.
 */
function groundWorld(across: number, deep: number, displacements?: number[], errors?: number[]): LodIndex {
  const leaves: LodNode[] = [];
  for (let row = 0; row < deep; row++) {
    for (let col = 0; col < across; col++) {
      const k = leaves.length;
      leaves.push({
        path: `tree.children[${k}]`,
        bound: { min: [10 * col, 0, -10 * (row + 1)], max: [10 * (col + 1), 0.1, -10 * row] },
        children: [],
        runs: COUNTS.map((count, level) => ({ file: 3 * k + level, offset: 0, count })),
        errors: errors ?? null,
        displacements: displacements ?? null,
      });
    }
  }
  const filenames = leaves.flatMap((_, k) => COUNTS.map((__, level) => `${level}_${k}/meta.json`));
  return {
    levels: 3, counts: COUNTS.map((c) => c * leaves.length), filenames, environment: null, nodes: leaves.length + 1, leaves: leaves.length,
    tree: { path: 'tree', bound: { min: [0, 0, -10 * deep], max: [10 * across, 0.1, 0] }, children: leaves, runs: [], errors: null, displacements: null },
  };
}

/** A camera at `eye` looking down −z, 1920×1080, 60° high. */
const camera = (eye: [number, number, number], target?: [number, number, number]): CameraFile => ({
  width: 1920, height: 1080, fovy_deg: 60, eye, target: target ?? [eye[0], eye[1], eye[2] - 1], up: [0, 1, 0], background: [0, 0, 0], sh_degree: 0,
});
const ALL_RESIDENT = { resident: () => true };
const PIXELS_PER_UNIT = 1080 / (2 * Math.tan(Math.PI / 6));

describe('the level of a leaf against the camera\'s distance', () => {
  const leaves = worldLeaves(groundWorld(1, 1));

  it('takes each level\'s error from the spacing of its splats beyond the finest\'s', () => {
    expect(leaves[0]!.errors.map((e) => e!.toFixed(3))).toEqual(['0.000', '0.050', '0.150']);
  });

  it('is the coarsest whose error on screen stays within the threshold, coarser as the camera backs away', () => {
    const levels: number[] = [];
    for (const away of [5, 20, 40, 50, 100, 130, 150, 400]) {
      const eye: [number, number, number] = [5, 1, away];
      const choice = chooseLevels(leaves, worldView(camera(eye)), { thresholdPx: 1, budget: Infinity, ...ALL_RESIDENT });
      const distance = Math.hypot(1 - 0.1, away);
      // The formula: level 1 once 0.05 units are ≤ 1 px away, level 2 once 0.15 are.
      const expected = (0.15 * PIXELS_PER_UNIT) / distance <= 1 ? 2 : (0.05 * PIXELS_PER_UNIT) / distance <= 1 ? 1 : 0;
      expect(choice.wanted[0]).toBe(expected);
      levels.push(choice.wanted[0]!);
    }
    expect(levels).toEqual([0, 0, 0, 1, 1, 1, 2, 2]);
  });

  it('a larger threshold chooses coarser levels', () => {
    const view = worldView(camera([5, 1, 60]));
    const at = (thresholdPx: number) => chooseLevels(leaves, view, { thresholdPx, budget: Infinity, ...ALL_RESIDENT }).wanted[0];
    expect([at(0.5), at(1), at(4)]).toEqual([0, 1, 2]);
  });

  it('uses the index\'s displacements where it has them', () => {
    const own = worldLeaves(groundWorld(1, 1, [0, 10, 20]));
    expect(own[0]!.errors).toEqual([0, 10, 20]);
    expect(chooseLevels(own, worldView(camera([5, 1, 400])), { thresholdPx: 1, budget: Infinity, ...ALL_RESIDENT }).wanted[0]).toBe(0);
  });

  it("does not take splat-transform's relative errors for lengths: without displacements, the spacing", () => {
    const spacing = worldLeaves(groundWorld(1, 1)).map((leaf) => leaf.errors);
    // Relative image errors of 0.01–0.3 read as scene units would put every level under a pixel from far away.
    const relative = worldLeaves(groundWorld(1, 1, undefined, [0, 0.01, 0.3]));
    expect(relative.map((leaf) => leaf.errors)).toEqual(spacing);
  });
});

describe('the splat budget', () => {
  // 8 × 20 patches from above one end, looking along them: near ones fine, far ones coarse.
  const leaves = worldLeaves(groundWorld(8, 20));
  const view = worldView(camera([40, 3, 2], [40, 0, -60]));
  const free = chooseLevels(leaves, view, { thresholdPx: 1, budget: Infinity, ...ALL_RESIDENT });

  it('holds: the threshold rises until the chosen levels fit, never more splats than the budget', () => {
    expect(free.thresholdPx).toBe(1);
    // The view wants every level somewhere (and leaves some patches out of view: −1).
    expect(new Set(free.wanted)).toEqual(new Set([-1, 0, 1, 2]));
    for (const share of [0.8, 0.5, 0.3]) {
      const budget = Math.floor(share * free.wantedSplats);
      const choice = chooseLevels(leaves, view, { thresholdPx: 1, budget, ...ALL_RESIDENT });
      expect(choice.wantedSplats).toBeLessThanOrEqual(budget);
      expect(choice.drawnSplats).toBe(choice.wantedSplats);
      expect(choice.thresholdPx).toBeGreaterThan(1);
      expect(choice.leftOut).toBe(0);
      // Within a few percent of the budget: the search finds the lowest threshold that fits.
      expect(choice.wantedSplats).toBeGreaterThan(0.9 * budget);
    }
  });

  it('leaves out the farthest leaves when even the coarsest levels do not fit', () => {
    const inView = free.wanted.filter((l) => l >= 0).length;
    const budget = Math.floor((inView * COUNTS[2]!) / 2);
    const choice = chooseLevels(leaves, view, { thresholdPx: 1, budget, ...ALL_RESIDENT });
    expect(choice.wantedSplats).toBeLessThanOrEqual(budget);
    expect(choice.leftOut).toBeGreaterThan(0);
    const nearestLeftOut = Math.min(...[...choice.wanted.keys()].filter((i) => free.wanted[i]! >= 0 && choice.wanted[i] === -1).map((i) => -leaves[i]!.max[2]));
    const farthestKept = Math.max(...[...choice.wanted.keys()].filter((i) => choice.wanted[i]! >= 0).map((i) => -leaves[i]!.max[2]));
    expect(nearestLeftOut).toBeGreaterThanOrEqual(farthestKept);
  });

  it('among leaves as far as each other, leaves out the lower-numbered first, and no more than it must', () => {
    // A row of 4 patches seen from far above its middle: the outer two are as far as each other, the inner two too.
    const row = worldLeaves(groundWorld(4, 1));
    const above = worldView(camera([20, 500, -5], [20, 0, -5.001]));
    const leftOut = (budget: number) => chooseLevels(row, above, { thresholdPx: 1, budget, ...ALL_RESIDENT }).wanted;
    expect([...leftOut(Infinity)]).toEqual([2, 2, 2, 2]);
    expect([...leftOut(3 * COUNTS[2]!)]).toEqual([-1, 2, 2, 2]);
    expect([...leftOut(2 * COUNTS[2]!)]).toEqual([-1, 2, 2, -1]);
    expect([...leftOut(2 * COUNTS[2]! + 1)]).toEqual([-1, 2, 2, -1]);
    expect([...leftOut(COUNTS[2]!)]).toEqual([-1, -1, 2, -1]);
  });

  it('draws nothing behind the camera or outside the view', () => {
    const turned = chooseLevels(leaves, worldView(camera([40, 3, 2], [40, 3, 10])), { thresholdPx: 1, budget: Infinity, ...ALL_RESIDENT });
    expect(turned.draw).toEqual([]);
    expect(turned.fetch).toEqual([]);
    expect(free.wanted.some((l) => l === -1)).toBe(true); // patches off to the sides of the view
  });
});

describe('no holes while chunks arrive', () => {
  const leaves: WorldLeaf[] = worldLeaves(groundWorld(4, 6));
  const view = worldView(camera([20, 2, 3], [20, 0, -30]));
  const file = (leaf: number, level: number) => 3 * leaf + level;

  it('a leaf whose level has not arrived draws its coarser one, and the finer files are fetched, largest error first', () => {
    const coarseOnly = (f: number) => f % 3 === 2;
    const choice = chooseLevels(leaves, view, { thresholdPx: 1, budget: Infinity, resident: coarseOnly });
    const wanted = [...choice.wanted.keys()].filter((i) => choice.wanted[i]! >= 0);
    // Three levels a leaf: run 3 · leaf + level.
    expect(choice.draw.map((run) => Math.floor(run / 3)).sort((a, b) => a - b)).toEqual(wanted);
    for (const run of choice.draw) expect(run % 3).toBe(2);
    const finer = wanted.filter((i) => choice.wanted[i]! < 2);
    expect(finer.length).toBeGreaterThan(0);
    expect(new Set(choice.fetch)).toEqual(new Set(finer.map((i) => file(i, choice.wanted[i]!))));
    // Nearer leaves show larger errors: their files come first.
    const depthOf = (f: number) => -leaves[Math.floor(f / 3)]!.max[2];
    expect(depthOf(choice.fetch[0]!)).toBeLessThanOrEqual(depthOf(choice.fetch.at(-1)!));
  });

  it('a leaf whose coarser level has not arrived draws the finer one it has', () => {
    const fineOnly = (f: number) => f % 3 === 0;
    const choice = chooseLevels(leaves, worldView(camera([20, 2, 300], [20, 0, -30])), { thresholdPx: 1, budget: Infinity, resident: fineOnly });
    expect(choice.draw.length).toBeGreaterThan(0);
    for (const run of choice.draw) expect(run % 3).toBe(0);
  });

  it('with nothing resident, it draws nothing and asks first for the nearest holes\' coarsest levels', () => {
    const choice = chooseLevels(leaves, view, { thresholdPx: 1, budget: Infinity, resident: () => false });
    expect(choice.draw).toEqual([]);
    const holes = [...choice.wanted.keys()].filter((i) => choice.wanted[i]! >= 0);
    const coarsestFiles = choice.fetch.slice(0, holes.length);
    expect(new Set(coarsestFiles)).toEqual(new Set(holes.map((i) => file(i, 2))));
    // The rest: the wanted levels not already listed.
    expect(choice.fetch.length).toBe(new Set([...holes.map((i) => file(i, 2)), ...holes.map((i) => file(i, choice.wanted[i]!))]).size);
  });
});
