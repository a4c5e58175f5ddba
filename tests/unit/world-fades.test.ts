/**
 * A leaf's change of level spread over time (src/app/world/world-fades.ts):
 * the incoming level fades in while the outgoing one fades out, their
 * opacities summing to 1; a leaf
 * turning back mid-fade continues from the picture it shows; a leaf that
 * leaves goes at once; a fade without room ends at once. And over many
 * leaves changing, leaving and fading at random, ending in any order: each
 * leaf drawn keeps one fade's pair of runs at opacities summing to 1, and
 * is drawn whole once its fade's time is up. (What a frame's update
 * allocates: world-fades-allocation.test.ts.)
 */
import { describe, expect, test } from 'vitest';
import { LevelFades } from '../../src/app/world/world-fades';
import { random } from '../support/up-scenes';

/** Fades over leaves of three levels, leaf i's finest of `counts[i]` splats (or `counts` each) and each level half the one before. */
function fadesOver(counts: number | number[], fadeMs: number): LevelFades {
  const list = typeof counts === 'number' ? new Array<number>(counts).fill(100) : counts;
  const runCounts = Float64Array.from({ length: 3 * list.length }, (_, run) => list[Math.floor(run / 3)]! >> run % 3);
  return new LevelFades({ leaves: list.length, levels: 3, runCounts }, fadeMs);
}

/** The numbers of leaf `leaf`'s runs at levels 0, 1 and 2. */
function leafRuns(leaf: number): number[] {
  return [0, 1, 2].map((level) => 3 * leaf + level);
}

/** The opacity each run is drawn at, by "leaf:level". */
function drawnAt(fades: LevelFades, draw: number[], now: number, room = 1e9): Record<string, number> {
  const count = fades.update(draw, now, room);
  const out: Record<string, number> = {};
  for (let i = 0; i < count; i++) out[`${Math.floor(fades.runs[i]! / 3)}:${fades.runs[i]! % 3}`] = fades.opacities[i]!;
  return out;
}

