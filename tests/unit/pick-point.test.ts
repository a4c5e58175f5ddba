/**
 * The double-click pick: two splats on the view axis (which one is the
 * surface, by the half-made rule and the haze fallback), nothing under the
 * cursor, a point that lies under the cursor through the viewer's own
 * matrices with a panel shifting the picture, splats behind the eye; the
 * first pass's bound (it loses no splat the reference blends) at every
 * pixel of random splats and on real scenes; a framed real view's centre
 * pixel, with the time a pick takes.
 */
import { describe, expect, test } from 'vitest';
import { readFileSync } from 'node:fs';
import { mat4, vec3, vec4 } from 'gl-matrix';
import { parseSplatPly } from '../../src/io/ply/parse';
import { OrbitCamera } from '../../src/app/camera/orbit-camera';
import { pickCandidates, pickPoint, type PickView } from '../../src/app/camera/pick-point';
import { ALPHA_MIN, alphaAt, preprocess, TILE, type Preprocessed } from '../../src/render/reference-rasterizer';
import { ANTIALIASED_FILTER, MIP_FILTER } from '../../src/scene/anti-aliasing';
import { allocateSplatCloud, computeBounds, robustBounds, writeUnitQuaternion, type SplatCloud } from '../../src/scene/splat-cloud';
import { scenePath } from '../shared-scenes';
import { rng } from '../support/splat-files';

const WIDTH = 160;
const HEIGHT = 120;
/** A panel over 30 % of the window's width and a sheet over 20 % of its height: the picture moves left by 0.15 of its width, up by 0.1 of its height. */
const COVERED = 0.3;
const COVERED_BOTTOM = 0.2;
const INSETS = { left: 0, top: 0, right: COVERED, bottom: COVERED_BOTTOM };

interface TestSplat {
  at: ArrayLike<number>;
  /** Isotropic standard deviation, world units. */
  sigma: number;
  opacity: number;
}

function cloudOf(splats: TestSplat[]): SplatCloud {
  const cloud = allocateSplatCloud(splats.length, 0);
  splats.forEach((s, i) => {
    cloud.positions.set(Array.from(s.at), 3 * i);
    cloud.scales.set([s.sigma, s.sigma, s.sigma], 3 * i);
    cloud.rotations.set([1, 0, 0, 0], 4 * i);
    cloud.opacities[i] = s.opacity;
  });
  cloud.bounds = computeBounds(cloud.positions, cloud.count);
  return cloud;
}

/** An oblique orbit view of the origin from 10 units, beside a panel. */
function orbitCamera(): OrbitCamera {
  const camera = new OrbitCamera({ yaw: 0.4, pitch: 0.3, distance: 10 });
  camera.setInsets(INSETS);
  return camera;
}

function pickViewOf(camera: OrbitCamera, width = WIDTH, height = HEIGHT): PickView {
  return {
    view: camera.viewMatrix(mat4.create()),
    eye: camera.eye(vec3.create()),
    fovY: camera.fovY,
    width,
    height,
    shiftNdc: camera.projectionMatrix(mat4.create(), width / height)[8]!,
    shiftNdcY: camera.projectionMatrix(mat4.create(), width / height)[9]!,
  };
}

/** The point `depth` units along the view axis (negative: behind the eye). */
function onAxis(camera: OrbitCamera, depth: number): vec3 {
  const eye = camera.eye(vec3.create());
  const forward = vec3.normalize(vec3.create(), vec3.negate(vec3.create(), eye));
  return vec3.scaleAndAdd(vec3.create(), eye, forward, depth);
}

/** Where `point` lands in the framebuffer (pixels from the top-left corner) through the camera's own matrices. */
function framebufferPixel(camera: OrbitCamera, point: ArrayLike<number>, width = WIDTH, height = HEIGHT): [number, number] {
  const clip = vec4.fromValues(point[0]!, point[1]!, point[2]!, 1);
  vec4.transformMat4(clip, clip, camera.viewMatrix(mat4.create()));
  vec4.transformMat4(clip, clip, camera.projectionMatrix(mat4.create(), width / height));
  return [((clip[0]! / clip[3]! + 1) * width) / 2, ((1 - clip[1]! / clip[3]!) * height) / 2];
}

