/**
 * A leaf's change of level spread over time (src/app/world/world-fades.ts):
 * the incoming level fades in while the outgoing one fades out, their
 * opacities summing to 1; a leaf
 * turning back mid-fade continues from the picture it shows; a leaf that
 * leaves goes at once; a fade without room ends at once.
 */
import { describe, expect, test } from 'vitest';
import { LevelFades } from '../../src/app/world/world-fades';
import type { DrawnRun } from '../../src/app/world/world-choice-types';

/** Runs of leaf `leaf` at levels 0 and 1 (and 2), made once as the choice makes them. */
function leafRuns(leaf: number, count = 100): DrawnRun[] {
  return [0, 1, 2].map((level) => ({ leaf, level, run: { file: 3 * leaf + level, offset: 0, count: count >> level } }));
}

/** The opacity each run is drawn at, by "leaf:level". */
function drawnAt(fades: LevelFades, draw: DrawnRun[], now: number, room = 1e9): Record<string, number> {
  const count = fades.update(draw, now, room);
  const runs = fades.runs;
  const out: Record<string, number> = {};
  for (let i = 0; i < count; i++) out[`${runs[i]!.run.leaf}:${runs[i]!.run.level}`] = runs[i]!.opacity;
  return out;
}

describe('level fades', () => {
  test('a change of level: the incoming level fades in while the outgoing one, still drawn, fades out', () => {
    const fades = new LevelFades(1, 300);
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
    const fades = new LevelFades(1, 300);
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
    const fades = new LevelFades(2, 300);
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
    const fades = new LevelFades(2, 300);
    const a = leafRuns(0, 100);
    const b = leafRuns(1, 1000);
    fades.update([a[1]!, b[1]!], 0, 1e9);
    fades.update([a[1]!, b[1]!], 500, 1e9);
    // Room for a's outgoing 50 splats, not b's 500.
    expect(drawnAt(fades, [a[0]!, b[0]!], 1000, 100)).toEqual({ '0:0': 0, '1:0': 1, '0:1': 1 });
    expect(fades.cutShort).toBe(1);
    expect(drawnAt(fades, [a[0]!, b[0]!], 1075, 100)).toEqual({ '0:0': 0.25, '1:0': 1, '0:1': 0.75 });
  });

  test('a fade of 0 ms changes level at once', () => {
    const fades = new LevelFades(1, 0);
    const [fine, coarse] = leafRuns(0);
    expect(drawnAt(fades, [coarse!], 0)).toEqual({ '0:1': 1 });
    expect(drawnAt(fades, [fine!], 1)).toEqual({ '0:0': 1 });
    expect(fades.active).toBe(false);
  });
});
