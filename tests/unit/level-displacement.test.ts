/** A coarser level's displacement against the finest (src/scene/level-displacement.ts), against brute force and known layouts. */
import { describe, expect, test } from 'vitest';
import { DISPLACEMENT_QUANTILE, levelDisplacement, weightedQuantile, type SplatRun } from '../../src/scene/level-displacement';
import { rng } from '../support/splat-files';

/** A run of `points` with every splat alike (σ 0.01, opacity 1) unless `weights` says otherwise. */
function run(points: number[][], weights?: number[]): SplatRun {
  const count = points.length;
  const positions = new Float32Array(points.flat());
  const scales = new Float32Array(3 * count).fill(0.01);
  const opacities = new Float32Array(count).fill(1);
  weights?.forEach((w, i) => (opacities[i] = w));
  return { cloud: { positions, scales, opacities }, offset: 0, count };
}

/** The nearest-centre distances by brute force, and their weighted quantile. */
function bruteForce(fine: SplatRun, coarse: SplatRun): number {
  const p = fine.cloud.positions;
  const q = coarse.cloud.positions;
  const distances = new Float64Array(fine.count);
  const weights = new Float64Array(fine.count);
  for (let i = 0; i < fine.count; i++) {
    let best = Infinity;
    for (let j = 0; j < coarse.count; j++) best = Math.min(best, Math.hypot(p[3 * i]! - q[3 * j]!, p[3 * i + 1]! - q[3 * j + 1]!, p[3 * i + 2]! - q[3 * j + 2]!));
    distances[i] = best;
    weights[i] = fine.cloud.opacities[i]! * Math.PI * 0.01 * 0.01;
  }
  return weightedQuantile(distances, weights, DISPLACEMENT_QUANTILE);
}

describe('level displacement', () => {
  test('a surface thinned to a quarter moves its detail by about the coarse spacing; the same run by nothing', () => {
    // A 1 × 1 plane of 64 × 64 splats, and every other row and column of it.
    const fine: number[][] = [];
    const coarse: number[][] = [];
    for (let i = 0; i < 64; i++) for (let j = 0; j < 64; j++) {
      fine.push([i / 63, 0, j / 63]);
      if (i % 2 === 0 && j % 2 === 0) coarse.push([i / 63, 0, j / 63]);
    }
    const d = levelDisplacement(run(fine), run(coarse));
    // The farthest a fine splat lies from a kept one is a diagonal step, √2/63.
    expect(d).toBeCloseTo(Math.SQRT2 / 63, 5);
    const same = run(fine);
    expect(levelDisplacement(same, same)).toBe(0);
    expect(levelDisplacement(run(fine), { ...run([]), count: 0 })).toBe(Infinity);
  });

  test.each([
    ['a noisy surface', (r: () => number) => [r() * 10, r() * 0.1, r() * 10]],
    ['a cloud filling a volume', (r: () => number) => [r(), r(), r()]],
    ['a thin line', (r: () => number) => [r() * 100, 0, 0]],
  ] as const)('matches brute force on %s, weighted by opacity', (_, point) => {
    const rand = rng(7);
    const fine = Array.from({ length: 3000 }, () => point(rand));
    const coarse = Array.from({ length: 400 }, () => point(rand));
    const weights = fine.map(() => rand());
    const a = run(fine, weights);
    const b = run(coarse);
    expect(levelDisplacement(a, b)).toBeCloseTo(bruteForce(a, b), 9);
  });

  test('a weighted quantile: the value below which that share of the weight lies', () => {
    expect(weightedQuantile(new Float64Array([3, 1, 2]), new Float64Array([1, 1, 8]), 0.5)).toBe(2);
    expect(weightedQuantile(new Float64Array([3, 1, 2]), new Float64Array([8, 1, 1]), 0.5)).toBe(3);
    expect(weightedQuantile(new Float64Array([3, 1, 2]), new Float64Array([0, 0, 0]), 0.5)).toBe(2);
  });
});