describe('two large splats on the view axis', () => {
  const camera = orbitCamera();
  const view = pickViewOf(camera);
  // The view axis lands in the middle of the uncovered part, not of the window.
  const [axisX, axisY] = framebufferPixel(camera, onAxis(camera, 10));
  const splat = (depth: number, opacity: number): TestSplat => ({ at: onAxis(camera, depth), sigma: 1, opacity });

  test('the view axis is where the panel puts it', () => {
    expect(axisX).toBeCloseTo(((1 - COVERED) * WIDTH) / 2, 3);
    expect(axisY).toBeCloseTo(((1 - COVERED_BOTTOM) * HEIGHT) / 2, 3);
  });

  test('an opaque front splat is the surface: its depth, on the cursor ray', () => {
    const pick = pickPoint(cloudOf([splat(13, 0.9), splat(8, 1)]), view, axisX, axisY);
    expect(pick?.splat).toBe(1);
    expect(pick!.depth).toBeCloseTo(8, 4);
    const expected = onAxis(camera, 8);
    pick!.point.forEach((c, i) => expect(c).toBeCloseTo(expected[i]!, 4));
  });

  test('a faint front splat leaves the pixel under half made: the back one is the surface', () => {
    const pick = pickPoint(cloudOf([splat(8, 0.2), splat(13, 0.9)]), view, axisX, axisY);
    expect(pick?.splat).toBe(1);
    expect(pick!.depth).toBeCloseTo(13, 4);
  });

  test('a haze that never gets half made: the splat that adds the most', () => {
    // Transmittance 0.9 · 0.6 = 0.54; the weights are 0.1 and 0.4 · 0.9 = 0.36.
    const pick = pickPoint(cloudOf([splat(8, 0.1), splat(13, 0.4)]), view, axisX, axisY);
    expect(pick?.splat).toBe(1);
  });

  test('the panel\'s shift is what puts a splat under the cursor', () => {
    // A splat under a pixel wide: the cursor must be within a couple of pixels of it.
    const cloud = cloudOf([{ at: onAxis(camera, 8), sigma: 0.05, opacity: 1 }]);
    expect(pickPoint(cloud, view, axisX, axisY)?.splat).toBe(0);
    expect(pickPoint(cloud, { ...view, shiftNdc: 0 }, axisX, axisY)).toBeNull();
    expect(pickPoint(cloud, { ...view, shiftNdc: 0 }, WIDTH / 2, axisY)?.splat).toBe(0);
  });

  test('a cursor away from both picks nothing', () => {
    const cloud = cloudOf([splat(8, 1), splat(13, 0.9)]);
    expect(pickPoint(cloud, view, WIDTH - 0.5, 0.5)).toBeNull();
    // Off the framebuffer.
    expect(pickPoint(cloud, view, axisX, -1)).toBeNull();
  });

  test('a point picked off the axis lies under the cursor through the viewer matrices', () => {
    const cloud = cloudOf([splat(8, 1), splat(13, 0.9)]);
    const [x, y] = [axisX + 9.37, axisY - 6.81];
    const pick = pickPoint(cloud, view, x, y);
    expect(pick?.splat).toBe(0);
    const [px, py] = framebufferPixel(camera, pick!.point);
    expect(Math.abs(px - x)).toBeLessThan(1e-3);
    expect(Math.abs(py - y)).toBeLessThan(1e-3);
    // The depth is the splat's: the point's view depth.
    const inView = vec3.transformMat4(vec3.create(), pick!.point, view.view);
    expect(-inView[2]!).toBeCloseTo(pick!.depth, 4);
    expect(pick!.depth).toBeCloseTo(8, 4);
  });

  test('splats behind the eye, or nearer than the reference draws, are never picked', () => {
    const behind = splat(-3, 1);
    expect(pickPoint(cloudOf([behind, splat(-0.5, 1)]), view, axisX, axisY)).toBeNull();
    // Just in front of the eye but inside the reference's 0.2 near cull.
    expect(pickPoint(cloudOf([splat(0.15, 1)]), view, axisX, axisY)).toBeNull();
    const pick = pickPoint(cloudOf([behind, splat(20, 0.3)]), view, axisX, axisY);
    expect(pick?.splat).toBe(1);
  });
});

