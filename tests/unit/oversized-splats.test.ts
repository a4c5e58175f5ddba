/**
 * The load-time warning for splats that cover the whole window, each a
 * window of fragments per frame (src/scene/oversized-splats.ts): silent on
 * every real scene, loud on the tester's file (20,000 splats of scale 1e6),
 * fast enough for the load worker (it runs on every scene).
 */
import { expect, test } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { loadSplatFile } from '../../src/io/parse-splat-file';
import { allocateSplatCloud, computeBounds, robustBounds, type SplatCloud } from '../../src/scene/splat-cloud';
import {
  countOversizedSplats,
  OVERSIZED_WARNING_COUNT,
  oversizedSplatWarning,
  WINDOW_RADIUS_PX,
} from '../../src/scene/oversized-splats';
import { visibleMassBounds } from '../../src/scene/visible-mass';
import { SCENES_DIR } from '../shared-scenes';
import { rng } from '../support/splat-files';

/** `count` splats in a unit cube, σ `scale` on every axis, opacity 0.8 (identity rotations). */
function cubeCloud(count: number, scale: (i: number) => number, seed = 5): SplatCloud {
  const cloud = allocateSplatCloud(count, 0);
  const random = rng(seed);
  for (let i = 0; i < count; i++) {
    for (let a = 0; a < 3; a++) {
      cloud.positions[3 * i + a] = random() - 0.5;
      cloud.scales[3 * i + a] = scale(i);
    }
    cloud.rotations[4 * i] = 1;
    cloud.opacities[i] = 0.8;
  }
  cloud.bounds = computeBounds(cloud.positions, count);
  return cloud;
}

const realScenes = readdirSync(SCENES_DIR).filter((name) => /\.(ply|splat|spz|sog|ksplat)$/.test(name)).sort();

test('the shared scenes folder holds the real scenes this test expects', () => {
  expect(realScenes.length).toBeGreaterThanOrEqual(6);
});

test('the window radius is the 1080p window\'s half-diagonal', () => {
  expect(WINDOW_RADIUS_PX).toBeCloseTo(1101.45, 2);
});

test.each(realScenes)('real scene %s: no splat covers the window, no warning', async (name) => {
  const cloud = await loadSplatFile(readFileSync(`${SCENES_DIR}/${name}`), name);
  expect(oversizedSplatWarning(cloud)).toBeUndefined();
  const found = countOversizedSplats(cloud);
  expect(found.count).toBe(0);
  // The margin: the largest real splat at the reference view (a 1 px limit
  // counts every drawn splat, so its largest is the scene's) is well under
  // the window's half-diagonal.
  const all = countOversizedSplats(cloud, { windowRadiusPx: 1 });
  console.log(`${name}: ${cloud.count} splats, none over ${WINDOW_RADIUS_PX.toFixed(0)} px in radius; the largest ${all.largestRadiusPx.toFixed(0)} px`);
  expect(all.largestRadiusPx).toBeLessThan(0.6 * WINDOW_RADIUS_PX);
  // The check frames a small sample's visible mass; the viewer frames a larger one:
  // at a low cap, where many splats count, the two agree within a few percent.
  const sampled = countOversizedSplats(cloud, { windowRadiusPx: 64 }).count;
  const framed = countOversizedSplats(cloud, { windowRadiusPx: 64, bounds: visibleMassBounds(cloud) }).count;
  expect(Math.abs(sampled - framed)).toBeLessThanOrEqual(0.05 * framed + 5);
});

test("the tester's file: 20k splats of scale 1e6 (log-scale 13.8) around a small scene give a warning", () => {
  const normal = 5000;
  const huge = 20_000;
  const cloud = cubeCloud(normal + huge, (i) => (i < normal ? 0.01 : Math.exp(13.8)));
  const found = countOversizedSplats(cloud);
  expect(found.count).toBe(huge);
  expect(found.share).toBeCloseTo(huge / (normal + huge), 6);
  const message = oversizedSplatWarning(cloud)!;
  console.log(message);
  expect(message).toBeTypeOf('string');
  expect(message).toContain('20,000 of 25,000 splats (80%) are large enough to cover the whole window');
  expect(message).toMatch(/largest would be \d\.\d\de\+\d+ px across/);
  expect(message).toContain('σ 984,609 units');
  expect(message).toContain('Each costs a whole window of pixels (2.1M) to draw every frame');
  expect(message).not.toContain('cut');
});

test('the threshold: up to OVERSIZED_WARNING_COUNT oversized splats pass, one more warns', () => {
  const at = cubeCloud(10_000, (i) => (i < OVERSIZED_WARNING_COUNT ? 1e6 : 0.01));
  expect(countOversizedSplats(at).count).toBe(OVERSIZED_WARNING_COUNT);
  expect(oversizedSplatWarning(at)).toBeUndefined();
  const over = cubeCloud(10_000, (i) => (i <= OVERSIZED_WARNING_COUNT ? 1e6 : 0.01));
  expect(oversizedSplatWarning(over)).toContain(`${OVERSIZED_WARNING_COUNT + 1} of 10,000 splats (1%)`);
});

