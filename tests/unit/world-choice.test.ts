/**
 * The prepared level choice (src/app/world/world-choice.ts and the two files it
 * rests on) against the choice written plainly: every leaf tested against
 * every plane, each leaf's level found by scanning its levels, the budget's
 * threshold by trying every breakpoint in order. Random worlds, cameras,
 * budgets and residency; the results must be equal, not close.
 */
import { describe, expect, it } from 'vitest';
import { selectWeighted, fittingThreshold } from '../../src/app/world/world-budget';
import { BoxTree } from '../../src/app/world/world-cull';
import { levelsOf } from '../../src/app/world/world-run-table';
import { chooseLevels, worldChoice, worldLeaves, worldView, type LodChoice, type LodChoiceOptions, type WorldLeaf, type WorldView } from '../../src/app/world/world-lod';
import { random } from '../support/up-scenes';
import { boxInView, levelsAt, pixelsOf, randomView, randomWorld } from '../support/random-world';

/** The choice written plainly: the budget's threshold by trying every breakpoint up to the ceiling in order. */
function plainChoice(leaves: readonly WorldLeaf[], view: WorldView, options: LodChoiceOptions): LodChoice {
  let thresholdPx = options.thresholdPx;
  let at = levelsAt(leaves, view, thresholdPx);
  if (at.splats > options.budget) {
    let ceiling = Math.max(thresholdPx, 1) * 2;
    while (ceiling < 1e12) ceiling *= 2;
    const breakpoints = at.inView.flatMap((i) => leaves[i]!.errors.flatMap((e) => (e === null ? [] : [pixelsOf(e, at.distance[i]!, view)])));
    const candidates = [...new Set(breakpoints)].filter((p) => p > thresholdPx && p <= ceiling).sort((a, b) => a - b);
    thresholdPx = candidates.find((p) => levelsAt(leaves, view, p).splats <= options.budget) ?? ceiling;
    at = levelsAt(leaves, view, thresholdPx);
  }
  const { wanted, distance, inView } = at;
  let wantedSplats = at.splats;
  let leftOut = 0;
  const splatsOf = (i: number) => leaves[i]!.runs[wanted[i]!]?.count ?? 0;
  for (const i of [...inView].sort((a, b) => distance[b]! - distance[a]!)) {
    if (wantedSplats <= options.budget) break;
    if (wanted[i]! < 0) continue;
    wantedSplats -= splatsOf(i);
    wanted[i] = -1;
    leftOut++;
  }
  const has = (i: number, level: number) => (leaves[i]!.runs[level]?.count ?? 0) > 0 && options.resident(leaves[i]!.runs[level]!.file);
  const draw: LodChoice['draw'] = [];
  const need = new Map<number, [number, number]>();
  const ask = (file: number, tier: number, value: number) => {
    const had = need.get(file);
    if (!options.resident(file) && (!had || tier > had[0] || (tier === had[0] && value > had[1]))) need.set(file, [tier, value]);
  };
  const shownOf = (i: number) => {
    const level = wanted[i]!;
    const levels = leaves[i]!.runs.map((_, l) => l);
    return has(i, level) ? level : (levels.find((l) => l > level && has(i, l)) ?? levels.reverse().find((l) => l < level && has(i, l)) ?? -1);
  };
  const askHole = (i: number) => {
    const leaf = leaves[i]!;
    ask(leaf.runs[Math.max(...leaf.runs.map((_, l) => l).filter((l) => (leaf.runs[l]?.count ?? 0) > 0))]!.file, 2, -distance[i]!);
    ask(leaf.runs[wanted[i]!]!.file, 1, -distance[i]!);
  };
  const show = (i: number, shown: number) => {
    draw.push(i * levelsOf(leaves) + shown);
    if (shown !== wanted[i]) ask(leaves[i]!.runs[wanted[i]!]!.file, 0, pixelsOf(leaves[i]!.errors[shown]!, distance[i]!, view));
  };
  // Stand-ins of more splats than the wanted level draw while the budget holds them, nearest first.
  const wanting = inView.filter((j) => wanted[j]! >= 0);
  const splatsAt = (i: number, level: number) => leaves[i]!.runs[level]?.count ?? 0;
  const costlier = wanting.filter((i) => shownOf(i) >= 0 && splatsAt(i, shownOf(i)) > splatsAt(i, wanted[i]!));
  for (const i of wanting.filter((j) => !costlier.includes(j))) (shownOf(i) < 0 ? askHole(i) : show(i, shownOf(i)));
  const splatsOfRun = (run: number) => leaves[Math.floor(run / levelsOf(leaves))]!.runs[run % levelsOf(leaves)]!.count;
  let drawn = draw.reduce((sum, run) => sum + splatsOfRun(run), 0);
  const costlierSplats = costlier.reduce((sum, i) => sum + splatsAt(i, shownOf(i)), 0);
  if (drawn + costlierSplats > options.budget) costlier.sort((a, b) => distance[a]! - distance[b]! || a - b);
  for (const i of costlier) {
    const splats = splatsAt(i, shownOf(i));
    if (drawn + splats > options.budget) askHole(i);
    else {
      show(i, shownOf(i));
      drawn += splats;
    }
  }
  const fetch = [...need].sort((a, b) => b[1][0] - a[1][0] || b[1][1] - a[1][1] || a[0] - b[0]).map(([file]) => file);
  return { draw, drawnSplats: draw.reduce((sum, run) => sum + splatsOfRun(run), 0), wanted, wantedSplats, thresholdPx, leftOut, fetch };
}

