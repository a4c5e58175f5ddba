/**
 * The level choice's budget policies (src/app/world/world-budget-policy.ts):
 * 'benefit' and 'distance' against the same policies written plainly (a
 * scan for the best upgrade each step; every distance tried in order), on
 * random worlds, cameras and budgets; each within the budget and never
 * finer than the asked threshold; all three the asked threshold's choice
 * where the budget does not bind; and on a made world whose leaves differ
 * in size on screen, 'benefit' leaves less error × area than 'threshold'.
 */
import { describe, expect, it } from 'vitest';
import type { CameraFile } from '../../src/app/camera/camera-file';
import { screenArea } from '../../src/app/world/world-budget-policy';
import { worldChoice, worldLeaves, worldView, type BudgetPolicy, type LodChoice, type LodChoiceOptions, type WorldLeaf, type WorldView } from '../../src/app/world/world-lod';
import type { LodIndex, LodNode } from '../../src/io/lod/lod-meta';
import { random } from '../support/up-scenes';
import { levelsAt, pixelsOf, randomView, randomWorld } from '../support/random-world';

const POLICIES: readonly BudgetPolicy[] = ['threshold', 'benefit', 'distance'];

/** The levels a leaf may be drawn at (those with an error), finest first. */
const usable = (leaf: WorldLeaf) => leaf.errors.flatMap((e, level) => (e === null ? [] : [level]));
const splatsOf = (leaves: readonly WorldLeaf[], wanted: Int32Array) => leaves.reduce((sum, leaf, i) => sum + (wanted[i]! >= 0 ? leaf.runs[wanted[i]!]!.count : 0), 0);
const areaOf = (leaf: WorldLeaf, view: WorldView) => screenArea(new Float64Array([...leaf.min, ...leaf.max]), 0, view);

/** What the policies give but the draw and fetch lists: the levels wanted, their splats, the threshold reported, the leaves left out. */
type Levels = Pick<LodChoice, 'wanted' | 'wantedSplats' | 'thresholdPx' | 'leftOut'>;

/** The farthest leaves in view left out until `wanted` fits the budget (the lower leaf first among equally far; one wanting nothing is not counted). */
function leaveOut(leaves: readonly WorldLeaf[], wanted: Int32Array, inView: number[], distance: number[], budget: number): number {
  let leftOut = 0;
  for (const i of [...inView].sort((a, b) => distance[b]! - distance[a]!)) {
    if (splatsOf(leaves, wanted) <= budget) break;
    if (wanted[i]! < 0) continue;
    wanted[i] = -1;
    leftOut++;
  }
  return leftOut;
}

/** The largest error in pixels of a wanted level, at least the asked threshold. */
function largestError(leaves: readonly WorldLeaf[], wanted: Int32Array, distance: number[], view: WorldView, asked: number): number {
  return leaves.reduce((most, leaf, i) => (wanted[i]! >= 0 ? Math.max(most, pixelsOf(leaf.errors[wanted[i]!]!, distance[i]!, view)) : most), asked);
}

/** 'benefit' written plainly: from the coarsest levels, the best upgrade found by a scan each step. */
function plainBenefit(leaves: readonly WorldLeaf[], view: WorldView, options: LodChoiceOptions): Levels {
  const at = levelsAt(leaves, view, options.thresholdPx);
  if (at.splats <= options.budget) return { wanted: at.wanted, wantedSplats: at.splats, thresholdPx: options.thresholdPx, leftOut: 0 };
  const asked = at.wanted.slice();
  const wanted = at.wanted.map((level, i) => (level < 0 ? -1 : Math.max(...usable(leaves[i]!))));
  const leftOut = leaveOut(leaves, wanted, at.inView, at.distance, options.budget);
  const pixels = (i: number, level: number) => pixelsOf(leaves[i]!.errors[level]!, at.distance[i]!, view);
  const area = leaves.map((leaf) => areaOf(leaf, view));
  const next = (i: number): [number, number] | null => {
    const to = usable(leaves[i]!).filter((l) => l < wanted[i]! && l >= asked[i]! && pixels(i, l) < pixels(i, wanted[i]!)).pop();
    if (to === undefined) return null;
    const added = leaves[i]!.runs[to]!.count - leaves[i]!.runs[wanted[i]!]!.count;
    return [to, added > 0 ? (area[i]! * (pixels(i, wanted[i]!) - pixels(i, to))) / added : Infinity];
  };
  const dropped = new Set<number>();
  for (;;) {
    let best: [number, number, number] | null = null;
    for (const i of at.inView) {
      const upgrade = wanted[i]! >= 0 && !dropped.has(i) ? next(i) : null;
      if (upgrade && (!best || upgrade[1] > best[2])) best = [i, upgrade[0], upgrade[1]];
    }
    if (!best) break;
    const [i, to] = best;
    const trial = wanted.slice();
    trial[i] = to;
    if (splatsOf(leaves, trial) <= options.budget) wanted[i] = to;
    else dropped.add(i);
  }
  return { wanted, wantedSplats: splatsOf(leaves, wanted), thresholdPx: largestError(leaves, wanted, at.distance, view, options.thresholdPx), leftOut };
}

