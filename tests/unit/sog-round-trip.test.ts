/**
 * Reading SOG (PlayCanvas's WebP-image splat format): the WebP decoder
 * returns lossless images exactly, and scenes the test writer
 * (tests/support/sog-writer.ts) writes from the 9k INRIA scene, bundled
 * (.sog) or loose (meta.json and its images), at every SH degree and in
 * both versions, decode within the writer's quantisation.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseSplatPly } from '../../src/io/ply/parse';
import { parseSogBundle } from '../../src/io/sog/bundle';
import { parseSog } from '../../src/io/sog/decode';
import { sogFileNames } from '../../src/io/sog/meta';
import { decodeWebp } from '../../src/io/webp-decode';
import { readWebpSize } from '../../src/io/webp-header';
import { isZip } from '../../src/io/zip-directory';
import { shCoefficients, type ShDegree, type SplatCloud } from '../../src/scene/splat-cloud';
import { scenePath } from '../shared-scenes';
import { sameValues } from '../support/clouds';
import { formatError } from '../support/format-errors';
import { quatMismatch, readerOf, rotationBound } from '../support/sog-checks';
import { bundleSog, encodeLosslessWebp, writeSog, type WrittenSog } from '../support/sog-writer';

const SCENE = 'inria_kacytran_iter7000_9k_sh3.ply';

let scene: SplatCloud;

beforeAll(() => {
  scene = parseSplatPly(readFileSync(scenePath(SCENE)));
});

const sigmoidSlope = 0.25; // the steepest the sigmoid gets

/**
 * Worst error over the scene, as a fraction of what the writer's quantisation
 * allows (so each must be ≤ 1). Bounds, per attribute:
 * - position: the log-space value is rounded to the nearest of 65,536 steps
 *   of size s, so |Δt| ≤ s/2 and, as x = sign(t)(e^|t| − 1),
 *   |Δx| ≤ (|x| + 1) · (s/2) · e^(s/2); plus float32 rounding of x.
 * - log scale, DC, higher SH: nearest of 256 evenly spaced levels, so half
 *   the spacing; plus float32 rounding.
 * - opacity: version 2 stores round(opacity × 255): 0.5/255. Version 1
 *   stores the logit to half a level, and the sigmoid's slope is ≤ 1/4.
 * - rotation: each of the three stored components is off by at most half a
 *   byte step, δ = 1/(255√2); the rebuilt largest one (≥ 1/2) then by at most
 *   3δ, so the error vector is ≤ √12 δ long and, after normalising,
 *   1 − |q·q'| ≤ rotationBound(δ).
 */
function quantisationErrors(decoded: SplatCloud, original: SplatCloud, written: WrittenSog, version: 1 | 2): Record<string, number> {
  const q = written.quantisation;
  const f32 = 2 ** -23;
  const worst = { position: 0, scale: 0, rotation: 0, opacity: 0, dc: 0, sh: 0 };
  const dims = shCoefficients(written.shDegree) * 3;
  const delta = 1 / (255 * Math.SQRT2);
  for (let i = 0; i < original.count; i++) {
    for (let a = 0; a < 3; a++) {
      const x = original.positions[i * 3 + a]!;
      const s = q.positionStep[a]!;
      const tol = (Math.abs(x) + 1) * (s / 2) * Math.exp(s / 2) + Math.abs(x) * f32 + 1e-12;
      worst.position = Math.max(worst.position, Math.abs(decoded.positions[i * 3 + a]! - x) / tol);
      const dLog = Math.abs(Math.log(decoded.scales[i * 3 + a]!) - Math.log(original.scales[i * 3 + a]!));
      worst.scale = Math.max(worst.scale, dLog / (q.logScaleStep[a]! / 2 + 1e-6));
      const dDc = Math.abs(decoded.dc[i * 3 + a]! - original.dc[i * 3 + a]!);
      worst.dc = Math.max(worst.dc, dDc / (q.dcStep[a]! / 2 + 1e-6));
    }
    const opacityTol = version === 2 ? 0.5 / 255 : sigmoidSlope * (q.opacityStep / 2) + 2e-6;
    worst.opacity = Math.max(worst.opacity, Math.abs(decoded.opacities[i]! - original.opacities[i]!) / (opacityTol + 1e-7));
    worst.rotation = Math.max(worst.rotation, quatMismatch(decoded.rotations, original.rotations, i) / (rotationBound(delta) + 1e-6));
    for (let j = 0; j < dims; j++) {
      const expected = written.expected.sh[i * dims + j]!;
      const dSh = Math.abs(decoded.sh[i * dims + j]! - expected);
      worst.sh = Math.max(worst.sh, dSh / (q.shStep / 2 + Math.abs(expected) * f32 + 1e-7));
    }
  }
  return worst;
}

function expectWithinQuantisation(decoded: SplatCloud, original: SplatCloud, written: WrittenSog, version: 1 | 2 = 2): void {
  expect(decoded.count).toBe(original.count);
  expect(decoded.shDegree).toBe(written.shDegree);
  expect(decoded.sh.length).toBe(original.count * shCoefficients(written.shDegree) * 3);
  const worst = quantisationErrors(decoded, original, written, version);
  for (const [name, ratio] of Object.entries(worst)) {
    expect(ratio, `${name}: worst error / allowed`).toBeLessThanOrEqual(1);
  }
}