describe('the prepared choice', () => {
  it('equals the plain one on random worlds, cameras, budgets and residency, splats falling with the level or not, and never draws past the budget', () => {
    const rand = random(20261127);
    let budgeted = 0;
    let leftOut = 0;
    let heldBack = 0;
    for (let world = 0; world < 60; world++) {
      const index = randomWorld(rand, world % 3 !== 0);
      const leaves = worldLeaves(index);
      const prepared = worldChoice(index);
      for (let frame = 0; frame < 8; frame++) {
        const view = randomView(rand);
        const onGpu = new Set(index.filenames.map((_, f) => f).filter(() => rand() < 0.6));
        const free = chooseLevels(leaves, view, { thresholdPx: 1, budget: Infinity, resident: () => true });
        const options = { thresholdPx: 0.3 + rand() * 3, budget: rand() < 0.3 ? Infinity : Math.floor(rand() * free.wantedSplats * 1.2), resident: (f: number) => onGpu.has(f) };
        const expected = plainChoice(leaves, view, options);
        expect(chooseLevels(leaves, view, options)).toEqual(expected);
        expect(prepared.choose(view, options)).toEqual(expected);
        // Never past the budget, finer levels standing in or not.
        expect(expected.drawnSplats).toBeLessThanOrEqual(options.budget);
        const showable = [...expected.wanted].filter((level, i) => level >= 0 && leaves[i]!.runs.some((run) => run && run.count > 0 && options.resident(run.file))).length;
        if (expected.draw.length < showable) heldBack++;
        if (expected.thresholdPx > options.thresholdPx) budgeted++;
        if (expected.leftOut > 0) leftOut++;
      }
    }
    // The cases were all there: budgets that raised the threshold, and budgets that left leaves out.
    expect(budgeted).toBeGreaterThan(50);
    expect(leftOut).toBeGreaterThan(20);
    // and finer levels held back for want of room.
    expect(heldBack).toBeGreaterThan(5);
  });

  it('rewrites one result in place; chooseLevels gives each call its own', () => {
    const index = randomWorld(random(7), true);
    const prepared = worldChoice(index);
    const leaves = worldLeaves(index);
    const options = { thresholdPx: 1, budget: Infinity, resident: () => true };
    const rand = random(11);
    const views = [0, 1, 2].map(() => randomView(rand));
    const first = prepared.choose(views[0]!, options);
    const drawnFirst = [...first.draw];
    const own = chooseLevels(leaves, views[0]!, options);
    expect(prepared.choose(views[1]!, options)).toBe(first);
    expect(own).toEqual(chooseLevels(leaves, views[0]!, options));
    expect(prepared.choose(views[0]!, options).draw).toEqual(drawnFirst);
  });
  it('after a call that `resident` broke off, the next lists no file the broken one asked for', () => {
    const index = randomWorld(random(12), true);
    const leaves = worldLeaves(index);
    const prepared = worldChoice(index);
    const view = worldView({ width: 1280, height: 720, fovy_deg: 60, eye: [0, 150, 0], target: [0, 0, 0], up: [0, 0, -1], background: [0, 0, 0], sh_degree: 0 });
    let consulted = 0;
    const none = { thresholdPx: 1, budget: Infinity, resident: () => (consulted++, false) };
    expect(prepared.choose(view, none).fetch.length).toBeGreaterThan(1);
    // Broken off at the last file it asks about: by then it has asked for the others.
    let asked = 0;
    const breaking = (file: number) => {
      if (++asked === consulted) throw new Error(`file ${file}: the GPU was lost`);
      return false;
    };
    expect(() => prepared.choose(view, { ...none, resident: breaking })).toThrow('the GPU was lost');
    const all = { ...none, resident: () => true };
    expect(prepared.choose(view, all)).toEqual(plainChoice(leaves, view, all));
    expect(prepared.choose(view, all).fetch).toEqual([]);
  });
});

