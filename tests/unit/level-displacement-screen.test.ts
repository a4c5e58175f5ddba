/**
 * A world's measured displacements mean what the threshold says: the level
 * the choice keeps at t pixels moves the leaf's detail on screen by at most
 * t pixels (the weighted 90th percentile of each finest splat's distance to
 * the nearest centre of the level drawn, both projected with the camera),
 * and the next coarser level would move it by more. A made world of three
 * patches facing the camera at 15, 40 and 100 units, each 48 × 48 jittered
 * splats, its levels merged 2 × 2 at a time (each merged splat at the mean
 * of four, twice their size).
 */
import { describe, expect, test } from 'vitest';
import { mat4, vec4 } from 'gl-matrix';
import { cameraMatrices, type CameraFile } from '../../src/app/camera/camera-file';
import { chooseLevels, worldLeaves, worldView } from '../../src/app/world/world-lod';
import type { LodIndex, LodNode } from '../../src/io/lod/lod-meta';
import { DISPLACEMENT_QUANTILE, levelDisplacement, weightedQuantile, type SplatRun } from '../../src/scene/level-displacement';
import { rng } from '../support/splat-files';

const SIDE = 48;
const LEVELS = 4;
const DISTANCES = [15, 40, 100];
const CAMERA: CameraFile = { width: 1920, height: 1080, fovy_deg: 60, eye: [0, 0, 0], target: [0, 0, -1], up: [0, 1, 0], background: [0, 0, 0], sh_degree: 0 };

/** A patch of SIDE² splats 1/8 apart, jittered, in the plane z = −distance; then each level merged 2 × 2 from the one before. */
function patchLevels(distance: number, seed: number): SplatRun[] {
  const rand = rng(seed);
  let side = SIDE;
  let points = Array.from({ length: SIDE * SIDE }, (_, k) => [((k % SIDE) - SIDE / 2 + rand() - 0.5) / 8, (Math.floor(k / SIDE) - SIDE / 2 + rand() - 0.5) / 8, -distance]);
  let sigma = 1 / 16;
  const levels: SplatRun[] = [];
  for (let level = 0; level < LEVELS; level++) {
    const count = points.length;
    levels.push({ cloud: { positions: new Float32Array(points.flat()), scales: new Float32Array(3 * count).fill(sigma), opacities: new Float32Array(count).fill(0.8) }, offset: 0, count });
    const next: number[][] = [];
    for (let y = 0; y < side; y += 2) for (let x = 0; x < side; x += 2) {
      const four = [points[y * side + x]!, points[y * side + x + 1]!, points[(y + 1) * side + x]!, points[(y + 1) * side + x + 1]!];
      next.push([0, 1, 2].map((a) => four.reduce((sum, p) => sum + p[a]!, 0) / 4));
    }
    points = next;
    side /= 2;
    sigma *= 2;
  }
  return levels;
}

/** The weighted 90th percentile of each fine splat's distance on screen, in pixels, to the nearest centre of `coarse`. */
function screenDisplacement(fine: SplatRun, coarse: SplatRun, toScreen: (p: Float32Array, i: number) => [number, number]): number {
  const coarseXY = Array.from({ length: coarse.count }, (_, j) => toScreen(coarse.cloud.positions, j));
  const distances = new Float64Array(fine.count);
  const weights = new Float64Array(fine.count).fill(1);
  for (let i = 0; i < fine.count; i++) {
    const [x, y] = toScreen(fine.cloud.positions, i);
    let best = Infinity;
    for (const [u, v] of coarseXY) best = Math.min(best, Math.hypot(u - x, v - y));
    distances[i] = best;
  }
  return weightedQuantile(distances, weights, DISPLACEMENT_QUANTILE);
}

describe('measured displacements, turned into pixels by the choice', () => {
  const patches = DISTANCES.map((d, k) => patchLevels(d, 11 + k));
  const leaves: LodNode[] = patches.map((levels, k) => ({
    path: `tree.children[${k}]`,
    bound: { min: [-4.1, -4.1, -DISTANCES[k]! - 0.01], max: [4.1, 4.1, -DISTANCES[k]! + 0.01] },
    children: [],
    runs: levels.map((run, level) => ({ file: LEVELS * k + level, offset: 0, count: run.count })),
    errors: null,
    displacements: levels.map((run) => levelDisplacement(levels[0]!, run)),
  }));
  const index: LodIndex = {
    levels: LEVELS, counts: patches[0]!.map((run) => run.count * DISTANCES.length), filenames: leaves.flatMap((_, k) => patches[k]!.map((__, l) => `${l}_${k}/meta.json`)),
    environment: null, nodes: leaves.length + 1, leaves: leaves.length,
    tree: { path: 'tree', bound: { min: [-4.1, -4.1, -101], max: [4.1, 4.1, -14] }, children: leaves, runs: [], errors: null, displacements: null },
  };
  const view = mat4.create();
  const projection = mat4.create();
  cameraMatrices(CAMERA, view, projection);
  const clip = mat4.multiply(mat4.create(), projection, view);
  const at = vec4.create();
  const toScreen = (p: Float32Array, i: number): [number, number] => {
    vec4.transformMat4(at, [p[3 * i]!, p[3 * i + 1]!, p[3 * i + 2]!, 1], clip);
    return [((at[0] / at[3]) * 0.5 + 0.5) * CAMERA.width, (0.5 - (at[1] / at[3]) * 0.5) * CAMERA.height];
  };

  test.each([1, 2, 4, 8])('at %d px, each leaf draws the coarsest level within it: the finest splats move by at most that on screen, and by more at the next coarser level', (thresholdPx) => {
    const choice = chooseLevels(worldLeaves(index), worldView(CAMERA), { thresholdPx, budget: Infinity, resident: () => true });
    const lines: string[] = [];
    patches.forEach((levels, k) => {
      const level = choice.wanted[k]!;
      const moved = screenDisplacement(levels[0]!, levels[level]!, toScreen);
      lines.push(`${DISTANCES[k]} units: level ${level}, ${moved.toFixed(2)} px`);
      expect(moved).toBeLessThanOrEqual(thresholdPx * 1.02);
      if (level + 1 < LEVELS) expect(screenDisplacement(levels[0]!, levels[level + 1]!, toScreen)).toBeGreaterThan(thresholdPx);
    });
    console.log(`${thresholdPx} px: ${lines.join('; ')}`);
    // The figures reach past the finest level somewhere: the threshold is not met by drawing everything.
    if (thresholdPx >= 2) expect(patches.some((_, k) => choice.wanted[k]! > 0)).toBe(true);
  });
});
