/**
 * The headless render command, run for real as a user runs it (built with
 * vite, then `node bench-dist/render.mjs ...` on SwiftShader): the same
 * scene and camera give byte-identical PNGs, the picture is not blank, the
 * default scene matches a golden image within a stated tolerance, and
 * without a camera file every format is framed as the viewer frames it.
 */
import { beforeAll, expect, test } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodePng } from '../../cli/png';
import { scenePath } from '../shared-scenes';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const WORK = mkdtempSync(join(tmpdir(), 'splatsort-render-'));
const DEFAULT_SCENE = join(ROOT, 'data/default-scene.ply');
const GOLDEN = join(ROOT, 'tests/golden/default-scene-64x48.png');
/** Golden tolerance: no channel off by more than 8/255, and 0.5/255 on average. */
const MAX_CHANNEL_DIFF = 8;
const MEAN_CHANNEL_DIFF = 0.5;

const DEFAULT_CAMERA = { width: 64, height: 48, fovy_deg: 50, eye: [2.2, 1.0, 3.2], target: [0, 0, 0], up: [0, 1, 0], background: [0.1, 0.1, 0.12], sh_degree: 3 };

beforeAll(() => {
  execFileSync('npx', ['vite', 'build', '--config', 'bench/vite.config.ts', '--logLevel', 'error'], { cwd: ROOT, stdio: 'pipe' });
});

