/**
 * The CPU reference rasterizer against pixels worked out by hand from the
 * reference's formulas: one splat (dilation, the 0.99 clamp), two splats
 * composited front to back, the early stop at transmittance 1e-4, the near
 * cull, the 16×16-tile coverage rule, SH with the view direction, the
 * anti-aliased screen filters' opacity compensation; and PSNR.
 */
import { describe, expect, test } from 'vitest';
import { mat4, vec3 } from 'gl-matrix';
import { renderReference, type ReferenceView } from '../../src/render/reference-rasterizer';
import { psnr, toRgba8 } from '../../cli/picture-compare';
import { ANTIALIASED_FILTER, MIP_FILTER } from '../../src/scene/anti-aliasing';
import { allocateSplatCloud, computeBounds, SH_C0, type ShDegree, type SplatCloud } from '../../src/scene/splat-cloud';

const SIZE = 63; // odd: the centre pixel's centre is on the view axis
const CENTRE = (SIZE - 1) / 2;
const FOV_Y = Math.PI / 3;
/** Pixels per unit of x/z (and y/z: the view is square). */
const FOCAL = SIZE / (2 * Math.tan(FOV_Y / 2));
const BG = [0.1, 0.2, 0.3] as const;

interface TestSplat {
  at: [number, number, number];
  /** Isotropic standard deviation, world units. */
  sigma: number;
  opacity: number;
  colour: [number, number, number];
  /** Degree-1 SH coefficients, RGB each, for SH tests. */
  sh1?: number[];
}

function cloudOf(splats: TestSplat[], degree: ShDegree = 0): SplatCloud {
  const cloud = allocateSplatCloud(splats.length, degree);
  splats.forEach((s, i) => {
    cloud.positions.set(s.at, 3 * i);
    cloud.scales.set([s.sigma, s.sigma, s.sigma], 3 * i);
    cloud.rotations.set([1, 0, 0, 0], 4 * i);
    cloud.opacities[i] = s.opacity;
    cloud.dc.set(s.colour.map((c) => (c - 0.5) / SH_C0), 3 * i);
    if (s.sh1) cloud.sh.set(s.sh1, 9 * i);
  });
  cloud.bounds = computeBounds(cloud.positions, cloud.count);
  return cloud;
}

/** Looking down −z from `eye` (the viewer's convention). */
function viewFrom(eye: [number, number, number] = [0, 0, 0], shDegree = 0): ReferenceView {
  const target = vec3.add(vec3.create(), eye, [0, 0, -1]);
  return { view: mat4.lookAt(mat4.create(), eye, target, [0, 1, 0]), eye, fovY: FOV_Y, width: SIZE, height: SIZE, shDegree, background: BG };
}

function pixel(rgb: Float32Array, x: number, y: number): number[] {
  const at = 3 * (y * SIZE + x);
  return [rgb[at]!, rgb[at + 1]!, rgb[at + 2]!];
}

/** The splat's 2D variance in pixels² at the view's centre (Jacobian f/d, no skew), with the reference's 0.3. */
const pixelVariance = (sigma: number, depth: number) => (FOCAL * sigma / depth) ** 2 + 0.3;
const over = (colour: readonly number[], alpha: number, under: readonly number[]) => colour.map((c, i) => c * alpha + under[i]! * (1 - alpha));

function expectPixel(actual: number[], expected: number[]): void {
  actual.forEach((v, i) => expect(v).toBeCloseTo(expected[i]!, 5));
}

