/**
 * Which splats a save keeps: those in view are those the projector's rule
 * keeps (near plane, the 1/255 opacity floor, the quad out to 3σ or where
 * the opacity ends it, against the window + 1 px), placed here by hand on
 * either side of each limit; those in a box are those whose centre is in
 * it, edges included; the kept splats keep their values, SH and order.
 */
import { describe, expect, test } from 'vitest';
import { parseBox, cameraFrame, saveSplats, selectionMask, selectSplats } from '../../src/app/session/splat-selection';
import type { CameraFile } from '../../src/app/camera/camera-file';
import { keptDepths } from '../../src/render/splat-keep-rule';
import { writableFormat } from '../../src/io/formats/save-formats';
import { loadSplatFile } from '../../src/io/parse-splat-file';
import { ANTIALIASED_FILTER } from '../../src/scene/anti-aliasing';
import { allocateSplatCloud, computeBounds, robustBounds, shCoefficients, type SplatCloud } from '../../src/scene/splat-cloud';
import { realScene } from '../support/real-scenes';

/** Looking down −z from the origin, 64 × 48 px, 60° high: at depth 5 the window's right edge is at x = 5 · tan(30°) · 4/3 = 3.849. */
const CAMERA: CameraFile = {
  width: 64, height: 48, fovy_deg: 60, eye: [0, 0, 0], target: [0, 0, -1], up: [0, 1, 0], background: [0, 0, 0], sh_degree: 0,
};
const RIGHT_EDGE = 5 * Math.tan(Math.PI / 6) * (64 / 48);
/** Pixels per scene unit at depth 5. */
const PX = 32 / RIGHT_EDGE;

interface Placed { name: string; at: [number, number, number]; scale: number; opacity: number; kept: boolean }

// One unit (8.3 px) right of the window: 7.3 px past the window + 1 px. There the projection
// stretches a round splat along x by about 1.39 (the Jacobian's x/z term at x/z = 0.97).
const OUTSIDE = RIGHT_EDGE + 1;
const PLACED: Placed[] = [
  { name: 'in the middle', at: [0, 0, -5], scale: 0.05, opacity: 0.8, kept: true },
  { name: 'behind the eye', at: [0, 0, 5], scale: 0.05, opacity: 0.8, kept: false },
  { name: 'nearer than the near plane (0.15)', at: [0, 0, -0.15], scale: 0.01, opacity: 0.8, kept: false },
  { name: 'just past the near plane (0.25)', at: [0, 0, -0.25], scale: 0.01, opacity: 0.8, kept: true },
  { name: 'too faint to reach 1/255', at: [0, 0, -5], scale: 0.05, opacity: 0.003, kept: false },
  // σ = 0.3 units = 3.5 px along x: 3σ = 10.4 px reaches 3 px back into the window.
  { name: 'outside, its 3σ reaching in', at: [OUTSIDE, 0, -5], scale: 0.3, opacity: 0.8, kept: true },
  // σ about 0.56 px with the 0.3 px² filter: 3σ = 1.7 px does not.
  { name: 'outside, too small to reach in', at: [OUTSIDE, 0, -5], scale: 0.01, opacity: 0.8, kept: false },
  // Opacity 0.02 reaches 1/255 out to sqrt(2 ln 5.1) = 1.8σ = 6.3 px: not 7.3.
  { name: 'outside, large but faint: its alpha ends before the window', at: [OUTSIDE, 0, -5], scale: 0.3, opacity: 0.02, kept: false },
  { name: 'far to the left', at: [-50, 0, -5], scale: 0.2, opacity: 0.8, kept: false },
];

function placedScene(): SplatCloud {
  const cloud = allocateSplatCloud(PLACED.length, 1);
  PLACED.forEach((s, i) => {
    cloud.positions.set(s.at, 3 * i);
    cloud.scales.fill(s.scale, 3 * i, 3 * i + 3);
    cloud.rotations[4 * i] = 1;
    cloud.opacities[i] = s.opacity;
    cloud.dc.fill(i, 3 * i, 3 * i + 3);
    cloud.sh.fill(i / 10, 9 * i, 9 * i + 9);
  });
  cloud.bounds = computeBounds(cloud.positions, cloud.count);
  return cloud;
}

describe('in view', () => {
  test('keeps the splats on the inner side of each of the projector\'s limits, and none on the outer', () => {
    const cloud = placedScene();
    const mask = selectionMask(cloud, { keep: 'in-view', frame: cameraFrame(CAMERA) });
    expect(Object.fromEntries(PLACED.map((s, i) => [s.name, mask[i] === 1]))).toEqual(Object.fromEntries(PLACED.map((s) => [s.name, s.kept])));
    expect(PX).toBeGreaterThan(8);
  });

  test('the anti-aliased filter lowers the opacity of small splats: a faint one it keeps unfiltered goes', () => {
    const cloud = placedScene();
    // A tiny splat (0.05 px) at opacity 0.05: the compensation divides it by about 6, under 1/255.
    cloud.scales.fill(0.0003, 0, 3);
    cloud.opacities[0] = 0.05;
    expect(selectionMask(cloud, { keep: 'in-view', frame: cameraFrame(CAMERA) })[0]).toBe(1);
    expect(selectionMask(cloud, { keep: 'in-view', frame: cameraFrame(CAMERA, ANTIALIASED_FILTER) })[0]).toBe(0);
  });

  test('on a real scene, keeps exactly the splats the rule keeps, in order, with their values and SH', async () => {
    const cloud = await realScene('inria_kacytran_iter7000_9k_sh3.ply');
    const { min, max } = robustBounds(cloud.positions, cloud.count);
    const middle = [0, 1, 2].map((a) => (min[a]! + max[a]!) / 2) as [number, number, number];
    // From the middle of the scene towards +x: part of it in view, part behind or beside.
    const camera: CameraFile = { ...CAMERA, width: 160, height: 90, eye: middle, target: [middle[0] + 1, middle[1], middle[2]], up: [0, -1, 0] };
    const frame = cameraFrame(camera);
    const depths = keptDepths(cloud, frame);
    const kept = [...depths.keys()].filter((i) => !Number.isNaN(depths[i]!));
    expect(kept.length).toBeGreaterThan(0.05 * cloud.count);
    expect(kept.length).toBeLessThan(0.8 * cloud.count);
    const selected = selectSplats(cloud, { keep: 'in-view', frame });
    expectSubset(selected, cloud, kept);
  });
});