describe('decodeWebp', () => {
  it('returns the exact bytes of a lossless image, colour under zero alpha included', async () => {
    const width = 37;
    const height = 11;
    const rgba = new Uint8Array(width * height * 4);
    let seed = 12345;
    for (let i = 0; i < rgba.length; i++) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      rgba[i] = seed >>> 24;
    }
    for (let p = 0; p < width * height; p += 3) rgba[p * 4 + 3] = 0;
    const webp = await encodeLosslessWebp(rgba, width, height);
    expect(readWebpSize(webp)).toEqual({ width, height, kind: 'lossless' });
    const decoded = await decodeWebp(webp);
    expect(decoded.width).toBe(width);
    expect(decoded.height).toBe(height);
    expect(Buffer.from(decoded.data).equals(Buffer.from(rgba))).toBe(true);
  });

  it('refuses what is not WebP, and WebP it cannot decode, with a format error', async () => {
    expect((await formatError(decodeWebp(new Uint8Array([1, 2, 3, 4, 5])))).message).toMatch(/not a WebP image/);
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect((await formatError(decodeWebp(png))).message).toMatch(/PNG/);
    const good = await encodeLosslessWebp(new Uint8Array(64 * 4).fill(7), 8, 8);
    const damaged = good.slice();
    damaged.fill(0xff, 25);
    expect((await formatError(decodeWebp(damaged))).message).toMatch(/could not be decoded/);
    // The decoder still works afterwards.
    expect((await decodeWebp(good)).data[0]).toBe(7);
  });
});

describe('SOG round trip (test writer → reader) on the 9k INRIA scene', () => {
  it('recognises a .sog bundle by its zip magic', async () => {
    const written = await writeSog(scene, { shDegree: 0 });
    expect(isZip(bundleSog(written))).toBe(true);
    expect(isZip(readFileSync(scenePath(SCENE)))).toBe(false);
    expect(isZip(new Uint8Array(0))).toBe(false);
  });

  for (const shDegree of [0, 1, 2, 3] as ShDegree[]) {
    it(`unbundled, SH degree ${shDegree}: decodes within the quantisation`, async () => {
      const written = await writeSog(scene, { shDegree });
      expect(sogFileNames(written.metaJson)).toEqual([...written.files.keys()].sort((a, b) => order(a) - order(b)));
      const progress: number[] = [];
      const cloud = await parseSog(written.metaJson, readerOf(written.files), { onProgress: (f) => progress.push(f) });
      expectWithinQuantisation(cloud, scene, written);
      // With one palette entry per splat, the SH is the scene's own, rounded.
      if (shDegree === 3) expect(sameValues(written.expected.sh, scene.sh)).toBe(true);
      expect(progress.length).toBeGreaterThan(2);
      expect(progress.every((f, k) => f > 0 && f <= 1 && (k === 0 || f >= progress[k - 1]!))).toBe(true);
      expect(progress.at(-1)).toBe(1);
      expect(cloud.bounds.min[0]).toBeLessThan(cloud.bounds.max[0]);
    });
  }

  it('bundled, SH degree 3: the same splats as unbundled', async () => {
    const written = await writeSog(scene, { shDegree: 3 });
    const bundle = bundleSog(written);
    const progress: number[] = [];
    const fromBundle = await parseSogBundle(bundle, { onProgress: (f) => progress.push(f) });
    expectWithinQuantisation(fromBundle, scene, written);
    const loose = await parseSog(new TextEncoder().encode(written.metaJson), readerOf(written.files));
    for (const key of ['positions', 'scales', 'rotations', 'opacities', 'dc', 'sh'] as const) {
      expect(sameValues(fromBundle[key], loose[key]), key).toBe(true);
    }
    expect(progress.at(-1)).toBe(1);
  });

  it('bundled, SH degree 0, deflated entries inside a folder', async () => {
    const written = await writeSog(scene, { shDegree: 0, width: 128 });
    const cloud = await parseSogBundle(bundleSog(written, { folder: 'scene', deflate: true }));
    expectWithinQuantisation(cloud, scene, written);
  });

  it('a clustered SH palette decodes to the entry each splat was given', async () => {
    const written = await writeSog(scene, { shDegree: 3, paletteSize: 256, iterations: 1 });
    expect((written.meta['shN'] as { count: number }).count).toBe(256);
    const cloud = await parseSogBundle(bundleSog(written));
    expectWithinQuantisation(cloud, scene, written);
  });

  it('version 1 (no version field, min/max ranges), bundled, SH degree 3', async () => {
    const written = await writeSog(scene, { version: 1, shDegree: 3 });
    expect(written.meta['version']).toBeUndefined();
    const cloud = await parseSogBundle(bundleSog(written));
    expectWithinQuantisation(cloud, scene, written, 1);
  });

  it('a scene of zero splats', async () => {
    const empty = { ...scene, count: 0 };
    const written = await writeSog(empty, { shDegree: 0 });
    const cloud = await parseSog(written.metaJson, readerOf(written.files));
    expect(cloud.count).toBe(0);
    expect(cloud.positions.length).toBe(0);
  });
});

/** meta.json order of the image names. */
function order(name: string): number {
  return ['means_l.webp', 'means_u.webp', 'quats.webp', 'scales.webp', 'sh0.webp', 'shN_centroids.webp', 'shN_labels.webp'].indexOf(name);
}