describe('level fades', () => {
  test('a change of level: the incoming level fades in while the outgoing one, still drawn, fades out', () => {
    const fades = fadesOver(1, 300);
    const [fine, coarse] = leafRuns(0);
    // The first draw fades in from nothing.
    expect(drawnAt(fades, [coarse!], 0)).toEqual({ '0:1': 0 });
    expect(drawnAt(fades, [coarse!], 75)).toEqual({ '0:1': 0.25 });
    expect(drawnAt(fades, [coarse!], 300)).toEqual({ '0:1': 1 });
    expect(fades.active).toBe(false);
    expect(drawnAt(fades, [fine!], 1000)).toEqual({ '0:0': 0, '0:1': 1 });
    expect(fades.active).toBe(true);
    expect(drawnAt(fades, [fine!], 1075)).toEqual({ '0:0': 0.25, '0:1': 0.75 });
    expect(drawnAt(fades, [fine!], 1150)).toEqual({ '0:0': 0.5, '0:1': 0.5 });
    expect(drawnAt(fades, [fine!], 1300)).toEqual({ '0:0': 1 });
    expect(fades.active).toBe(false);
    expect(drawnAt(fades, [fine!], 1400)).toEqual({ '0:0': 1 });
  });

  test('turning back mid-fade continues from the picture shown; a third level takes the place of the level drawn less', () => {
    const fades = fadesOver(1, 300);
    const [fine, coarse, coarsest] = leafRuns(0);
    fades.update([coarse!], 0, 1e9);
    fades.update([coarse!], 500, 1e9);
    expect(drawnAt(fades, [fine!], 1000)).toEqual({ '0:0': 0, '0:1': 1 });
    expect(drawnAt(fades, [fine!], 1225)).toEqual({ '0:0': 0.75, '0:1': 0.25 });
    // Back to the coarse level: the same opacities, then on towards the coarse one.
    expect(drawnAt(fades, [coarse!], 1225)).toEqual({ '0:1': 0.25, '0:0': 0.75 });
    expect(drawnAt(fades, [coarse!], 1300)).toEqual({ '0:1': 0.5, '0:0': 0.5 });
    expect(drawnAt(fades, [coarse!], 1375)).toEqual({ '0:1': 0.75, '0:0': 0.25 });
    // A third level: the fine one (0.25) gives it its place and opacity; the coarse one keeps its 0.75.
    expect(drawnAt(fades, [coarsest!], 1375)).toEqual({ '0:2': 0.25, '0:1': 0.75 });
    expect(drawnAt(fades, [coarsest!], 1450)).toEqual({ '0:2': 0.5, '0:1': 0.5 });
  });

  test('a leaf no longer drawn goes at once, and one drawn again fades in from nothing', () => {
    const fades = fadesOver(2, 300);
    const a = leafRuns(0);
    const b = leafRuns(1);
    fades.update([a[1]!, b[1]!], 0, 1e9);
    fades.update([a[1]!, b[1]!], 500, 1e9);
    expect(drawnAt(fades, [a[0]!], 600)).toEqual({ '0:0': 0, '0:1': 1 });
    expect(drawnAt(fades, [b[1]!], 700)).toEqual({ '1:1': 0 });
    expect(drawnAt(fades, [b[1]!], 775)).toEqual({ '1:1': 0.25 });
    expect(drawnAt(fades, [b[1]!], 1000)).toEqual({ '1:1': 1 });
  });

  test('a fade whose outgoing level finds no room beside the budget ends at once: the incoming level is drawn whole', () => {
    const fades = fadesOver([100, 1000], 300);
    const a = leafRuns(0);
    const b = leafRuns(1);
    fades.update([a[1]!, b[1]!], 0, 1e9);
    fades.update([a[1]!, b[1]!], 500, 1e9);
    // Room for a's outgoing 50 splats (not its incoming 100), not b's 500.
    expect(drawnAt(fades, [a[0]!, b[0]!], 1000, 60)).toEqual({ '0:0': 0, '1:0': 1, '0:1': 1 });
    expect(fades.cutShort).toBe(1);
    expect(drawnAt(fades, [a[0]!, b[0]!], 1075, 60)).toEqual({ '0:0': 0.25, '1:0': 1, '0:1': 0.75 });
  });

  test('a fade of 0 ms changes level at once', () => {
    const fades = fadesOver(1, 0);
    const [fine, coarse] = leafRuns(0);
    expect(drawnAt(fades, [coarse!], 0)).toEqual({ '0:1': 1 });
    expect(drawnAt(fades, [fine!], 1)).toEqual({ '0:0': 1 });
    expect(fades.active).toBe(false);
  });

  test('many leaves changing, leaving and fading at random, some fades cut short: one pair of runs a leaf, summing to 1, and whole once the fade is over', () => {
    const LEAVES = 300;
    const FADE = 300;
    const rand = random(44);
    const runs = Array.from({ length: LEAVES }, (_, leaf) => leafRuns(leaf));
    const fades = fadesOver(LEAVES, FADE);
    // Per leaf: its level drawn (−1: not drawn), and when that last changed.
    const level = new Array<number>(LEAVES).fill(-1);
    const changedAt = new Array<number>(LEAVES).fill(-Infinity);
    for (let frame = 0, now = 0; frame < 400; frame++, now += 16) {
      // Now and then most leaves change at once (a budget moved), else a few.
      const share = frame % 50 === 0 ? 0.8 : 0.02;
      for (let leaf = 0; leaf < LEAVES; leaf++) {
        if (rand() >= share) continue;
        level[leaf] = rand() < 0.15 ? -1 : Math.floor(rand() * 3);
        changedAt[leaf] = now;
      }
      const draw = runs.flatMap((r, leaf) => (level[leaf]! >= 0 ? [r[level[leaf]!]!] : []));
      // Every third frame, room beside the budget for only some of the outgoing runs: the rest end at once.
      const count = fades.update(draw, now, frame % 3 === 0 ? 3000 : Infinity);
      const drawn = new Map<number, { incoming: number; outgoing: number; runs: number }>();
      for (let i = 0; i < count; i++) {
        const leaf = Math.floor(fades.runs[i]! / 3);
        const opacity = fades.opacities[i]!;
        const d = drawn.get(leaf) ?? { incoming: 0, outgoing: 0, runs: 0 };
        d.runs++;
        if (i < draw.length) d.incoming = opacity;
        else d.outgoing = opacity;
        drawn.set(leaf, d);
        expect(opacity).toBeGreaterThanOrEqual(0);
        expect(opacity).toBeLessThanOrEqual(1);
      }
      expect([...drawn.keys()].sort((a, b) => a - b)).toEqual(draw.map((r) => Math.floor(r / 3)));
      for (const [leaf, d] of drawn) {
        expect(d.runs).toBeLessThanOrEqual(2);
        // A fade in from nothing, or one cut short, has no outgoing run; a change of level sums to 1.
        if (d.runs === 2) expect(d.incoming + d.outgoing).toBeCloseTo(1, 12);
        if (now - changedAt[leaf]! >= FADE) expect(d).toEqual({ incoming: 1, outgoing: 0, runs: 1 });
      }
    }
  });
});