function render(scene: string, camera: object, name: string, flags: string[] = []): { png: Buffer; timings: Record<string, unknown> } {
  const cameraFile = join(WORK, `${name}.json`);
  writeFileSync(cameraFile, JSON.stringify(camera));
  const out = join(WORK, `${name}.png`);
  const stdout = execFileSync('node', ['bench-dist/render.mjs', '--scene', scene, '--camera', cameraFile, '--out', out, ...flags], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const line = stdout.trim().split('\n').pop()!;
  return { png: readFileSync(out), timings: JSON.parse(line) as Record<string, unknown> };
}

function coverage(png: Buffer, background: number[]): number {
  const { rgba, width, height } = decodePng(png);
  let drawn = 0;
  for (let i = 0; i < width * height; i++) {
    const d = [0, 1, 2].reduce((s, c) => s + Math.abs(rgba[4 * i + c]! - background[c]! * 255), 0);
    if (d > 12) drawn++;
  }
  return drawn / (width * height);
}

/**
 * The default scene at DEFAULT_CAMERA, rendered by two runs of the command,
 * the second with --reference (which must not change the GPU picture).
 * Shared by the tests below that look at that picture: each run costs
 * seconds of pipeline creation on SwiftShader.
 */
let defaultRuns: { plain: ReturnType<typeof render>; withReference: ReturnType<typeof render> } | undefined;
function defaultScene(): NonNullable<typeof defaultRuns> {
  return (defaultRuns ??= {
    plain: render(DEFAULT_SCENE, DEFAULT_CAMERA, 'default'),
    withReference: render(DEFAULT_SCENE, DEFAULT_CAMERA, 'with-reference', ['--reference']),
  });
}

test('renders the default scene twice to identical PNGs, not blank, with per-pass timings', () => {
  const { plain: a, withReference: b } = defaultScene();
  expect(a.png.equals(b.png)).toBe(true);
  expect(decodePng(a.png)).toMatchObject({ width: 64, height: 48 });
  expect(coverage(a.png, DEFAULT_CAMERA.background)).toBeGreaterThan(0.05);
  for (const pass of ['projectMs', 'sortMs', 'renderMs']) expect(a.timings[pass]).toBeTypeOf('number');
});

// Each scene is rendered twice here, by two runs of the command: the second from the camera the
// first printed, to the same bytes (the real scenes' determinism across runs is checked here too).
test('without a camera file, frames any format as the viewer opens it, and prints that camera, which renders the same PNG again', () => {
  for (const name of ['playcanvas_biker_v4.spz', 'playcanvas_biker.compressed.ply', 'inria_kacytran_iter7000_9k_sh3.ply']) {
    const out = join(WORK, `${name}.framed.png`);
    const stdout = execFileSync('node', ['bench-dist/render.mjs', '--scene', scenePath(name), '--out', out, '--width', '64', '--height', '40'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const line = JSON.parse(stdout.trim().split('\n').pop()!) as { camera: { width: number; height: number; up: number[]; background: number[] } };
    expect(line.camera).toMatchObject({ width: 64, height: 40, up: [0, -1, 0] });
    const png = readFileSync(out);
    expect(decodePng(png)).toMatchObject({ width: 64, height: 40 });
    // The scene fills the picture's height (the biker is tall and thin), and covers a fair part of it:
    // not a grey blur, not a dot.
    expect(coverage(png, line.camera.background), name).toBeGreaterThan(0.1);
    const { rgba } = decodePng(png);
    const rows = Array.from({ length: 40 }, (_, y) => Array.from({ length: 64 }, (_, x) => [0, 1, 2].reduce((d, c) => d + Math.abs(rgba[4 * (y * 64 + x) + c]! - line.camera.background[c]! * 255), 0)).some((d) => d > 12));
    expect(rows.lastIndexOf(true) - rows.indexOf(true) + 1, name).toBeGreaterThan(0.6 * 40);
    // The printed camera gives the same picture back.
    expect(render(scenePath(name), line.camera, `${name}.again`).png.equals(png)).toBe(true);
  }
});

test(`the default scene matches the golden image (max ${MAX_CHANNEL_DIFF}/255, mean ${MEAN_CHANNEL_DIFF}/255 per channel)`, () => {
  const got = decodePng(defaultScene().plain.png);
  const want = decodePng(readFileSync(GOLDEN));
  expect([got.width, got.height]).toEqual([want.width, want.height]);
  let max = 0;
  let sum = 0;
  for (let i = 0; i < got.rgba.length; i++) {
    if (i % 4 === 3) continue;
    const d = Math.abs(got.rgba[i]! - want.rgba[i]!);
    max = Math.max(max, d);
    sum += d;
  }
  expect(max).toBeLessThanOrEqual(MAX_CHANNEL_DIFF);
  expect(sum / ((got.rgba.length / 4) * 3)).toBeLessThanOrEqual(MEAN_CHANNEL_DIFF);
});

test('--reference writes the reference rasterizer\'s picture beside the GPU one and prints their PSNR', () => {
  const { timings: line } = defaultScene().withReference;
  const referencePath = join(WORK, 'with-reference.reference.png');
  expect(line.reference).toBe(referencePath);
  const reference = decodePng(readFileSync(referencePath));
  expect(reference).toMatchObject({ width: 64, height: 48 });
  expect(coverage(readFileSync(referencePath), DEFAULT_CAMERA.background)).toBeGreaterThan(0.05);
  expect(line.psnrDb).toBeTypeOf('number');
  expect(line.psnrDb).toBeGreaterThan(40);
  // The default scene records no anti-aliasing: the classic filter.
  expect(line.screenFilter).toBe('0.3 px²');
  // Forced on, both pictures take the anti-aliased filter, and still agree.
  const on = render(DEFAULT_SCENE, DEFAULT_CAMERA, 'anti-aliased', ['--reference', '--anti-aliasing', 'on']).timings;
  expect(on.screenFilter).toBe('0.3 px² + opacity compensation');
  expect(on.psnrDb).toBeGreaterThan(40);
});

test('--difference: nothing differs in the exact order; an order sorted for another camera shows where it is wrong', () => {
  const exact = render(DEFAULT_SCENE, DEFAULT_CAMERA, 'difference-exact', ['--difference']).timings;
  expect(exact).toMatchObject({ differingPixels: 0, largestDifference: 0 });
  const otherCamera = join(WORK, 'difference-other.json');
  writeFileSync(otherCamera, JSON.stringify({ ...DEFAULT_CAMERA, eye: [-3.2, 1.0, -2.2] }));
  const stale = render(DEFAULT_SCENE, DEFAULT_CAMERA, 'difference-stale', ['--difference', '--order-camera', otherCamera]);
  expect(stale.timings.differingPixels).toBeGreaterThan(0);
  expect(stale.timings.largestDifference).toBeGreaterThan(1);
  // The heat map is coloured exactly where pixels differ; grey elsewhere.
  const { rgba } = decodePng(stale.png);
  let coloured = 0;
  for (let i = 0; i < rgba.length; i += 4) if (rgba[i] !== rgba[i + 1] || rgba[i + 1] !== rgba[i + 2]) coloured++;
  expect(coloured).toBe(stale.timings.differingPixels);
});
