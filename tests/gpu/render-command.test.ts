/**
 * The headless render command, run for real as a user runs it (built with
 * vite, then `node bench-dist/render.mjs ...` on SwiftShader): the same
 * scene and camera give byte-identical PNGs, the picture is not blank, the
 * default scene matches a golden image within a stated tolerance, and
 * without a camera file the scene is framed as the viewer frames it;
 * --renderer auto times both renderers and says which it drew with;
 * --order per-pixel draws with tiles and says the order it drew. Each
 * run costs seconds of pipeline compilation on SwiftShader, so the runs
 * are few and shared: eleven in all (and one --help, and refusals that
 * stop before a device is made). It reads what the
 * viewer reads and says what the viewer says: a SOG meta.json with its
 * images, a PLY's bytes past its data as a warning, a folder as a folder.
 * A world whose chunks fail names each on standard error, and fails
 * where they leave nothing drawn (it once wrote a blank picture and
 * exited 0).
 */
import { expect, test } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodePng } from '../../cli/png';
import { scenePath } from '../shared-scenes';
import { drawnFraction, drawnRowSpan } from '../support/test-view';
import { parseSplatPly } from '../../src/io/ply/parse';
import { thinnedScene } from '../support/thinned-scene';
import { writeSog } from '../support/sog-writer';
import { COMMAND_TIMEOUT_MS, useNodeTools } from '../support/node-tools';
import { writeDiskWorld } from '../support/disk-world';
import { ANTIALIASED_FILTER, describeScreenFilter } from '../../src/scene/anti-aliasing';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const WORK = mkdtempSync(join(tmpdir(), 'splatsort-render-'));
const DEFAULT_SCENE = join(ROOT, 'data/default-scene.ply');
const GOLDEN = join(ROOT, 'tests/golden/default-scene-64x48.png');
/** Golden tolerance: no channel off by more than 8/255, and 0.5/255 on average. */
const MAX_CHANNEL_DIFF = 8;
const MEAN_CHANNEL_DIFF = 0.5;

const DEFAULT_CAMERA = { width: 64, height: 48, fovy_deg: 50, eye: [2.2, 1.0, 3.2], target: [0, 0, 0], up: [0, 1, 0], background: [0.1, 0.1, 0.12], sh_degree: 3 };

/** The render command (bench/vite.config.ts's render.mjs), built for this file (a folder of its own: node-tools.ts says why). */
const TOOLS = useNodeTools('render-command');
const RENDER = join(TOOLS, 'render.mjs');

function render(scene: string, camera: object, name: string, flags: string[] = []): { png: Buffer; timings: Record<string, unknown> } {
  const out = join(WORK, `${name}.png`);
  const stdout = execFileSync('node', [RENDER, '--scene', scene, '--camera', cameraFile(name, camera), '--out', out, ...flags], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: COMMAND_TIMEOUT_MS });
  const line = stdout.trim().split('\n').pop()!;
  return { png: readFileSync(out), timings: JSON.parse(line) as Record<string, unknown> };
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
  expect(drawnFraction(decodePng(a.png), DEFAULT_CAMERA.background)).toBeGreaterThan(0.05);
  for (const pass of ['projectMs', 'sortMs', 'renderMs']) expect(a.timings[pass]).toBeTypeOf('number');
  // Quads unless asked: the same picture every run.
  expect(a.timings).toMatchObject({ renderer: 'quads', order: 'centre-depth' });
  expect(a.timings.auto).toBeUndefined();
});

test('--renderer auto times both renderers and draws with the faster, saying which and why; a renderer it does not know is refused', () => {
  const { png, timings: line } = render(DEFAULT_SCENE, DEFAULT_CAMERA, 'renderer-auto', ['--renderer', 'auto']);
  const auto = line.auto as { choice: string; quadsMs: number; tilesMs: number };
  expect(auto.choice).toBe('chosen');
  expect(auto.quadsMs).toBeGreaterThan(0);
  expect(auto.tilesMs).toBeGreaterThan(0);
  expect(line.renderer).toBe(auto.tilesMs < auto.quadsMs ? 'tiles' : 'quads');
  expect(drawnFraction(decodePng(png), DEFAULT_CAMERA.background)).toBeGreaterThan(0.05);

  const bad = run(['--scene', DEFAULT_SCENE, '--out', join(WORK, 'bad-renderer.png'), '--renderer', 'raytrace']);
  expect(bad.status).toBe(1);
  expect(bad.stderr).toContain('render: --renderer must be one of auto, quads, tiles, got raytrace');
});