describe('one splat', () => {
  const splat: TestSplat = { at: [0, 0, -10], sigma: 0.3, opacity: 0.8, colour: [0.9, 0.5, 0.2] };
  const picture = renderReference(cloudOf([splat]), viewFrom());
  const variance = pixelVariance(0.3, 10);

  test('its centre pixel gets the full opacity, and one 5 px away the Gaussian of the dilated covariance', () => {
    expectPixel(pixel(picture.rgb, CENTRE, CENTRE), over(splat.colour, 0.8, BG));
    const alpha = 0.8 * Math.exp((-0.5 * 25) / variance);
    expectPixel(pixel(picture.rgb, CENTRE + 5, CENTRE), over(splat.colour, alpha, BG));
    expectPixel(pixel(picture.rgb, CENTRE + 3, CENTRE + 4), over(splat.colour, alpha, BG));
  });

  test('opacity is clamped at 0.99', () => {
    const opaque = renderReference(cloudOf([{ ...splat, opacity: 1 }]), viewFrom());
    expectPixel(pixel(opaque.rgb, CENTRE, CENTRE), over(splat.colour, 0.99, BG));
  });

  test('nothing in front of the near plane at 0.2', () => {
    const near = renderReference(cloudOf([{ ...splat, at: [0, 0, -0.15], sigma: 0.01 }]), viewFrom());
    expectPixel(pixel(near.rgb, CENTRE, CENTRE), [...BG]);
  });
});

test('two splats composite front to back: C = c1·a1 + c2·a2·(1 − a1) + T·bg', () => {
  const front: TestSplat = { at: [0, 0, -5], sigma: 0.2, opacity: 0.6, colour: [1, 0, 0] };
  const back: TestSplat = { at: [0, 0, -8], sigma: 0.2, opacity: 0.7, colour: [0, 0, 1] };
  // Listed back first: the order comes from the depths, not the file.
  const picture = renderReference(cloudOf([back, front]), viewFrom());
  expectPixel(pixel(picture.rgb, CENTRE, CENTRE), over(front.colour, 0.6, over(back.colour, 0.7, BG)));
});

test('a pixel stops, without the splat that would take its transmittance under 1e-4', () => {
  // After one splat of alpha 0.99, T = 0.01; the next would leave 1e-4 (under it in float32): not drawn.
  const red: TestSplat = { at: [0, 0, -5], sigma: 0.2, opacity: 1, colour: [1, 0, 0] };
  const green: TestSplat = { at: [0, 0, -6], sigma: 0.2, opacity: 1, colour: [0, 1, 0] };
  const picture = renderReference(cloudOf([red, green]), viewFrom());
  expectPixel(pixel(picture.rgb, CENTRE, CENTRE), over(red.colour, 0.99, BG));
});

test('a splat reaches exactly the 16×16 tiles its 3σ square touches', () => {
  // Pixel variance 31 (σ = 5.57 px): radius ceil(3·sqrt(31 + sqrt(0.1))) = 17, so from the
  // centre pixel 31 the tiles end at pixel 47 (trunc((31 + 17 + 15) / 16) = 3 tiles of 16).
  const depth = 10;
  const sigma = (Math.sqrt(31 - 0.3) * depth) / FOCAL;
  expect(Math.ceil(3 * Math.sqrt(31 + Math.sqrt(0.1)))).toBe(17);
  const splat: TestSplat = { at: [0, 0, -depth], sigma, opacity: 0.99, colour: [1, 1, 1] };
  const picture = renderReference(cloudOf([splat]), viewFrom());
  const alphaAt = (dx: number, dy: number) => 0.99 * Math.exp((-0.5 * (dx * dx + dy * dy)) / 31);
  // Pixel 48, 17 px out: alpha 0.0094 ≥ 1/255, but outside the splat's tiles: background.
  expect(alphaAt(17, 0)).toBeGreaterThan(1 / 255);
  expectPixel(pixel(picture.rgb, 48, CENTRE), [...BG]);
  // Pixel (47, 36): 16.8 px out, past 3σ (16.7 px), inside the tiles: drawn.
  expect(Math.hypot(16, 5)).toBeGreaterThan(3 * Math.sqrt(31));
  expectPixel(pixel(picture.rgb, 47, CENTRE + 5), over(splat.colour, alphaAt(16, 5), BG));
  // The same distance to the left is inside the tiles (they start at pixel 0): drawn.
  expectPixel(pixel(picture.rgb, CENTRE - 17, CENTRE), over(splat.colour, alphaAt(17, 0), BG));
});