test('what counts: the drawn radius of the middle σ at the framed view, against the half-diagonal', () => {
  // The framed unit cube: radius r = √3/2, camera distance 2r ≈ 1.73, focal
  // 1080 / (2 tan 30°) ≈ 935 px. At the centre a splat's 3σ reaches the
  // half-diagonal (1,101 px) at σ = 1101 · 1.73 / (3 · 935) ≈ 0.680.
  const cloud = cubeCloud(8, () => 0.01);
  cloud.positions.fill(0, 0, 3); // splat 0 at the centre
  const bounds = { min: [-0.5, -0.5, -0.5] as [number, number, number], max: [0.5, 0.5, 0.5] as [number, number, number] };
  const edge = (WINDOW_RADIUS_PX * Math.sqrt(3)) / (3 * (1080 / (2 * Math.tan(Math.PI / 6))));
  expect(edge).toBeCloseTo(0.68, 2);
  cloud.scales.fill(edge * 0.99, 0, 3);
  expect(countOversizedSplats(cloud, { bounds }).count).toBe(0);
  cloud.scales.fill(edge * 1.01, 0, 3);
  expect(countOversizedSplats(cloud, { bounds }).count).toBe(1);
  // A needle never covers the window, however long: it costs a strip.
  cloud.scales.set([0.001, 1e6, 0.001], 0);
  expect(countOversizedSplats(cloud, { bounds }).count).toBe(0);
  // A disc (two large σ) does, seen face-on; the order of the axes does not matter.
  cloud.scales.set([edge * 1.01, 0.001, 1e6], 0);
  expect(countOversizedSplats(cloud, { bounds }).count).toBe(1);
  cloud.scales.set([edge * 0.99, 1e6, 0.001], 0);
  expect(countOversizedSplats(cloud, { bounds }).count).toBe(0);
  // A faint splat is drawn to fewer sigmas (alpha < 1/255 beyond
  // √(2 ln(255 o))), and one under 1/255 is never drawn.
  cloud.scales.fill(edge * 1.01, 0, 3);
  cloud.opacities[0] = 0.05;
  expect(countOversizedSplats(cloud, { bounds }).count).toBe(0);
  cloud.scales.fill(1e6, 0, 3);
  expect(countOversizedSplats(cloud, { bounds }).count).toBe(1);
  cloud.opacities[0] = 0.5 / 255;
  expect(countOversizedSplats(cloud, { bounds }).count).toBe(0);
  // A big sky splat far away is small on screen: σ 10 at 1000 units is
  // 3 · 10 · 935 / 1000 ≈ 28 px.
  cloud.opacities[0] = 0.8;
  cloud.positions.set([1000, 0, 0], 0);
  cloud.scales.fill(10, 0, 3);
  expect(countOversizedSplats(cloud, { bounds }).count).toBe(0);
  // A lower limit counts more.
  expect(countOversizedSplats(cloud, { bounds, windowRadiusPx: 16 }).count).toBe(1);
});

test('an empty scene: nothing counted, no warning', () => {
  const cloud = allocateSplatCloud(0, 0);
  expect(countOversizedSplats(cloud)).toMatchObject({ count: 0, share: 0 });
  expect(oversizedSplatWarning(cloud)).toBeUndefined();
});

test('speed: 1M splats (printed, about 10 ms per million is the budget)', () => {
  const count = 1 << 20;
  const cloud = cubeCloud(count, (i) => (i % 1000 === 0 ? 1e6 : 0.01));
  const bounds = robustBounds(cloud.positions, count);
  const time = (run: () => unknown) => {
    let best = Infinity;
    for (let k = 0; k < 5; k++) {
      const t0 = performance.now();
      run();
      best = Math.min(best, performance.now() - t0);
    }
    return best;
  };
  let found = 0;
  const pass = time(() => (found = countOversizedSplats(cloud, { bounds }).count));
  const withBounds = time(() => countOversizedSplats(cloud));
  const warning = time(() => oversizedSplatWarning(cloud, { bounds }));
  expect(found).toBe(Math.floor((count - 1) / 1000) + 1);
  console.log(
    `oversized-splat check, 1M splats (best of 5): pass ${pass.toFixed(1)} ms, ` +
    `bounds included ${withBounds.toFixed(1)} ms, warning ${warning.toFixed(1)} ms`,
  );
  // A loose bound only (2 shared cores): the pass is one read of 7 floats per splat.
  expect(pass).toBeLessThan(200);
});