/** The splats the reference blends at pixel (px, py), from every splat's projection. */
function blendedAt(splats: Preprocessed, px: number, py: number): { splat: number; depth: number }[] {
  const [tx, ty] = [Math.floor(px / TILE), Math.floor(py / TILE)];
  const { rect } = splats;
  const found: { splat: number; depth: number }[] = [];
  for (let k = 0; k < splats.count; k++) {
    if (tx < rect[4 * k]! || tx >= rect[4 * k + 2]! || ty < rect[4 * k + 1]! || ty >= rect[4 * k + 3]!) continue;
    if (alphaAt(splats, k, px, py) >= ALPHA_MIN) found.push({ splat: splats.splat[k]!, depth: splats.depth[k]! });
  }
  return found;
}

/**
 * Every splat the reference blends at a grid of pixels (every `step`-th,
 * from `first`) is one the first pass keeps there; returns how many it checked.
 */
function expectCandidatesCover(cloud: SplatCloud, view: PickView, step: number, first = [3, 5]): number {
  const splats = preprocess(cloud, view);
  let blendedSeen = 0;
  const missed: string[] = [];
  for (let py = first[1]!; py < view.height; py += step) {
    for (let px = first[0]!; px < view.width; px += step) {
      const kept = new Set(pickCandidates(cloud, view, px, py));
      const blended = blendedAt(splats, px, py);
      blendedSeen += blended.length;
      for (const b of blended) if (!kept.has(b.splat)) missed.push(`splat ${b.splat} at (${px}, ${py})`);
    }
  }
  expect(missed).toEqual([]);
  return blendedSeen;
}

test('the first pass keeps, at every pixel, every splat the reference blends there (random splats, filters, splat scales)', () => {
  const random = rng(11);
  const camera = orbitCamera();
  const [width, height] = [64, 48];
  const view = pickViewOf(camera, width, height);
  const v = view.view;
  const right = [v[0]!, v[4]!, v[8]!];
  const up = [v[1]!, v[5]!, v[9]!];
  const back = [v[2]!, v[6]!, v[10]!];
  const eye = view.eye;
  const tanY = Math.tan(camera.fovY / 2);
  const focal = height / (2 * tanY);
  const count = 500;
  const cloud = allocateSplatCloud(count, 0);
  for (let i = 0; i < count; i++) {
    // Depths from inside the near cull out; directions past the Jacobian's 1.3·tan(fov/2) clamp.
    const depth = 0.15 + 30 * random() ** 2;
    const ux = (random() * 2 - 1) * 2 * tanY * (width / height);
    const uy = (random() * 2 - 1) * 2 * tanY;
    for (let a = 0; a < 3; a++) cloud.positions[3 * i + a] = eye[a]! + depth * (ux * right[a]! + uy * up[a]! - back[a]!);
    // Standard deviations from 1/100 px to 30 px at their depth, per axis: needles, discs and blobs.
    for (let a = 0; a < 3; a++) cloud.scales[3 * i + a] = (depth / focal) * 10 ** (random() * 3.5 - 2);
    writeUnitQuaternion(cloud.rotations, 4 * i, random() - 0.5, random() - 0.5, random() - 0.5, random() - 0.5);
    // Some under 1/255, which the reference never blends.
    cloud.opacities[i] = random() ** 2;
  }
  cloud.bounds = computeBounds(cloud.positions, count);
  let blendedSeen = 0;
  for (const options of [{}, { screenFilter: ANTIALIASED_FILTER, splatScale: 1.7 }, { screenFilter: MIP_FILTER, splatScale: 0.6 }]) {
    blendedSeen += expectCandidatesCover(cloud, { ...view, ...options }, 1, [0, 0]);
  }
  expect(blendedSeen).toBeGreaterThan(10_000);
});

