import { execFileSync } from 'node:child_process';
import { ANTIALIASED_FILTER } from '../../src/scene/anti-aliasing';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSplatPly, SplatFormatError } from '../../src/io/ply/parse';
import { parseSogBundle } from '../../src/io/sog/bundle';
import { isZip } from '../../src/io/zip-directory';
import { parseSog } from '../../src/io/sog/decode';
import { sogFileNames } from '../../src/io/sog/meta';
import { decodeWebp } from '../../src/io/webp-decode';
import { readWebpSize } from '../../src/io/webp-header';
import { SplatLimitError, type LoadLimits } from '../../src/io/load-limits';
import { shCoefficients, type ShDegree, type SplatCloud } from '../../src/scene/splat-cloud';
import { scenePath } from '../shared-scenes';
import { zipArchive, type ZipInput } from '../support/bombs';
import { SPLAT_TRANSFORM_CLI } from '../../bench/splat-transform';
import { bundleSog, encodeLosslessWebp, writeSog, type WrittenSog } from '../support/sog-writer';

const SCENE = 'inria_kacytran_iter7000_9k_sh3.ply';

let scene: SplatCloud;
let work: string;

beforeAll(() => {
  scene = parseSplatPly(readFileSync(scenePath(SCENE)));
  work = mkdtempSync(join(tmpdir(), 'splatsort-sog-'));
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

// Its k-means starts from Math.random: seeded, it writes the same file every
// run, so the error bounds below hold on every run, not only on most.
const SEEDED_RANDOM = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), '../support/seeded-random.mjs')).href;

/** splat-transform's command line, CPU only (no GPU is needed for SOG), quiet, with a seeded Math.random. */
function splatTransform(...args: string[]): void {
  execFileSync(process.execPath, ['--import', SEEDED_RANDOM, SPLAT_TRANSFORM_CLI, '-q', '-w', '-g', 'cpu', ...args], { stdio: 'pipe', timeout: 60_000 });
}

function readerOf(files: Map<string, Uint8Array> | Record<string, Uint8Array>): (name: string) => Promise<Uint8Array> {
  const map = files instanceof Map ? files : new Map(Object.entries(files));
  return (name) => {
    const bytes = map.get(name);
    return bytes ? Promise.resolve(bytes) : Promise.reject(new Error(`no file ${name}`));
  };
}

/** Bit-for-bit equality of two float arrays (vitest's deep equality is slow on large arrays). */
function sameValues(a: Float32Array, b: Float32Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}

async function formatError(promise: Promise<unknown>): Promise<Error> {
  const err = await promise.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(SplatFormatError);
  return err as Error;
}

function normalised(q: Float32Array, i: number): number[] {
  const v = Array.from(q.subarray(i * 4, i * 4 + 4));
  const length = Math.hypot(...v) || 1;
  return v.map((c) => c / length);
}

function quatMismatch(a: Float32Array, b: Float32Array, i: number, j = i): number {
  const qa = normalised(a, i);
  const qb = normalised(b, j);
  let dot = 0;
  for (let c = 0; c < 4; c++) dot += qa[c]! * qb[c]!;
  return 1 - Math.abs(dot); // q and −q are the same rotation
}

const sigmoidSlope = 0.25; // the steepest the sigmoid gets

/**
 * 1 − |q·q'| for a unit q and q' = (q + e)/|q + e| with |e| ≤ √12 δ: the part
 * of e across q, squared, over twice the squared length along q.
 */
function rotationBound(delta: number): number {
  const e = Math.sqrt(12) * delta;
  return (e * e) / (2 * (1 - e) ** 2);
}

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

/**
 * Pairs each decoded splat with the input splat it came from. splat-transform
 * reorders splats (Morton order), so they are paired by the 16-bit position
 * it stored: recomputed from the input exactly as it quantises (log
 * transform, scaled to 0..65535, truncated), and recovered from the decoded
 * position by rounding (float32 keeps it far closer than half a step). Within
 * a group of equal stored positions (this scene has 319 positions that hold
 * two splats), splats are paired greedily by their other attributes.
 * Returns the pairing, or the first group whose sizes differ.
 */