/** 'distance' written plainly: every d0 a leaf changes level at tried, farthest first, until the levels fit. */
function plainDistance(leaves: readonly WorldLeaf[], view: WorldView, options: LodChoiceOptions): Levels {
  const at = levelsAt(leaves, view, options.thresholdPx);
  if (at.splats <= options.budget) return { wanted: at.wanted, wantedSplats: at.splats, thresholdPx: options.thresholdPx, leftOut: 0 };
  const near = (i: number) => Math.max(at.distance[i]!, 1e-9);
  // A key is 1/d0: level l from 2^(l−1)/d on, the leaf's next finer level where it lacks l, never finer than asked.
  const levelsFor = (key: number) => at.wanted.map((asked, i) => (asked < 0 ? -1 : Math.max(asked, ...usable(leaves[i]!).filter((l) => l > asked && 2 ** (l - 1) / near(i) <= key))));
  const keys = [...new Set(at.inView.flatMap((i) => usable(leaves[i]!).filter((l) => l > at.wanted[i]!).map((l) => 2 ** (l - 1) / near(i))))].sort((a, b) => a - b);
  const key = keys.find((k) => splatsOf(leaves, levelsFor(k)) <= options.budget) ?? Infinity;
  const wanted = levelsFor(key);
  const leftOut = leaveOut(leaves, wanted, at.inView, at.distance, options.budget);
  return { wanted, wantedSplats: splatsOf(leaves, wanted), thresholdPx: largestError(leaves, wanted, at.distance, view, options.thresholdPx), leftOut };
}

/** Random worlds, cameras and options (half the budgets binding, some leaving leaves out), each given to `check`. */
function eachCase(seed: number, check: (index: LodIndex, leaves: WorldLeaf[], view: WorldView, options: LodChoiceOptions, free: number) => void): void {
  const rand = random(seed);
  for (let world = 0; world < 60; world++) {
    const index = randomWorld(rand, world % 3 !== 0);
    const leaves = worldLeaves(index);
    for (let frame = 0; frame < 8; frame++) {
      const view = randomView(rand);
      const thresholdPx = 0.3 + rand() * 3;
      const free = levelsAt(leaves, view, thresholdPx).splats;
      const budget = rand() < 0.3 ? Infinity : Math.floor(rand() * free * 1.2);
      check(index, leaves, view, { thresholdPx, budget, resident: () => true }, free);
    }
  }
}

const levelsOf = (choice: LodChoice): Levels => ({ wanted: choice.wanted.slice(), wantedSplats: choice.wantedSplats, thresholdPx: choice.thresholdPx, leftOut: choice.leftOut });

