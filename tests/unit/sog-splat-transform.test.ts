/**
 * SOG cross-checked with @playcanvas/splat-transform: the viewer reads the
 * .sog splat-transform writes from the 9k INRIA scene within SOG's
 * quantisation, and splat-transform reads what the test writer writes as
 * the viewer does.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SPLAT_TRANSFORM_CLI } from '../../bench/splat-transform';
import { parseSplatPly } from '../../src/io/ply/parse';
import { parseSogBundle } from '../../src/io/sog/bundle';
import { parseSog } from '../../src/io/sog/decode';
import { shCoefficients, type SplatCloud } from '../../src/scene/splat-cloud';
import { scenePath } from '../shared-scenes';
import { sameValues } from '../support/clouds';
import { quatMismatch, readerOf, rotationBound } from '../support/sog-checks';
import { bundleSog, writeSog } from '../support/sog-writer';

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