function pairByStoredPosition(
  decoded: SplatCloud, input: SplatCloud, mins: number[], maxs: number[],
): { match: Int32Array; mismatch?: string } {
  const logTransform = (x: number): number => Math.sign(x) * Math.log(Math.abs(x) + 1);
  const key = (positions: Float32Array, i: number, toInt: (v: number) => number): string =>
    [0, 1, 2].map((a) => toInt((65535 * (logTransform(positions[i * 3 + a]!) - mins[a]!)) / (maxs[a]! - mins[a]!))).join(',');
  const groups = new Map<string, { inputs: number[]; outputs: number[] }>();
  const group = (k: string): { inputs: number[]; outputs: number[] } => {
    let g = groups.get(k);
    if (!g) groups.set(k, (g = { inputs: [], outputs: [] }));
    return g;
  };
  for (let j = 0; j < input.count; j++) group(key(input.positions, j, Math.trunc)).inputs.push(j);
  for (let i = 0; i < decoded.count; i++) group(key(decoded.positions, i, Math.round)).outputs.push(i);
  const match = new Int32Array(decoded.count).fill(-1);
  const distance = (i: number, j: number): number => {
    let d = Math.abs(decoded.opacities[i]! - input.opacities[j]!) + quatMismatch(decoded.rotations, input.rotations, i, j);
    for (let c = 0; c < 3; c++) {
      d += Math.abs(decoded.dc[i * 3 + c]! - input.dc[j * 3 + c]!);
      d += Math.abs(Math.log(decoded.scales[i * 3 + c]! / input.scales[j * 3 + c]!));
    }
    return d;
  };
  for (const [k, { inputs, outputs }] of groups) {
    if (inputs.length !== outputs.length) {
      return { match, mismatch: `stored position ${k}: ${inputs.length} input splats, ${outputs.length} decoded` };
    }
    const free = new Set(inputs);
    for (const i of outputs) {
      let best = -1;
      for (const j of free) if (best < 0 || distance(i, j) < distance(i, best)) best = j;
      match[i] = best;
      free.delete(best);
    }
  }
  return { match };
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

describe('cross-checks with @playcanvas/splat-transform', () => {
  it('reads the .sog splat-transform writes from the 9k scene: the input splats within SOG quantisation', async () => {
    const sogPath = join(work, 'splat-transform.sog');
    // CPU k-means with 2 iterations: about 3 s on an idle two-core machine.
    splatTransform('-i', '2', scenePath(SCENE), sogPath);
    const bundle = readFileSync(sogPath);
    // Seeded, a second run writes the same files (the zip's timestamps aside):
    // the bounds below are measured on this very output.
    const againPath = join(work, 'splat-transform-again.sog');
    splatTransform('-i', '2', scenePath(SCENE), againPath);
    const files = unzipSync(bundle);
    const again = unzipSync(readFileSync(againPath));
    expect(Object.keys(again).sort()).toEqual(Object.keys(files).sort());
    for (const name of Object.keys(files)) expect(Buffer.from(again[name]!).equals(Buffer.from(files[name]!)), name).toBe(true);
    const cloud = await parseSogBundle(bundle);
    expect(cloud.count).toBe(scene.count);
    expect(cloud.shDegree).toBe(3);

    // The same bytes unbundled, through parseSog.
    const loose = await parseSog(files['meta.json']!, readerOf(files));
    expect(sameValues(loose.positions, cloud.positions)).toBe(true);
    expect(sameValues(loose.sh, cloud.sh)).toBe(true);

    // Pairing by stored position checks the positions: every decoded one
    // must round back to the 16 bits splat-transform stored for one input splat.
    const meta = JSON.parse(new TextDecoder().decode(files['meta.json']!)) as { means: { mins: number[]; maxs: number[] } };
    const { match, mismatch } = pairByStoredPosition(cloud, scene, meta.means.mins, meta.means.maxs);
    expect(mismatch).toBeUndefined();
    expect(new Set(match).size).toBe(scene.count);
    // And in plain units: splat-transform truncates, so up to a whole step s
    // of the log-space grid: |Δx| ≤ (|x| + 1) · s · e^s.
    let position = 0;
    for (let i = 0; i < cloud.count; i++) {
      for (let a = 0; a < 3; a++) {
        const s = (meta.means.maxs[a]! - meta.means.mins[a]!) / 65535;
        const x = scene.positions[match[i]! * 3 + a]!;
        const tolerance = (Math.abs(x) + 1) * s * Math.exp(s) + Math.abs(x) * 2 ** -23;
        position = Math.max(position, Math.abs(cloud.positions[i * 3 + a]! - x) / tolerance);
      }
    }
    expect(position).toBeLessThanOrEqual(1);

    const delta = Math.SQRT2 / 255; // a whole byte step per stored quaternion component
    const errors = { logScale: [] as number[], dc: [] as number[], opacity: 0, rotation: 0, sh: [] as number[] };
    const k = shCoefficients(3) * 3;
    for (let i = 0; i < cloud.count; i++) {
      const j = match[i]!;
      for (let a = 0; a < 3; a++) {
        errors.logScale.push(Math.abs(Math.log(cloud.scales[i * 3 + a]!) - Math.log(scene.scales[j * 3 + a]!)));
        errors.dc.push(Math.abs(cloud.dc[i * 3 + a]! - scene.dc[j * 3 + a]!));
      }
      errors.opacity = Math.max(errors.opacity, Math.abs(cloud.opacities[i]! - scene.opacities[j]!));
      errors.rotation = Math.max(errors.rotation, quatMismatch(cloud.rotations, scene.rotations, i, j));
      for (let c = 0; c < k; c++) errors.sh.push(Math.abs(cloud.sh[i * k + c]! - scene.sh[j * k + c]!));
    }
    // Opacity: stored as floor(opacity × 255), so up to one level low.
    expect(errors.opacity).toBeLessThanOrEqual(1 / 255 + 1e-6);
    // Rotation: truncated components, each off by up to a whole step δ.
    expect(errors.rotation).toBeLessThanOrEqual(rotationBound(delta));
    // Scales and DC go through 256-entry 1D k-means codebooks, the higher SH
    // through an 8,192-entry k-means palette (2 rounds here) and a codebook:
    // no hard bound, so the limits are about twice what this scene measures
    // with the seeded k-means (log scale: median 0.0064, max 0.050; DC:
    // median 0.0033, max 0.035; higher SH: 99% under 0.003, max 0.016).
    // Unseeded, one run in several reached 0.066 on the higher SH, over the
    // 0.05 this test allowed then.
    expect(quantile(errors.logScale, 0.5)).toBeLessThan(0.015);
    expect(quantile(errors.logScale, 1)).toBeLessThan(0.1);
    expect(quantile(errors.dc, 0.5)).toBeLessThan(0.008);
    expect(quantile(errors.dc, 1)).toBeLessThan(0.07);
    expect(quantile(errors.sh, 0.99)).toBeLessThan(0.01);
    expect(quantile(errors.sh, 1)).toBeLessThan(0.035);
  });

  for (const version of [2, 1] as const) {
    it(`splat-transform reads what the test writer writes (version ${version}) as the reader does`, async () => {
      const written = await writeSog(scene, { version, shDegree: 3 });
      const sogPath = join(work, `writer-v${version}.sog`);
      const plyPath = join(work, `writer-v${version}.ply`);
      writeFileSync(sogPath, bundleSog(written));
      splatTransform(sogPath, plyPath);
      const theirs = parseSplatPly(readFileSync(plyPath));
      const ours = await parseSogBundle(readFileSync(sogPath));
      expect(theirs.count).toBe(ours.count);
      expect(theirs.shDegree).toBe(ours.shDegree);
      // Same quantised data decoded twice: only float32 round-off apart
      // (splat-transform passes opacity through a logit and scales through a
      // log on the way to its PLY).
      let position = 0, scale = 0, opacity = 0, dc = 0, sh = 0, rotation = 0;
      for (let i = 0; i < ours.count; i++) {
        for (let a = 0; a < 3; a++) {
          const x = ours.positions[i * 3 + a]!;
          position = Math.max(position, Math.abs(theirs.positions[i * 3 + a]! - x) / (Math.abs(x) + 1));
          scale = Math.max(scale, Math.abs(theirs.scales[i * 3 + a]! / ours.scales[i * 3 + a]! - 1));
          dc = Math.max(dc, Math.abs(theirs.dc[i * 3 + a]! - ours.dc[i * 3 + a]!));
        }
        opacity = Math.max(opacity, Math.abs(theirs.opacities[i]! - ours.opacities[i]!));
        rotation = Math.max(rotation, quatMismatch(theirs.rotations, ours.rotations, i));
      }
      for (let c = 0; c < ours.sh.length; c++) sh = Math.max(sh, Math.abs(theirs.sh[c]! - ours.sh[c]!));
      expect(position).toBeLessThan(1e-6);
      expect(scale).toBeLessThan(1e-5);
      expect(opacity).toBeLessThan(2e-6);
      expect(dc).toBeLessThan(1e-6);
      expect(sh).toBeLessThan(1e-6);
      expect(rotation).toBeLessThan(1e-6);
    });
  }
});

describe('broken SOG input: SplatFormatError with a message that names the problem', () => {
  let written: WrittenSog;
  let bundle: Uint8Array;
  beforeAll(async () => {
    written = await writeSog(scene, { shDegree: 1 });
    bundle = bundleSog(written);
  });

  const withMeta = (edit: (meta: Record<string, unknown>) => void): string => {
    const meta = JSON.parse(written.metaJson) as Record<string, unknown>;
    edit(meta);
    return JSON.stringify(meta);
  };

  it('an antialias flag that is not true or false; true is recorded as the scene\'s filter', async () => {
    const err = await formatError(parseSogBundle(bundleSog(written, { metaJson: withMeta((m) => (m['antialias'] = 'yes')) })));
    expect(err.message).toMatch(/meta\.json's antialias must be true or false, found "yes"/);
    expect((await parseSogBundle(bundle)).antiAliasing).toBeUndefined();
    const flagged = await parseSogBundle(bundleSog(written, { metaJson: withMeta((m) => (m['antialias'] = true)) }));
    expect(flagged.antiAliasing).toEqual({ filter: ANTIALIASED_FILTER, source: 'SOG meta.json "antialias"' });
  });

  it('a zip without meta.json', async () => {
    const err = await formatError(parseSogBundle(bundleSog(written, { omit: ['meta.json'] })));
    expect(err.message).toMatch(/\.sog bundle has no meta\.json/);
  });

  /** The written scene as stored zip entries, renamed by `rename` (to '' to leave one out), with `extra` after them. */
  const entriesOf = (rename: (name: string) => string = (n) => n, extra: ZipInput[] = []): ZipInput[] => [
    { name: 'meta.json' as string, stored: new TextEncoder().encode(written.metaJson) },
    ...[...written.files].map(([name, stored]) => ({ name, stored })),
  ].map((e): ZipInput => ({ ...e, name: rename(e.name) })).filter((e) => e.name !== '').concat(extra);

  /** The archive with every name flagged as UTF-8 (general purpose bit 11), as writers flag names that are not ASCII. */
  const utf8Names = (zip: Uint8Array): Uint8Array => {
    const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
    for (let at = 0; at + 4 <= zip.length; at++) {
      const signature = view.getUint32(at, true);
      // Flags at +6 of a local header (PK\x03\x04), +8 of a central one (PK\x01\x02).
      if (signature === 0x04034b50) view.setUint16(at + 6, view.getUint16(at + 6, true) | 0x800, true);
      if (signature === 0x02014b50) view.setUint16(at + 8, view.getUint16(at + 8, true) | 0x800, true);
    }
    return zip;
  };

  it('two entries of one name, or of names that differ only by "./", folders, case or accent composition, are refused by name', async () => {
    // Another valid image under a name already there: a reader that took the last one would load it.
    const scales = written.files.get('scales.webp')!;
    const cases: [ZipInput[], RegExp][] = [
      [entriesOf(undefined, [{ name: 'quats.webp', stored: scales }]), /holds two entries named 'quats\.webp'/],
      [entriesOf(undefined, [{ name: './quats.webp', stored: scales }]), /holds both 'quats\.webp' and '\.\/quats\.webp', names of the same file/],
      [entriesOf(undefined, [{ name: 'Quats.webp', stored: scales }]), /holds both 'quats\.webp' and 'Quats\.webp'/],
      [entriesOf(undefined, [{ name: 'x/../meta.json', stored: new TextEncoder().encode('{}') }]), /holds both 'meta\.json' and 'x\/\.\.\/meta\.json'/],
      [entriesOf((n) => `scene/${n}`, [{ name: 'scene//sh0.webp', stored: scales }]), /holds both 'scene\/sh0\.webp' and 'scene\/\/sh0\.webp'/],
      // 'é' composed (NFC) and decomposed (NFD, as macOS writes it).
      [entriesOf((n) => (n === 'meta.json' ? n : `caf\u00e9/${n}`), [{ name: 'cafe\u0301/sh0.webp', stored: scales }]), /holds both 'caf\u00e9\/sh0\.webp' and 'cafe\u0301\/sh0\.webp'/],
    ];
    for (const [entries, pattern] of cases) {
      const err = await formatError(parseSogBundle(utf8Names(zipArchive(entries))));
      expect(err.message).toMatch(pattern);
      expect(err.message).toMatch(/zip readers differ on which one to take/);
    }
  });

  it('entries named with "./" or "\\" are found, folder entries are no files, and meta.json in two folders is refused', async () => {
    const reference = await parseSogBundle(bundle);
    for (const rename of [(n: string) => `./${n}`, (n: string) => `scene\\${n}`, (n: string) => `scene/./${n}`]) {
      const entries = entriesOf(rename, [{ name: 'scene/', stored: new Uint8Array(0) }, { name: 'scene/', stored: new Uint8Array(0) }]);
      const cloud = await parseSogBundle(zipArchive(entries));
      expect(sameValues(cloud.positions, reference.positions)).toBe(true);
    }
    const twice = [...entriesOf((n) => `a/${n}`), ...entriesOf((n) => `b/${n}`)];
    const err = await formatError(parseSogBundle(zipArchive(twice)));
    expect(err.message).toMatch(/has no meta\.json at its root but 2 in folders \('a\/meta\.json', 'b\/meta\.json'\)/);
  });

  it('an entry whose local header gives another name than the directory', async () => {
    const zip = zipArchive(entriesOf()).slice();
    const view = new DataView(zip.buffer);
    // Local headers (PK\x03\x04): name length at +26, name at +30.
    let patched = 0;
    for (let at = 0; at + 30 < zip.length; at++) {
      if (view.getUint32(at, true) !== 0x04034b50) continue;
      const name = new TextDecoder().decode(zip.subarray(at + 30, at + 30 + view.getUint16(at + 26, true)));
      if (name === 'quats.webp') { zip[at + 30] = 'Q'.charCodeAt(0); patched++; }
    }
    expect(patched).toBe(1);
    const err = await formatError(parseSogBundle(zip));
    expect(err.message).toMatch(/entry 'quats\.webp' could not be unpacked.*the local header of 'quats\.webp' names it 'Quats\.webp'/);
  });

  it('a zip missing an image meta.json names', async () => {
    const err = await formatError(parseSogBundle(bundleSog(written, { omit: ['quats.webp'] })));
    expect(err.message).toMatch(/\.sog bundle has no entry 'quats\.webp' that meta\.json names/);
  });

  it('meta.json that is not JSON', async () => {
    const err = await formatError(parseSogBundle(bundleSog(written, { metaJson: '{"version": 2, "count": ' })));
    expect(err.message).toMatch(/meta\.json is not valid JSON/);
    expect((await formatError(parseSog(new Uint8Array([0xff, 0xfe, 0x00]), readerOf({})))).message).toMatch(/not valid UTF-8|not valid JSON/);
    expect((await formatError(parseSog('[1, 2]', readerOf({})))).message).toMatch(/must hold a JSON object/);
  });

  it('a truncated zip', async () => {
    for (const fraction of [0.6, 0.95, 0.999]) {
      const err = await formatError(parseSogBundle(bundle.subarray(0, Math.floor(bundle.length * fraction))));
      expect(err.message).toMatch(/not a readable zip archive/);
    }
  });

  it('bytes that are not a zip at all', async () => {
    const err = await formatError(parseSogBundle(new TextEncoder().encode('{"version": 2}')));
    expect(err.message).toMatch(/Not a \.sog bundle/);
  });

  it('a webp replaced by garbage', async () => {
    const garbage = new Map(written.files);
    garbage.set('quats.webp', new TextEncoder().encode('this is not an image at all'));
    const err = await formatError(parseSogBundle(bundleSog({ ...written, files: garbage })));
    expect(err.message).toMatch(/'quats\.webp' is not a WebP image/);

    const damaged = new Map(written.files);
    const sh0 = written.files.get('sh0.webp')!.slice();
    sh0.fill(0x5a, 40);
    damaged.set('sh0.webp', sh0);
    const err2 = await formatError(parseSog(written.metaJson, readerOf(damaged)));
    expect(err2.message).toMatch(/'sh0\.webp': WebP image could not be decoded by libwebp/);
  });

  it('a count larger than the images', async () => {
    const meta = withMeta((m) => { m['count'] = scene.count * 2; });
    const err = await formatError(parseSogBundle(bundleSog(written, { metaJson: meta })));
    expect(err.message).toMatch(/'means_l\.webp' is \d+×\d+ = \d+ pixels, too small for meta\.json's count of 18160 splats/);
  });

  it('a count that is negative, fractional, a string, or 2^40', async () => {
    const cases: [unknown, RegExp][] = [
      [-1, /count must be a whole number of splats, found -1/],
      [1.5, /count must be a whole number of splats, found 1\.5/],
      ['9080', /count must be a whole number of splats, found "9080"/],
      [2 ** 40, /count of 1099511627776 splats is more than SOG images can hold/],
    ];
    for (const [count, pattern] of cases) {
      let reads = 0;
      const reader = (name: string): Promise<Uint8Array> => { reads++; return readerOf(written.files)(name); };
      const err = await formatError(parseSog(withMeta((m) => { m['count'] = count; }), reader));
      expect(err.message).toMatch(pattern);
      expect(reads).toBe(0); // refused from meta.json alone
    }
    const missing = await formatError(parseSog(withMeta((m) => { delete m['count']; }), readerOf(written.files)));
    expect(missing.message).toMatch(/meta\.json has no count/);
  });

  it('a large count is checked against the load limits before any image is read', async () => {
    let reads = 0;
    const reader = (name: string): Promise<Uint8Array> => { reads++; return readerOf(written.files)(name); };
    const err = await formatError(parseSog(withMeta((m) => { m['count'] = 200_000_000; }), reader));
    expect(err).toBeInstanceOf(SplatLimitError);
    expect(err.message).toMatch(/meta\.json's count declares 200,000,000 splats of SH degree 1: more than the [\d,]+ this GPU can draw/);
    expect(reads).toBe(0);
  });

  it('a large count within the limits is checked against the image headers before anything is decoded or allocated', async () => {
    const limits: LoadLimits = { maxSplats: [3e8, 3e8, 3e8, 3e8], maxBytes: 2 ** 40 };
    const err = await formatError(parseSog(withMeta((m) => { m['count'] = 200_000_000; }), readerOf(written.files), { limits }));
    expect(err.message).toMatch(/too small for meta\.json's count of 200000000 splats/);
  });

  it('an image whose header claims a huge size is refused before decoding', async () => {
    const forged = written.files.get('quats.webp')!.slice();
    // VP8L size bits (after the 0x2f signature at byte 20): width − 1 and height − 1 = 16382.
    const bits = (0x3ffe | (0x3ffe << 14) | ((forged[24]! & 0xf0) << 24)) >>> 0;
    for (let b = 0; b < 4; b++) forged[21 + b] = (bits >>> (8 * b)) & 0xff;
    expect(readWebpSize(forged)).toMatchObject({ width: 16383, height: 16383 });
    const files = new Map(written.files).set('quats.webp', forged);
    const err = await formatError(parseSog(written.metaJson, readerOf(files)));
    expect(err.message).toMatch(/'quats\.webp' is 16383×16383 = 268402689 pixels, far more than meta\.json's count of 9080 splats needs/);
  });

  it('a zip entry whose stated size could not come from its compressed size', async () => {
    const deflated = bundleSog(written, { deflate: true }).slice();
    const view = new DataView(deflated.buffer);
    // Central directory headers (PK\x01\x02): uncompressed size at +24, name length at +28, name at +46.
    let patched = 0;
    for (let at = 0; at + 46 < deflated.length; at++) {
      if (view.getUint32(at, true) !== 0x02014b50) continue;
      const name = new TextDecoder().decode(deflated.subarray(at + 46, at + 46 + view.getUint16(at + 28, true)));
      if (name === 'quats.webp') { view.setUint32(at + 24, 0xfffffff0, true); patched++; }
    }
    expect(patched).toBe(1);
    const err = await formatError(parseSogBundle(deflated));
    expect(err.message).toMatch(/entry 'quats\.webp' claims 4294967280 bytes from \d+ compressed/);
  });

  it('an unsupported version', async () => {
    const err = await formatError(parseSog(withMeta((m) => { m['version'] = 3; }), readerOf(written.files)));
    expect(err.message).toMatch(/Unsupported SOG version 3/);
  });

  it('missing or malformed fields', async () => {
    const cases: [(m: Record<string, unknown>) => void, RegExp][] = [
      [(m) => { delete (m['means'] as Record<string, unknown>)['mins']; }, /meta\.json has no means\.mins/],
      [(m) => { (m['means'] as Record<string, unknown>)['maxs'] = [1, 2]; }, /means\.maxs must be an array of 3 finite numbers/],
      [(m) => { delete m['quats']; }, /meta\.json has no quats/],
      [(m) => { (m['scales'] as Record<string, unknown>)['codebook'] = 'x'; }, /scales\.codebook must be an array of 1 to 256 finite numbers/],
      [(m) => { (m['sh0'] as Record<string, unknown>)['files'] = []; }, /sh0\.files must list one file name/],
      [(m) => { (m['shN'] as Record<string, unknown>)['bands'] = 5; }, /shN\.bands must be 1, 2 or 3/],
      // An array of the right length: the element that is wrong is named.
      [(m) => { (m['scales'] as { codebook: unknown[] }).codebook[235] = true; }, /scales\.codebook must be an array of 1 to 256 finite numbers, found an array of 256 whose element 235 is true$/],
      [(m) => { (m['sh0'] as { codebook: unknown[] }).codebook[4] = '-0.88'; }, /sh0\.codebook .* whose element 4 is "-0\.88"$/],
      [(m) => { (m['means'] as { files: unknown[] }).files[1] = ''; }, /means\.files must list 2 file names, found an array of 2 whose element 1 is ""$/],
      [(m) => { (m['quats'] as { files: unknown[] }).files[0] = null; }, /quats\.files must list one file name, found an array of 1 whose element 0 is null$/],
    ];
    for (const [edit, pattern] of cases) {
      const err = await formatError(parseSog(withMeta(edit), readerOf(written.files)));
      expect(err.message).toMatch(pattern);
    }
    // JSON's 1e999 reads as Infinity, which no range may hold.
    const infinite = written.metaJson.replace(/"mins":\[[^\],]*/, '"mins":[1e999');
    expect((await formatError(parseSog(infinite, readerOf(written.files)))).message)
      .toMatch(/means\.mins must be an array of 3 finite numbers, found an array of 3 whose element 0 is Infinity$/);
  });

  it('a short codebook that the image indexes past', async () => {
    const meta = withMeta((m) => { (m['scales'] as { codebook: number[] }).codebook.length = 10; });
    const err = await formatError(parseSog(meta, readerOf(written.files)));
    expect(err.message).toMatch(/'scales\.webp' gives splat \d+ index \d+, past the end of the 10-entry scales codebook/);
  });

  it('labels past the palette, and quaternion modes out of range', async () => {
    const meta = withMeta((m) => { (m['shN'] as { count: number }).count = 10; });
    expect((await formatError(parseSog(meta, readerOf(written.files)))).message)
      .toMatch(/'shN_labels\.webp' gives splat 10 palette entry 10, but the palette has 10 entries/);

    const quats = await decodeWebp(written.files.get('quats.webp')!);
    const data = quats.data.slice();
    data[5 * 4 + 3] = 17;
    const files = new Map(written.files);
    files.set('quats.webp', await encodeLosslessWebp(data, quats.width, quats.height));
    expect((await formatError(parseSog(written.metaJson, readerOf(files)))).message)
      .toMatch(/'quats\.webp' gives splat 5 the alpha 17, but quaternion alphas are 252\.\.255/);
  });

  it('a file reader that fails', async () => {
    const failing = (): Promise<Uint8Array> => Promise.reject(new Error('HTTP 404'));
    const err = await formatError(parseSog(written.metaJson, failing));
    expect(err.message).toMatch(/Could not read 'means_l\.webp', which meta\.json names: HTTP 404/);
  });

  it('a centroids image of the wrong width', async () => {
    const files = new Map(written.files);
    files.set('shN_centroids.webp', await encodeLosslessWebp(new Uint8Array(100 * 4 * 4), 100, 4));
    const err = await formatError(parseSog(written.metaJson, readerOf(files)));
    expect(err.message).toMatch(/'shN_centroids\.webp' is 100 pixels wide, but an SH palette of 1 bands is 192/);
  });
});