/** `subset` holds splats `indices` of `cloud`, in that order, every value the same. */
function expectSubset(subset: SplatCloud, cloud: SplatCloud, indices: number[]): void {
  expect({ count: subset.count, shDegree: subset.shDegree }).toEqual({ count: indices.length, shDegree: cloud.shDegree });
  const K = shCoefficients(cloud.shDegree) * 3;
  const widths = { positions: 3, scales: 3, rotations: 4, opacities: 1, dc: 3, sh: K } as const;
  for (const [key, width] of Object.entries(widths) as [keyof typeof widths, number][]) {
    const expected = new Float32Array(indices.length * width);
    indices.forEach((i, j) => expected.set(cloud[key].subarray(i * width, (i + 1) * width), j * width));
    expect(Buffer.from(subset[key].buffer, subset[key].byteOffset, subset[key].byteLength).equals(Buffer.from(expected.buffer)), key).toBe(true);
  }
  expect(subset.bounds).toEqual(computeBounds(subset.positions, subset.count));
}

describe('in a box', () => {
  test('keeps the splats whose centre is inside, edges included', async () => {
    const cloud = await realScene('inria_karangkidul_150k_sh3_decoded.ply');
    const { min, max } = robustBounds(cloud.positions, cloud.count, 0.3);
    const inside = (i: number) => [0, 1, 2].every((a) => cloud.positions[3 * i + a]! >= min[a]! && cloud.positions[3 * i + a]! <= max[a]!);
    const indices = [...Array(cloud.count).keys()].filter(inside);
    expect(indices.length).toBeGreaterThan(1000);
    expect(indices.length).toBeLessThan(cloud.count / 2);
    const selected = selectSplats(cloud, { keep: 'box', box: { min, max } });
    expectSubset(selected, cloud, indices);
    // A box that is one splat's centre keeps that splat (and any other there).
    const p = [...cloud.positions.subarray(300, 303)] as [number, number, number];
    expect(selectSplats(cloud, { keep: 'box', box: { min: p, max: p } }).count).toBeGreaterThanOrEqual(1);
  });

  test('keeps what the scene says of its anti-aliasing', () => {
    const cloud = { ...placedScene(), antiAliasing: { filter: { ...ANTIALIASED_FILTER }, source: 'test' } };
    expect(selectSplats(cloud, { keep: 'box', box: { min: [-1, -1, -6], max: [1, 1, 0] } }).antiAliasing).toEqual(cloud.antiAliasing);
  });

  test('a box is six numbers, each min at most its max', () => {
    expect(parseBox('-1,-2,-3, 4,5,6e0')).toEqual({ min: [-1, -2, -3], max: [4, 5, 6] });
    expect(() => parseBox('1,2,3,4,5')).toThrow(/six numbers/);
    expect(() => parseBox('1,2,3,4,5,x')).toThrow(/six numbers/);
    expect(() => parseBox('1,2,3,4,5,')).toThrow(/six numbers/);
    expect(() => parseBox('0,3,0,1,2,1')).toThrow(/min y \(3\) is past its max \(2\)/);
  });
});

describe('saving a selection', () => {
  test('writes the kept splats; refuses to write none', async () => {
    const cloud = placedScene();
    const saved = await saveSplats(cloud, writableFormat('ply'), { keep: 'in-view', frame: cameraFrame(CAMERA) });
    expect(saved).toMatchObject({ splats: PLACED.filter((s) => s.kept).length, of: PLACED.length });
    const again = await loadSplatFile(saved.bytes, 'saved.ply');
    expect(again.count).toBe(saved.splats);
    expect(Array.from(again.dc.filter((_, at) => at % 3 === 0))).toEqual(PLACED.flatMap((s, i) => (s.kept ? [i] : [])));
    await expect(saveSplats(cloud, writableFormat('spz'), { keep: 'box', box: { min: [100, 100, 100], max: [101, 101, 101] } }))
      .rejects.toThrow("Nothing to save: none of the scene's 9 splats is inside the box from (100, 100, 100) to (101, 101, 101)");
    const away: CameraFile = { ...CAMERA, target: [0, 1, 0], up: [0, 0, 1] };
    await expect(saveSplats(cloud, writableFormat('splat'), { keep: 'in-view', frame: cameraFrame(away) })).rejects.toThrow(/none of the scene's 9 splats is in view/);
  });
});
