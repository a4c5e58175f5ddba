/**
 * The convert command, run as a user runs it (built with vite, then
 * `node bench-dist/convert.mjs ...`, no GPU): a PLY converted to PLY is the
 * same scene; --box and --in-view keep what the selection keeps in process;
 * the input's warnings go to standard error; what the output's format
 * cannot hold is named before writing and refused without --allow-loss
 * (an antialiased SPZ into .ply keeps its flag; into .splat it is refused);
 * a world is refused; a wrong extension, an empty selection, a path that
 * cannot be written and a missing input each fail with a message that says
 * so, writing nothing; a named pipe given as the input or the camera file,
 * and an image of a SOG input linked to /dev/zero, are refused at once by
 * name (a pipe was waited on for ever); on a full disk (a 3 MiB tmpfs) the
 * old output is left as it was.
 */
import { afterAll, expect, test } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSplatFile } from '../../src/io/parse-splat-file';
import { cameraFrame, selectSplats } from '../../src/app/session/splat-selection';
import type { CameraFile } from '../../src/app/camera/camera-file';
import { screenFilterFor } from '../../src/scene/anti-aliasing';
import { robustBounds } from '../../src/scene/splat-cloud';
import { scenePath } from '../shared-scenes';
import { expectSameCloud } from '../support/clouds';
import { realScene } from '../support/real-scenes';
import { concat, inriaPly } from '../support/splat-files';
import { writeSpz } from '../../src/io/writers/spz';
import { ANTIALIASED_FILTER } from '../../src/scene/anti-aliasing';
import { WORLD_NOT_SAVED } from '../../src/io/formats/save-losses';
import { useNodeTools } from '../support/node-tools';
import { writeSog } from '../support/sog-writer';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const WORK = mkdtempSync(join(tmpdir(), 'splatsort-convert-'));
const SMALL = 'inria_kacytran_iter7000_9k_sh3.ply';

/** The convert command (bench/vite.config.ts's convert.mjs), built for this file (a folder of its own: node-tools.ts says why). */
const CONVERT = join(useNodeTools('convert-command'), 'convert.mjs');

interface Run { status: number | null; stdout: string; stderr: string; line: Record<string, unknown> | null }