describe('real scenes', () => {
  const SCENE_WIDTH = 1280;
  const SCENE_HEIGHT = 720;

  /** A framed view of the scene, as the viewer opens it, beside a panel. */
  function framedView(cloud: SplatCloud): { camera: OrbitCamera; view: PickView } {
    const camera = new OrbitCamera();
    camera.setInsets(INSETS);
    camera.setUp([0, -1, 0]);
    camera.frame(robustBounds(cloud.positions, cloud.count), SCENE_WIDTH / SCENE_HEIGHT);
    return { camera, view: pickViewOf(camera, SCENE_WIDTH, SCENE_HEIGHT) };
  }

  /** The median of `runs` picks' times, in ms. */
  function pickTime(cloud: SplatCloud, view: PickView, x: number, y: number, runs = 5): number {
    const times = Array.from({ length: runs }, () => {
      const start = performance.now();
      pickPoint(cloud, view, x, y);
      return performance.now() - start;
    });
    return times.sort((a, b) => a - b)[runs >> 1]!;
  }

  const small = parseSplatPly(readFileSync(scenePath('inria_kacytran_iter7000_9k_sh3.ply')));

  test('the 9k scene: the centre pixel picks a point among the splats it blends, under the cursor', () => {
    const cloud = small;
    const { camera, view } = framedView(cloud);
    // The middle of the uncovered part, where the framed scene is.
    const [x, y] = [Math.floor(((1 - COVERED) * SCENE_WIDTH) / 2) + 0.5, Math.floor(((1 - COVERED_BOTTOM) * SCENE_HEIGHT) / 2) + 0.5];
    const pick = pickPoint(cloud, view, x, y);
    expect(pick).not.toBeNull();
    const blended = blendedAt(preprocess(cloud, view), Math.floor(x), Math.floor(y));
    const depths = blended.map((b) => b.depth);
    expect(blended.map((b) => b.splat)).toContain(pick!.splat);
    // The reference keeps depths in float32 (6e-8 of themselves).
    expect(pick!.depth).toBeGreaterThanOrEqual(Math.min(...depths) * (1 - 1e-6));
    expect(pick!.depth).toBeLessThanOrEqual(Math.max(...depths) * (1 + 1e-6));
    const [px, py] = framebufferPixel(camera, pick!.point, SCENE_WIDTH, SCENE_HEIGHT);
    expect(Math.abs(px - x)).toBeLessThan(1e-3);
    expect(Math.abs(py - y)).toBeLessThan(1e-3);
    console.log(`pick on the 9k scene: ${pickTime(cloud, view, x, y).toFixed(1)} ms (${blended.length} splats blended at the pixel)`);
  });

  test('the first pass keeps every splat the reference blends at the pixel (9k scene, framed and close in)', () => {
    const { camera, view } = framedView(small);
    let blendedSeen = expectCandidatesCover(small, view, 97);
    // Closer in, so splats cross the window's edges and some are near the eye.
    camera.zoom(0.3);
    blendedSeen += expectCandidatesCover(small, pickViewOf(camera, SCENE_WIDTH, SCENE_HEIGHT), 97);
    expect(blendedSeen).toBeGreaterThan(1000);
  });

  test('the 1M scene: a pick and its time; the first pass keeps every splat blended', () => {
    const cloud = parseSplatPly(readFileSync(scenePath('inria_karangkidul_1M_sh0_decoded.ply')));
    const { camera, view } = framedView(cloud);
    const [x, y] = [Math.floor(((1 - COVERED) * SCENE_WIDTH) / 2) + 0.5, Math.floor(((1 - COVERED_BOTTOM) * SCENE_HEIGHT) / 2) + 0.5];
    const pick = pickPoint(cloud, view, x, y);
    expect(pick).not.toBeNull();
    const [px, py] = framebufferPixel(camera, pick!.point, SCENE_WIDTH, SCENE_HEIGHT);
    expect(Math.abs(px - x)).toBeLessThan(1e-3);
    expect(Math.abs(py - y)).toBeLessThan(1e-3);
    console.log(`pick on the 1M scene: ${pickTime(cloud, view, x, y).toFixed(1)} ms`);
    // Closer in: the framed street is a thin band across the window, and most pixels show nothing.
    camera.zoom(0.3);
    expect(expectCandidatesCover(cloud, pickViewOf(camera, SCENE_WIDTH, SCENE_HEIGHT), 160)).toBeGreaterThan(500);
  });
});