// The spz scene rendered twice, by two runs of the command: the second from the camera the first
// printed, as a named view, to the same bytes (a real scene's determinism across runs). How every format is framed
// is the Viewer's (tests/gpu/viewer.test.ts): the command only asks it.
test('without a camera file, frames the scene as the viewer opens it, and prints that camera, which as a named view (--views, --view) renders the same PNG again', () => {
  const name = 'playcanvas_biker_v4.spz';
  const out = join(WORK, `${name}.framed.png`);
  const stdout = execFileSync('node', [RENDER, '--scene', scenePath(name), '--out', out, '--width', '64', '--height', '40'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: COMMAND_TIMEOUT_MS });
  const line = JSON.parse(stdout.trim().split('\n').pop()!) as { camera: { width: number; height: number; eye: number[]; target: number[]; up: number[]; fovy_deg: number; background: number[] } };
  expect(line.camera).toMatchObject({ width: 64, height: 40, up: [0, -1, 0] });
  const png = readFileSync(out);
  expect(decodePng(png)).toMatchObject({ width: 64, height: 40 });
  // The biker is tall and thin: it fills most of the picture's height, and covers a fair part of it.
  expect(drawnFraction(decodePng(png), line.camera.background)).toBeGreaterThan(0.1);
  expect(drawnRowSpan(decodePng(png), line.camera.background)).toBeGreaterThan(0.6 * 40);
  // That camera, as a named view of a views file (a pose: the size and look are the command's), renders the same bytes.
  const views = join(WORK, 'biker-views.json');
  const { eye, target, up, fovy_deg } = line.camera;
  writeFileSync(views, JSON.stringify({ splatsort_views: 1, views: [{ name: 'Other', eye: [0, 0, 9], target: [0, 0, 0], up: [0, 1, 0], fovy_deg: 30 }, { name: 'Framed', eye, target, up, fovy_deg }] }));
  const again = join(WORK, `${name}.again.png`);
  const rendered = run(['--scene', scenePath(name), '--out', again, '--width', '64', '--height', '40', '--views', views, '--view', 'Framed']);
  expect(rendered.status, rendered.stderr).toBe(0);
  expect(readFileSync(again).equals(png)).toBe(true);
});

test('--views refuses a view its file does not hold, naming those it holds, and a camera named twice', () => {
  const views = join(WORK, 'views.json');
  const pose = { eye: DEFAULT_CAMERA.eye, target: DEFAULT_CAMERA.target, up: DEFAULT_CAMERA.up, fovy_deg: DEFAULT_CAMERA.fovy_deg };
  writeFileSync(views, JSON.stringify({ splatsort_views: 1, views: [{ name: 'Above', eye: [0, 5, 0.1], target: [0, 0, 0], up: [0, 1, 0], fovy_deg: 40 }, { name: 'Front door', ...pose }] }));
  const unknown = run(['--scene', DEFAULT_SCENE, '--out', join(WORK, 'unknown-view.png'), '--views', views, '--view', 'Back']);
  expect(unknown.status).toBe(1);
  expect(unknown.stderr).toContain(`render: --views ${views}: no view is named "Back": there are "Above", "Front door"`);
  const both = run(['--scene', DEFAULT_SCENE, '--out', join(WORK, 'both.png'), '--views', views, '--camera', cameraFile('both', DEFAULT_CAMERA)]);
  expect(both.stderr).toContain('render: --camera and --views both name the camera: ask for one');
  const lone = run(['--scene', DEFAULT_SCENE, '--out', join(WORK, 'lone.png'), '--view', 'Above']);
  expect(lone.stderr).toContain('render: --view names a view of a views file: give the file with --views');
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
  expect(drawnFraction(reference, DEFAULT_CAMERA.background)).toBeGreaterThan(0.05);
  expect(line.psnrDb).toBeTypeOf('number');
  expect(line.psnrDb).toBeGreaterThan(40);
  // The default scene records no anti-aliasing: the classic filter.
  expect(line.screenFilter).toBe('0.3 px²');
});