describe('culling by the tree', () => {
  it('keeps the same leaves as testing every leaf, whatever the index says of its inner bounds', () => {
    const rand = random(99);
    for (let world = 0; world < 40; world++) {
      const index = randomWorld(rand, true);
      const leaves = worldLeaves(index);
      const boxes = new Float64Array(leaves.flatMap((leaf) => [...leaf.min, ...leaf.max]));
      const byTree = new BoxTree(boxes, index.tree);
      const byLeaf = new BoxTree(boxes, null);
      const out = new Int32Array(leaves.length);
      for (let frame = 0; frame < 20; frame++) {
        const view = randomView(rand);
        const expected = leaves.flatMap((leaf, i) => (boxInView(leaf, view.planes) ? [i] : []));
        expect([...out.subarray(0, byTree.cull(view.planes, out))]).toEqual(expected);
        expect([...out.subarray(0, byLeaf.cull(view.planes, out))]).toEqual(expected);
      }
    }
  });
});

describe('the budget\'s selection', () => {
  /** The smallest key whose weights, with those of all smaller keys, reach `need`: by sorting. */
  const sorted = (keys: number[], weights: number[], need: number) => {
    const order = keys.map((_, j) => j).sort((a, b) => keys[a]! - keys[b]!);
    let sum = 0;
    for (const j of order) if ((sum += weights[j]!) >= need) return keys[j]!;
    return Infinity;
  };

  it('finds what a sort finds: ties, zero weights, negative keys, keys spread over any number of octaves, and too little weight', () => {
    const rand = random(5);
    for (let trial = 0; trial < 300; trial++) {
      const count = [3, 40, 300, 3000][trial % 4]!;
      const spread = trial % 5 === 0 ? 600 : 20;
      // Keys of one sign (a narrowing spans one sign's octaves) or of both.
      const negative = [0, 1, 0.3][trial % 3]!;
      const keys = Array.from({ length: count }, () => (rand() < 0.2 ? 4 : (rand() < negative ? -1 : 1) * 2 ** ((rand() - 0.5) * spread)));
      const weights = Array.from({ length: count }, () => (rand() < 0.2 ? 0 : Math.floor(rand() * 1000)));
      const total = weights.reduce((a, b) => a + b, 0);
      // Half the time exactly what the keys up to one of them weigh: the sum reaches the need at a bucket's last key.
      const upTo = keys[Math.floor(rand() * count)]!;
      const exact = keys.reduce((sum, key, j) => sum + (key <= upTo ? weights[j]! : 0), 0);
      const need = trial % 2 === 0 && exact > 0 ? exact : Math.max(1, Math.floor(rand() * total * 1.05));
      expect(selectWeighted(new Float64Array(keys), new Float64Array(weights), count, need)).toBe(sorted(keys, weights, need));
    }
  });

  it('sweeps in order where some breakpoint adds splats (a coarser level holding more)', () => {
    const rand = random(6);
    for (let trial = 0; trial < 200; trial++) {
      const count = 1 + Math.floor(rand() * 400);
      const pixels = Array.from({ length: count }, () => Math.floor(rand() * 50) / 4);
      const shed = Array.from({ length: count }, () => Math.floor((rand() - 0.3) * 1000));
      const need = 1 + Math.floor(rand() * 20000);
      const order = pixels.map((_, j) => j).sort((a, b) => pixels[a]! - pixels[b]!);
      let sum = 0;
      const expected = order.find((j, k) => (sum += shed[j]!) >= need && pixels[order[k + 1]!] !== pixels[j]) ?? -1;
      expect(fittingThreshold(new Float64Array(pixels), new Float64Array(shed), count, need)).toBe(expected < 0 ? Infinity : pixels[expected]);
    }
  });
});