test('degree-1 SH: the colour follows the direction from the eye', () => {
  // One coefficient set per channel: red varies with −y, green with z, blue with −x (the basis signs).
  const sh1 = [0.3, 0, 0, 0, 0.3, 0, 0, 0, 0.3]; // k=1 RGB, k=2 RGB, k=3 RGB
  const splat: TestSplat = { at: [0, 0, -5], sigma: 0.2, opacity: 0.5, colour: [0.5, 0.5, 0.5], sh1 };
  const cloud = cloudOf([splat], 1);
  const C1 = 0.4886025119029199;
  for (const eye of [[0, 0, 0], [3, -2, 1]] as [number, number, number][]) {
    // Aim at the splat so it stays on the centre pixel.
    const d = vec3.normalize(vec3.create(), vec3.sub(vec3.create(), splat.at, eye));
    const view: ReferenceView = { ...viewFrom(eye, 1), view: mat4.lookAt(mat4.create(), eye, splat.at, [0, 1, 0]) };
    const colour = [0.5 - C1 * d[1]! * 0.3, 0.5 + C1 * d[2]! * 0.3, 0.5 - C1 * d[0]! * 0.3];
    expectPixel(pixel(renderReference(cloud, view).rgb, CENTRE, CENTRE), over(colour, 0.5, BG));
  }
});

describe('an anti-aliased screen filter', () => {
  // A splat of 0.5 px² on screen (σ = 0.707 px), far under a pixel: the case the filter is for.
  const depth = 10;
  const sigma = (Math.sqrt(0.5) * depth) / FOCAL;
  const splat: TestSplat = { at: [0, 0, -depth], sigma, opacity: 0.9, colour: [0.2, 0.9, 0.4] };
  const cloud = cloudOf([splat]);

  test('classic: +0.3 px² and the full opacity at the centre', () => {
    expect(pixelVariance(sigma, depth)).toBeCloseTo(0.8, 5);
    expectPixel(pixel(renderReference(cloud, viewFrom()).rgb, CENTRE, CENTRE), over(splat.colour, 0.9, BG));
  });

  test("gsplat's (0.3 px², compensated): the opacity times sqrt(det before / det after) = 0.5 / 0.8", () => {
    const picture = renderReference(cloud, { ...viewFrom(), screenFilter: ANTIALIASED_FILTER });
    const opacity = 0.9 * Math.sqrt((0.5 * 0.5) / (0.8 * 0.8));
    expectPixel(pixel(picture.rgb, CENTRE, CENTRE), over(splat.colour, opacity, BG));
    // One pixel out: the same blurred Gaussian as the classic filter's, at the lower opacity.
    expectPixel(pixel(picture.rgb, CENTRE + 1, CENTRE), over(splat.colour, opacity * Math.exp(-0.5 / 0.8), BG));
  });

  test("Mip-Splatting's (0.1 px², compensated): a variance of 0.6 px² and the opacity times 0.5 / 0.6", () => {
    const picture = renderReference(cloud, { ...viewFrom(), screenFilter: MIP_FILTER });
    const opacity = 0.9 * (0.5 / 0.6);
    expectPixel(pixel(picture.rgb, CENTRE, CENTRE), over(splat.colour, opacity, BG));
    expectPixel(pixel(picture.rgb, CENTRE, CENTRE + 2), over(splat.colour, opacity * Math.exp(-2 / 0.6), BG));
  });
});

test('PSNR: identical pictures are Infinity; every channel one level off is 20·log10(255) dB', () => {
  const a = toRgba8(new Float32Array(300).map((_, i) => (i % 7) / 7));
  expect(psnr(a, a)).toBe(Infinity);
  const b = a.map((v, i) => ((i & 3) === 3 ? v : v === 255 ? 254 : v + 1));
  expect(psnr(a, b)).toBeCloseTo(20 * Math.log10(255), 10);
  expect(() => psnr(a, a.subarray(4))).toThrow(RangeError);
});