function convert(...args: string[]): Run {
  // A command that waits for ever (as it did on a named pipe) is a failure here, not a test that never ends.
  const { status, stdout, stderr } = spawnSync('node', [CONVERT, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  const last = stdout.trim().split('\n').pop() ?? '';
  return { status, stdout, stderr, line: last.startsWith('{') ? (JSON.parse(last) as Record<string, unknown>) : null };
}

test('--help names the formats it writes, the selections and --allow-loss', () => {
  const { status, stdout } = convert('--help');
  expect(status).toBe(0);
  expect(stdout).toMatch(/usage: npm run convert -- INPUT OUTPUT\(\.ply\|\.splat\|\.spz\|\.glb\)/);
  for (const text of ['.ply   INRIA PLY', '.splat .splat', '.spz   SPZ', '.glb   GLB', '--in-view CAMERA.json', '--box X,Y,Z,X,Y,Z', '--allow-loss  ']) expect(stdout).toContain(text);
});

test('a PLY converted to PLY is the same scene, and says so in its JSON line', async () => {
  const out = join(WORK, 'same.ply');
  const run = convert(scenePath(SMALL), out);
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  const bytes = readFileSync(out);
  expect(run.line).toEqual({ out, format: 'INRIA PLY', splats: 9080, of: 9080, bytes: bytes.length });
  expectSameCloud(await loadSplatFile(bytes, 'same.ply'), await realScene(SMALL));
});

test('--box keeps the splats the selection keeps in a box, here into an SPZ', async () => {
  const cloud = await realScene('playcanvas_biker_v4.spz');
  const { min, max } = robustBounds(cloud.positions, cloud.count, 0.25);
  const expected = selectSplats(cloud, { keep: 'box', box: { min, max } });
  const out = join(WORK, 'box.spz');
  const run = convert(scenePath('playcanvas_biker_v4.spz'), out, '--box', [...min, ...max].join(','));
  expect(run.status).toBe(0);
  expect(run.line).toMatchObject({ format: 'SPZ', splats: expected.count, of: cloud.count });
  expect(expected.count).toBeGreaterThan(1000);
  expect(expected.count).toBeLessThan(cloud.count);
  const again = await loadSplatFile(readFileSync(out), 'box.spz');
  expect(again.count).toBe(expected.count);
  for (let a = 0; a < 3; a++) expect(Math.abs(again.bounds.min[a]! - expected.bounds.min[a]!)).toBeLessThanOrEqual(1 / 4096);
});

test('--in-view keeps the splats that camera keeps in view, here into a .splat', async () => {
  const cloud = await realScene(SMALL);
  const { min, max } = robustBounds(cloud.positions, cloud.count);
  const middle = [0, 1, 2].map((a) => (min[a]! + max[a]!) / 2) as [number, number, number];
  const camera: CameraFile = {
    width: 320, height: 200, fovy_deg: 50, eye: middle, target: [middle[0], middle[1], middle[2] + 1], up: [0, -1, 0], background: [0, 0, 0], sh_degree: 3,
  };
  const cameraFile = join(WORK, 'camera.json');
  writeFileSync(cameraFile, JSON.stringify(camera));
  const expected = selectSplats(cloud, { keep: 'in-view', frame: cameraFrame(camera, screenFilterFor('auto', cloud.antiAliasing)) });
  expect(expected.count).toBeGreaterThan(100);
  expect(expected.count).toBeLessThan(cloud.count);
  const out = join(WORK, 'view.splat');
  const run = convert(scenePath(SMALL), out, '--in-view', cameraFile, '--allow-loss');
  expect(run.status).toBe(0);
  expect(run.stderr).toBe('convert: Saved as .splat, the scene would lose its view-dependent colour, SH bands 1 to 3: .splat keeps SH up to degree 0.\n');
  expect(run.line).toMatchObject({ format: '.splat', splats: expected.count, of: cloud.count, bytes: 32 * expected.count });
  const again = await loadSplatFile(readFileSync(out), 'view.splat');
  expect(Buffer.from(again.positions.buffer).equals(Buffer.from(expected.positions.buffer))).toBe(true);
});

test("the input's warnings go to standard error, as the render command prints them", () => {
  const withTail = join(WORK, 'tail.ply');
  writeFileSync(withTail, concat(readFileSync(scenePath(SMALL)), new Uint8Array(7)));
  const run = convert(withTail, join(WORK, 'tail.spz'));
  expect(run.status).toBe(0);
  expect(run.stderr).toMatch(/^convert: warning: The PLY file holds 7 bytes after the 9,080 splats/);
});

test.each([
  ['an output extension no writer has', ['OUT/scene.obj'], /^convert: '.*scene\.obj' ends in "\.obj": a scene can be saved as \.ply \.splat \.spz/],
  ['a box nothing is in', ['OUT/empty.ply', '--box', '1e6,1e6,1e6,2e6,2e6,2e6'], /^convert: Nothing to save: none of the scene's 9,080 splats is inside the box/],
  ['a folder that is not there', ['OUT/no/such/folder/x.ply'], /^convert: could not write '.*x\.ply': ENOENT/],
  ['a malformed box', ['OUT/x.ply', '--box', '1,2,3'], /^convert: a box is six numbers/],
  ['both selections', ['OUT/x.ply', '--box', '0,0,0,1,1,1', '--in-view', 'c.json'], /^convert: --in-view and --box each choose the splats/],
])('fails on %s, saying so and writing nothing', (_, args, message) => {
  const [output, ...flags] = args.map((a) => a.replace('OUT', WORK)) as [string, ...string[]];
  const run = convert(scenePath(SMALL), output, ...flags);
  expect(run.status).toBe(1);
  expect(run.stderr).toMatch(message);
  expect(run.stdout).toBe('');
  expect(existsSync(output)).toBe(false);
});

test('fails on a missing input or a missing output, saying so', () => {
  const missing = convert(join(WORK, 'nothing-here.ply'), join(WORK, 'x.ply'));
  expect(missing.status).toBe(1);
  expect(missing.stderr).toMatch(/^convert: There is no file at '.*nothing-here\.ply'/);
  const usage = convert(scenePath(SMALL));
  expect(usage.status).toBe(1);
  expect(usage.stderr).toMatch(/^convert: usage: npm run convert --/);
});

test('a named pipe given as the input or the camera file, and a SOG input\'s image linked to /dev/zero, are refused at once by name, writing nothing', async () => {
  const pipe = join(WORK, 'pipe.ply');
  execFileSync('mkfifo', [pipe]);
  const input = convert(pipe, join(WORK, 'from-pipe.ply'));
  expect(input.status).toBe(1);
  expect(input.stderr).toMatch(/^convert: '.*pipe\.ply' is a named pipe \(FIFO\), not a scene file: only regular files are read\n$/);
  const camera = convert(scenePath(SMALL), join(WORK, 'from-pipe.ply'), '--in-view', pipe);
  expect(camera.status).toBe(1);
  expect(camera.stderr).toMatch(/^convert: '.*pipe\.ply' is a named pipe \(FIFO\), not a file of text/);

  const sog = await writeSog((await loadSplatFile(inriaPly({ count: 50, seed: 3 }), 'few.ply')));
  const folder = join(WORK, 'zero-sog');
  mkdirSync(folder);
  writeFileSync(join(folder, 'meta.json'), sog.metaJson);
  for (const [name, bytes] of sog.files) {
    if (name === 'scales.webp') symlinkSync('/dev/zero', join(folder, name));
    else writeFileSync(join(folder, name), bytes);
  }
  const zero = convert(join(folder, 'meta.json'), join(WORK, 'from-zero.ply'));
  expect(zero.status).toBe(1);
  expect(zero.stderr).toMatch(/^convert: .*'.*zero-sog\/scales\.webp' is a link to '\/dev\/zero', a character device, not a file/);
  expect(existsSync(join(WORK, 'from-pipe.ply')) || existsSync(join(WORK, 'from-zero.ply'))).toBe(false);
});

test('an antialiased SPZ converted to .ply keeps its flag; into .splat, which cannot record it, it is refused by name unless --allow-loss', async () => {
  const cloud = await loadSplatFile(inriaPly({ count: 200, shDegree: 1, seed: 5 }), 'aa.ply');
  const input = join(WORK, 'aa.spz');
  writeFileSync(input, writeSpz({ ...cloud, antiAliasing: { filter: { ...ANTIALIASED_FILTER }, source: 'test' } }));
  const ply = convert(input, join(WORK, 'aa.ply'));
  expect(ply.stderr).toBe('');
  expect(ply.status).toBe(0);
  expect((await loadSplatFile(readFileSync(join(WORK, 'aa.ply')), 'aa.ply')).antiAliasing?.filter).toEqual(ANTIALIASED_FILTER);

  const splat = join(WORK, 'aa.splat');
  writeFileSync(splat, 'the old file');
  const refused = convert(input, splat);
  expect(refused.status).toBe(1);
  expect(refused.stdout).toBe('');
  expect(refused.stderr).toMatch(/^convert: Saved as \.splat, the scene would lose its view-dependent colour, SH band 1: \.splat keeps SH up to degree 0; and its anti-aliasing \(0\.3 px² \+ opacity compensation, from SPZ flag "antialiased"\)/);
  expect(refused.stderr).toMatch(/\nconvert: nothing written to '.*aa\.splat': add --allow-loss/);
  expect(readFileSync(splat, 'utf8')).toBe('the old file');
  const allowed = convert(input, splat, '--allow-loss');
  expect(allowed.status).toBe(0);
  expect(allowed.stderr).toMatch(/^convert: Saved as \.splat, the scene would lose its view-dependent colour/);
  expect((await loadSplatFile(readFileSync(splat), 'aa.splat')).count).toBe(200);
});

test("a world's index is refused, saying why", () => {
  const run = convert(join(WORK, 'world', 'lod-meta.json'), join(WORK, 'world.ply'));
  expect(run.status).toBe(1);
  expect(run.stderr).toBe(`convert: ${WORLD_NOT_SAVED}\n`);
});

/** A 3 MiB tmpfs, where mounting one is allowed (root on Linux); null elsewhere. */
const SMALL_DISK = join(WORK, 'small-disk');
const mounted = (() => {
  mkdirSync(SMALL_DISK);
  return spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=3m', 'tmpfs', SMALL_DISK]).status === 0;
})();
afterAll(() => {
  if (mounted) spawnSync('umount', [SMALL_DISK]);
});

test.runIf(mounted)('on a full disk (a 3 MiB tmpfs) the old output is left whole and no partial file stays', () => {
  const out = join(SMALL_DISK, 'scene.ply');
  const old = readFileSync(scenePath(SMALL));
  writeFileSync(out, old); // 2.25 MB of the 3 MiB: no room for a second copy
  const run = convert(scenePath(SMALL), out);
  expect(run.status).toBe(1);
  expect(run.stderr).toMatch(/^convert: could not write '.*scene\.ply': ENOSPC.*; '.*scene\.ply' is as it was\n$/);
  expect(readFileSync(out).equals(old)).toBe(true);
  expect(readdirSync(SMALL_DISK)).toEqual(['scene.ply']);
});