test('--difference: nothing differs in the exact order (with --anti-aliasing on too); an order sorted for another camera shows where it is wrong', () => {
  // Anti-aliasing forced on, as the flag says (its picture against the reference: tests/gpu/anti-aliasing.test.ts).
  const exact = render(DEFAULT_SCENE, DEFAULT_CAMERA, 'difference-exact', ['--difference', '--anti-aliasing', 'on']).timings;
  expect(exact).toMatchObject({ differingPixels: 0, largestDifference: 0, screenFilter: '0.3 px² + opacity compensation' });
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

test('--order per-pixel draws with tiles whatever --renderer says and names the order it drew; an order it does not know, and two views at once, are refused', () => {
  const bad = run(['--scene', DEFAULT_SCENE, '--out', join(WORK, 'bad-order.png'), '--order', 'per-splat']);
  expect(bad.status).toBe(1);
  expect(bad.stderr).toContain('render: --order must be one of centre-depth, per-pixel, got per-splat');
  const both = run(['--scene', DEFAULT_SCENE, '--out', join(WORK, 'two-views.png'), '--difference', '--pixel-order']);
  expect(both.status).toBe(1);
  expect(both.stderr).toContain('render: --pixel-order and --difference are two views');

  const out = join(WORK, 'per-pixel.png');
  const perPixel = run(['--scene', DEFAULT_SCENE, '--camera', cameraFile('per-pixel', DEFAULT_CAMERA), '--out', out, '--renderer', 'quads', '--order', 'per-pixel']);
  expect(perPixel.status).toBe(0);
  const line = JSON.parse(perPixel.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
  expect(line.renderer).toBe('tiles');
  const png = decodePng(readFileSync(out));
  expect(png).toMatchObject({ width: 64, height: 48 });
  expect(drawnFraction(png, DEFAULT_CAMERA.background)).toBeGreaterThan(0.05);
  // The order the frame was blended in, as the tile renderer reports it.
  expect(perPixel.stderr).not.toContain('render: warning');
  expect(line.order).toBe('per-pixel');
});

function cameraFile(name: string, camera: object): string {
  const path = join(WORK, `${name}.json`);
  writeFileSync(path, JSON.stringify(camera));
  return path;
}

/** The command as a user runs it, its exit status and both streams (a failure is a result here, not a throw). */
function run(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('node', [RENDER, ...args], { cwd: ROOT, encoding: 'utf8', timeout: COMMAND_TIMEOUT_MS });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('reads what the viewer reads and says what it says: --help, a folder, a SOG meta.json with its images, a PLY with bytes past its data', async () => {
  const help = run(['--help']);
  expect(help.status).toBe(0);
  for (const option of ['--scene', '--camera', '--out', '--width', '--renderer', '--order', '--reference', '--difference', '--pixel-order', '--views', '--view']) expect(help.stdout).toContain(option);

  const folder = run(['--scene', WORK, '--out', join(WORK, 'folder.png')]);
  expect(folder.status).toBe(1);
  expect(folder.stderr).toContain(`'${WORK}' is a folder, not a scene file`);
  expect(folder.stderr).not.toContain('EISDIR');

  const small = thinnedScene(parseSplatPly(new Uint8Array(readFileSync(DEFAULT_SCENE))), 16);
  const sog = await writeSog(small);
  const sogFolder = join(WORK, 'sog');
  mkdirSync(sogFolder);
  writeFileSync(join(sogFolder, 'meta.json'), sog.metaJson);
  for (const [name, bytes] of sog.files) writeFileSync(join(sogFolder, name), bytes);
  const sogRun = run(['--scene', join(sogFolder, 'meta.json'), '--out', join(WORK, 'sog.png'), '--width', '64', '--height', '48']);
  expect(sogRun.stderr).not.toContain('render:');
  expect(sogRun.status).toBe(0);
  const sogLine = JSON.parse(sogRun.stdout.trim().split('\n').pop()!) as { splats: number; camera: { background: number[] } };
  expect(sogLine.splats).toBe(small.count);
  expect(drawnFraction(decodePng(readFileSync(join(WORK, 'sog.png'))), sogLine.camera.background)).toBeGreaterThan(0.05);

  const padded = join(WORK, 'padded.ply');
  writeFileSync(padded, Buffer.concat([readFileSync(DEFAULT_SCENE), Buffer.alloc(100)]));
  const paddedRun = run(['--scene', padded, '--out', join(WORK, 'padded.png'), '--width', '64', '--height', '48']);
  expect(paddedRun.status).toBe(0);
  expect(paddedRun.stderr).toMatch(/^render: warning: .*100 bytes/m);
});

test('a world\'s chunks that fail are named on standard error; where they leave nothing drawn the command fails, writing no picture', async () => {
  const small = thinnedScene(parseSplatPly(new Uint8Array(readFileSync(DEFAULT_SCENE))), 32);
  const index = await writeDiskWorld(join(WORK, 'world'), [small, thinnedScene(small, 2)]);
  // One chunk's meta.json a link to /dev/zero: the other draws, and the failure is a warning.
  rmSync(join(WORK, 'world', '0_1', 'meta.json'));
  symlinkSync('/dev/zero', join(WORK, 'world', '0_1', 'meta.json'));
  const some = run(['--scene', index, '--out', join(WORK, 'some.png'), '--width', '64', '--height', '48']);
  expect(some.status, some.stderr).toBe(0);
  expect(some.stderr).toMatch(/^render: warning: chunk 0_1\/meta\.json: '.*0_1\/meta\.json' is a link to '\/dev\/zero', a character device, not a file/m);
  const line = JSON.parse(some.stdout.trim().split('\n').pop()!) as { world: { drawn: number; chunksFailed: number; decodedIn: string }; screenFilter: string };
  // Decoded in the command's worker threads, which name the failure as the command's own thread did.
  expect(line.world).toMatchObject({ drawn: small.count, chunksFailed: 1, decodedIn: 'workers' });
  // A world is drawn with the anti-aliased filter where the setting is auto (WORLD_ANTI_ALIASING), a scene file with the classic one.
  expect(line.screenFilter).toBe(describeScreenFilter(ANTIALIASED_FILTER));

  // And the other missing: nothing drawn, both named, exit 1, no picture.
  rmSync(join(WORK, 'world', '0_0', 'means_l.webp'));
  const none = run(['--scene', index, '--out', join(WORK, 'none.png'), '--width', '64', '--height', '48']);
  expect(none.status).toBe(1);
  expect(none.stderr).toMatch(/^render: nothing of lod-meta\.json was drawn: 2 of its chunks failed$/m);
  expect(none.stderr).toMatch(/^ {2}chunk 0_0\/meta\.json: .*means_l\.webp/m);
  expect(none.stderr).toMatch(/^ {2}chunk 0_1\/meta\.json: .*\/dev\/zero/m);
  expect(existsSync(join(WORK, 'none.png'))).toBe(false);
});

test("the world benchmark decodes in worker threads that outlive its sessions: the path (its choice in a worker thread too), the PSNR views and the budget sweep each draw the world's chunks", async () => {
  const small = thinnedScene(parseSplatPly(new Uint8Array(readFileSync(DEFAULT_SCENE))), 32);
  const index = await writeDiskWorld(join(WORK, 'bench-world'), [small, thinnedScene(small, 2)]);
  // Each session the benchmark closes before the next once ended the threads the others read through:
  // the sweep's full detail then waited for chunks that never came ('did not all fit on the GPU').
  const out = execFileSync('node', [join(TOOLS, 'bench-world.mjs'), '--index', index, '--frames', '2', '--width', '64', '--height', '48', '--psnr-views', '1', '--thresholds', '1',
    '--budgets', String(Math.ceil(small.count * 0.6)), '--policies', 'threshold', '--down-views', '1', '--full-limit', '1000000', '--supersample', '2', '--anti-aliased',
    // What is timed is not checked here: one timed frame each, without the clock hold (seconds of load a frame on a software adapter).
    '--timed-frames', '1', '--hold-ms', '0', '--upload-mib', '1'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: COMMAND_TIMEOUT_MS });
  const lines = out.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
  // Its path chooses in a worker thread too, as the page does, and draws what the chunks hold.
  const path = lines.find((l) => l.kind === 'path') as { drawn: { max: number }; recordParts: Record<string, { p50: number }> } | undefined;
  expect(path).toMatchObject({ decodedIn: 'workers', choiceIn: 'worker', dawnPolling: 'timer', uploadBytesAFrame: 2 ** 20 });
  expect(path!.drawn.max).toBeGreaterThan(0);
  expect(Object.keys(path!.recordParts).sort()).toEqual(['encode', 'pages', 'submit', 'update']);
  expect(lines.find((l) => l.kind === 'psnr')?.psnr).not.toBeNull();
  const budgeted = lines.filter((l) => l.kind === 'budget');
  expect(budgeted.length).toBe(2);
  for (const line of budgeted) expect(line.psnr, JSON.stringify(line)).not.toBeNull();
  // Each picture beside the full detail moved by its threshold's pixels, and what the candidate budget cut of either (nothing here).
  for (const line of budgeted) expect(line, JSON.stringify(line)).toMatchObject({ shiftFloor: expect.anything(), cut: null });
  expect(budgeted[0]!.fullCut).toBeNull();
  // And against the full detail drawn at twice the width and height, averaged down: the full detail's own error too, which is not nothing.
  for (const line of budgeted) expect(line.psnrSupersampled, JSON.stringify(line)).toEqual(expect.any(Number));
  expect(budgeted[0]).toMatchObject({ fullSupersampled: expect.any(Number), supersampledCut: null, fullSupersampledAntiAliased: expect.any(Number) });
  // And each drawn again with the anti-aliased screen filter: another picture, so another figure.
  for (const line of budgeted) expect(line.psnrSupersampledAntiAliased, JSON.stringify(line)).toEqual(expect.any(Number));
  expect(budgeted[0]!.fullSupersampledAntiAliased).not.toBe(budgeted[0]!.fullSupersampled);
});
