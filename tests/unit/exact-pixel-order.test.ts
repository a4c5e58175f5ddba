/**
 * The CPU reference's exact per-pixel order (bench/reference-pixel-order.ts),
 * streamed through a heap that blends a splat once nothing still to come
 * can lie nearer, against the order written plainly: each pixel's reaching
 * splats sorted whole by their depth along its ray (ties in list order),
 * then blended until opaque. The same picture, bit for bit, on random
 * clouds of overlapping, flat, turned splats, with depths that tie.
 */
import { describe, expect, test } from 'vitest';
import { mat4 } from 'gl-matrix';
import { ALPHA_MIN, alphaAt, renderReference, type ReferenceOrder, type ReferenceView } from '../../src/render/reference-rasterizer';
import { blendOne, depthAlongRay, endPixel, perPixelOrder, startPixel } from '../../bench/reference-pixel-order';
import { allocateSplatCloud, computeBounds, SH_C0, type SplatCloud } from '../../src/scene/splat-cloud';
import { rng } from '../support/splat-files';

/** The exact order as the sort states it. */
function sortedWhole(): ReferenceOrder {
  const state = new Float64Array(5);
  return {
    rayShapes: true,
    blend: (splats, list, px, py, out) => {
      startPixel(state);
      const found: { t: number; alpha: number; k: number; n: number }[] = [];
      list.forEach((k, n) => {
        const alpha = alphaAt(splats, k, px, py);
        if (alpha >= ALPHA_MIN) found.push({ t: depthAlongRay(splats, k, px, py), alpha, k, n });
      });
      found.sort((a, b) => a.t - b.t || a.n - b.n);
      for (const s of found) if (!blendOne(state, splats, s.k, s.alpha)) break;
      endPixel(state, out);
    },
  };
}

/** `count` splats in front of the camera; `copies` of each at the same place (their depths tie). */
function randomCloud(count: number, copies: number, seed: number): SplatCloud {
  const random = rng(seed);
  const cloud = allocateSplatCloud(count * copies, 0);
  for (let i = 0; i < count; i++) {
    const position = [(random() - 0.5) * 5, (random() - 0.5) * 3, -3 - 4 * random()];
    const scale = [0.02 + 0.6 * random(), 0.02 + 0.6 * random(), 0.002 + 0.3 * random()];
    const q = [random() - 0.5, random() - 0.5, random() - 0.5, random() - 0.5];
    const norm = Math.hypot(...q);
    for (let c = 0; c < copies; c++) {
      const j = i * copies + c;
      cloud.positions.set(position, 3 * j);
      cloud.scales.set(scale, 3 * j);
      cloud.rotations.set(q.map((v) => v / norm), 4 * j);
      cloud.opacities[j] = 0.05 + 0.9 * random();
      cloud.dc.set([random(), random(), random()].map((v) => (v - 0.5) / SH_C0), 3 * j);
    }
  }
  cloud.bounds = computeBounds(cloud.positions, cloud.count);
  return cloud;
}

const view: ReferenceView = {
  view: mat4.lookAt(mat4.create(), [0, 0, 0], [0, 0, -1], [0, 1, 0]),
  eye: [0, 0, 0],
  fovY: Math.PI / 3,
  width: 80,
  height: 56,
  shDegree: 0,
  background: [0.1, 0.2, 0.3],
};

describe('the exact per-pixel order, streamed', () => {
  test.each([
    [300, 1, 3],
    [120, 3, 11],
    [600, 1, 19],
  ])('draws what sorting each pixel whole draws: %i splats × %i copies (seed %i)', (count, copies, seed) => {
    const cloud = randomCloud(count, copies, seed);
    const streamed = renderReference(cloud, view, perPixelOrder()).rgb;
    const whole = renderReference(cloud, view, sortedWhole()).rgb;
    expect(Array.from(streamed)).toEqual(Array.from(whole));
    // Not a picture of nothing: most pixels are covered.
    let covered = 0;
    for (let p = 0; p < streamed.length; p += 3) if (Math.abs(streamed[p]! - 0.1) > 0.01) covered++;
    expect(covered).toBeGreaterThan(0.5 * view.width * view.height);
  });
});