describe('the budget policies', () => {
  it('each keeps within the budget and never draws a leaf finer than the asked threshold wants', () => {
    let binding = 0;
    let leftOut = 0;
    eachCase(45, (index, leaves, view, options) => {
      const asked = levelsAt(leaves, view, options.thresholdPx).wanted;
      const prepared = worldChoice(index);
      for (const budgetPolicy of POLICIES) {
        const choice = prepared.choose(view, { ...options, budgetPolicy });
        expect(choice.wantedSplats).toBe(splatsOf(leaves, choice.wanted));
        expect(choice.wantedSplats).toBeLessThanOrEqual(options.budget);
        // A level number: higher is coarser.
        choice.wanted.forEach((level, i) => level >= 0 && expect(level).toBeGreaterThanOrEqual(asked[i]!));
        if (budgetPolicy === 'benefit' && choice.leftOut > 0) leftOut++;
      }
      if (levelsAt(leaves, view, options.thresholdPx).splats > options.budget) binding++;
    });
    expect(binding).toBeGreaterThan(200);
    expect(leftOut).toBeGreaterThan(20);
  });

  it('give the asked threshold\'s choice, all three, where the budget does not bind', () => {
    eachCase(46, (index, _leaves, view, options, free) => {
      const prepared = worldChoice(index);
      for (const budget of [Infinity, free, free + 1]) {
        const [threshold, ...others] = POLICIES.map((budgetPolicy) => structuredClone(prepared.choose(view, { ...options, budget, budgetPolicy })));
        expect(threshold!.thresholdPx).toBe(options.thresholdPx);
        for (const other of others) expect(other).toEqual(threshold);
      }
    });
  });

  it('equal their plain versions: benefit bought best first, distance at the largest d0 that fits', () => {
    const differ = { benefit: 0, distance: 0 };
    eachCase(47, (index, leaves, view, options) => {
      const prepared = worldChoice(index);
      const threshold = levelsOf(prepared.choose(view, options));
      const benefit = levelsOf(prepared.choose(view, { ...options, budgetPolicy: 'benefit' }));
      const distance = levelsOf(prepared.choose(view, { ...options, budgetPolicy: 'distance' }));
      expect(benefit).toEqual(plainBenefit(leaves, view, options));
      expect(distance).toEqual(plainDistance(leaves, view, options));
      if (threshold.wanted.some((level, i) => level !== benefit.wanted[i])) differ.benefit++;
      if (threshold.wanted.some((level, i) => level !== distance.wanted[i])) differ.distance++;
    });
    // Cases where the policies chose otherwise than the threshold were there.
    expect(differ.benefit).toBeGreaterThan(50);
    expect(differ.distance).toBeGreaterThan(50);
  });
});

/**
 * Ground patches 100 units ahead of a camera looking down −z: 8 small (1 × 1)
 * and 8 large (6 × 6), two levels each (1,000 splats, error 0; 100 splats),
 * the small ones' coarse level a fifth further off than the large ones'.
 */
function patchWorld(): LodIndex {
  const leaves: LodNode[] = [];
  for (let k = 0; k < 16; k++) {
    const side = k % 2 === 0 ? 1 : 6;
    const [x, y] = [((k % 4) - 1.5) * 12, (Math.floor(k / 4) - 1.5) * 12];
    leaves.push({
      path: `tree.children[${k}]`, bound: { min: [x, y, -100.1], max: [x + side, y + side, -100] }, children: [],
      runs: [{ file: 2 * k, offset: 0, count: 1000 }, { file: 2 * k + 1, offset: 0, count: 100 }], errors: null,
      displacements: [0, side === 1 ? 0.012 : 0.01],
    });
  }
  return {
    levels: 2, counts: [16_000, 1_600], filenames: leaves.flatMap((_, k) => [`0_${k}/meta.json`, `1_${k}/meta.json`]), environment: null, nodes: 17, leaves: 16,
    tree: { path: 'tree', bound: { min: [-30, -30, -100.1], max: [30, 30, -100] }, children: leaves, runs: [], errors: null, displacements: null },
  };
}

describe('spending by benefit', () => {
  it('leaves less screen area × pixels of error than one threshold for all, at the same budget', () => {
    const index = patchWorld();
    const leaves = worldLeaves(index);
    const camera: CameraFile = { width: 1920, height: 1080, fovy_deg: 60, eye: [0, 0, 0], target: [0, 0, -1], up: [0, 1, 0], background: [0, 0, 0], sh_degree: 0 };
    const view = worldView(camera);
    const asked = levelsAt(leaves, view, 0.05);
    // Every leaf wants its finest level at 0.05 px; the budget holds half of them there.
    expect([...asked.wanted]).toEqual(new Array(16).fill(0));
    const options = { thresholdPx: 0.05, budget: 1_600 + 8 * 900, resident: () => true };
    const cost = (choice: LodChoice) => leaves.reduce((sum, leaf, i) => sum + areaOf(leaf, view) * pixelsOf(leaf.errors[choice.wanted[i]!]!, asked.distance[i]!, view), 0);
    const prepared = worldChoice(index);
    const threshold = structuredClone(prepared.choose(view, { ...options, budgetPolicy: 'threshold' }));
    const benefit = structuredClone(prepared.choose(view, { ...options, budgetPolicy: 'benefit' }));
    expect(benefit.wantedSplats).toBe(options.budget);
    // The threshold keeps the small patches fine (their error in pixels is larger); benefit the large ones.
    expect([...threshold.wanted]).toEqual(leaves.map((_, k) => (k % 2 === 0 ? 0 : 1)));
    expect([...benefit.wanted]).toEqual(leaves.map((_, k) => (k % 2 === 0 ? 1 : 0)));
    expect(cost(benefit)).toBeLessThan(cost(threshold) / 10);
  });
});
