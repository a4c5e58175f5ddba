/**
 * The renderer choice in the page (Chromium on SwiftShader): a link naming
 * the tile renderer draws with it, its picture (the Viewer's capture, drawn
 * with the renderer on screen) is the quads' within the float target's
 * tolerance, and "auto" times both and keeps the faster, the panel's
 * "drawing with" row saying which and the two times. A link asking for the
 * per-pixel order draws with tiles (its renderer quads notwithstanding),
 * and the panel and the shared link keep that order. A file whose splats
 * cover the window many times over costs a frame the candidate budget
 * (src/render/tiles/tile-pairs.ts): the nearest splats are drawn, the
 * viewer says how many it left out and why the scene is slow, and the
 * page keeps answering.
 *
 * Every wait is on the page's own state (window.__splatsort) and gives up,
 * saying what it waited for, after tests/e2e/browser.ts's WAIT_TIMEOUT_MS.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { BROWSER_TEST_TIMEOUT_MS, useViewerPage } from './browser';
import { hostileCloud } from '../support/hostile-cloud';
import { writeSplatPly } from '../support/ply-writer';

const viewer = useViewerPage({ query: '?renderer=tiles' });
const state = () => viewer.tab.state();

/** The scene drawn again at the window's size by the renderer on screen, as RGBA rows. */
function capture(): Promise<number[]> {
  return viewer.page.evaluate(async () => Array.from((await window.__splatsortViewer!.capturePixels({ width: window.innerWidth, height: window.innerHeight })).rgba));
}

test('a link naming tiles draws with the tile renderer, the picture the quads draw', async () => {
  await viewer.tab.waitFor('the tile renderer to draw', "window.__splatsort.renderer.renderer === 'tiles'");
  expect((await state()).renderer.state).toBe('set');
  await viewer.tab.settledView();
  const tiles = await capture();
  await viewer.page.evaluate(() => window.__splatsortViewer!.setSettings({ renderer: 'quads' }));
  await viewer.tab.waitFor('the quads to draw', "window.__splatsort.renderer.renderer === 'quads'");
  const quads = await capture();
  expect(tiles.length).toBe(quads.length);
  // The tiles stop a pixel once it is opaque (as the reference does), the quads cannot: within 3 levels.
  let apart = 0;
  let drawn = 0;
  for (let i = 0; i < tiles.length; i += 4) {
    const d = Math.max(Math.abs(tiles[i]! - quads[i]!), Math.abs(tiles[i + 1]! - quads[i + 1]!), Math.abs(tiles[i + 2]! - quads[i + 2]!));
    if (d > 3) apart++;
    if (Math.abs(tiles[i]! - tiles[0]!) + Math.abs(tiles[i + 1]! - tiles[1]!) + Math.abs(tiles[i + 2]! - tiles[2]!) > 30) drawn++;
  }
  expect(drawn, 'pixels showing the scene').toBeGreaterThan(tiles.length / 4 / 20);
  expect(apart, 'pixels more than 3 levels apart').toBeLessThanOrEqual(tiles.length / 4 / 100);
  expect(viewer.tab.errors).toEqual([]);
}, BROWSER_TEST_TIMEOUT_MS);

test('auto times both renderers and keeps the faster, and the panel says so', async () => {
  await viewer.page.evaluate(() => window.__splatsortViewer!.setSettings({ renderer: 'auto' }));
  await viewer.tab.waitFor('auto to choose', "window.__splatsort.renderer.state === 'chosen'");
  const { renderer, medianMs } = (await state()).renderer;
  expect(medianMs.quads).toBeGreaterThan(0);
  expect(medianMs.tiles).toBeGreaterThan(0);
  expect(renderer).toBe(medianMs.tiles! < medianMs.quads! ? 'tiles' : 'quads');
  await viewer.tab.waitForRow('drawing with', new RegExp(`^${renderer} \\(`));
  // The order's auto follows: centre depths where quads draw; where tiles do, both orders timed and the pick said.
  if (renderer === 'quads') {
    await viewer.tab.waitForRow('order drawn', 'centre depth (auto: quads draw)');
  } else {
    await viewer.tab.waitFor("the order's auto to choose", "window.__splatsort.orderChoice.state === 'chosen'");
    await viewer.tab.waitForRow('order drawn', /^(per pixel \(\d\.\d\d× the centre-depth frame\)|centre depth \(per pixel \d+\.\d\d×\))$/);
  }
  expect(viewer.tab.errors).toEqual([]);
}, BROWSER_TEST_TIMEOUT_MS);

test('a link naming the per-pixel order draws with tiles whatever its renderer, keeps the order in the panel and the link, and says so', async () => {
  // The fixture adds renderer=quads: the order overrides it.
  await viewer.goto('?order=per-pixel');
  expect(await viewer.page.evaluate(() => new URLSearchParams(location.search).get('renderer'))).toBe('quads');
  await viewer.tab.waitFor('the tile renderer to draw', "window.__splatsort.renderer.renderer === 'tiles'");
  expect((await state()).renderer.state).toBe('set');
  expect(await viewer.page.evaluate(() => window.__splatsortViewer!.settings.order)).toBe('per-pixel');
  expect(await viewer.tab.row('order').locator('.lil-display').textContent()).toBe('per pixel');
  await viewer.tab.waitFor('the link to be written', "new URL(location.href).searchParams.has('eye')");
  expect(await viewer.page.evaluate(() => new URLSearchParams(location.search).get('order'))).toBe('per-pixel');
  await viewer.tab.waitForRow('drawing with', /^tiles/);
  // The frame blended per pixel, as the tile renderer reports it.
  await viewer.tab.waitFor('the per-pixel order to draw', "window.__splatsort.order === 'per-pixel'");
  await viewer.tab.waitForRow('drawing with', 'tiles, per-pixel order');
  await viewer.tab.waitForRow('order drawn', 'per pixel');
  expect(viewer.tab.errors).toEqual([]);
}, BROWSER_TEST_TIMEOUT_MS);

test('a file whose splats cover the window many times over: the nearest are drawn, the viewer says so, and the page keeps answering', async () => {
  // 6,000 splats, 95 % covering the window: 3.9M candidates at 480×360, past a software adapter's budget of 2^21.
  const dir = await mkdtemp(join(tmpdir(), 'splatsort-hostile-'));
  const path = join(dir, 'hostile.ply');
  await writeFile(path, writeSplatPly(hostileCloud(6000)));
  await viewer.page.evaluate(() => {
    window.__splatsortViewer!.setSettings({ renderer: 'quads', order: 'centre-depth' });
    const seen: { title: string; text: string }[] = [];
    (window as unknown as { __messagesSeen: typeof seen }).__messagesSeen = seen;
    window.__splatsortViewer!.on('message', (m) => void seen.push(m));
  });
  await viewer.page.setInputFiles('#file-input', path);
  await viewer.tab.waitFor('hostile.ply on screen, loaded', "window.__splatsort.sceneName === 'hostile.ply' && !window.__splatsort.loading");
  // Why it is slow, said at the load.
  expect((await state()).warnings).toEqual([expect.stringMatching(/ of 6,000 splats \(\d+%\) are large enough to cover the whole window: .* the scene may render slowly/)]);
  await viewer.tab.waitFor('the viewer saying it left splats out', "window.__messagesSeen.some((m) => m.title === 'Drawing the nearest splats')");
  const said = await viewer.page.evaluate(() => (window as unknown as { __messagesSeen: { title: string; text: string }[] }).__messagesSeen.find((m) => m.title === 'Drawing the nearest splats')!.text);
  expect(said).toMatch(/more than the 2,097,152 this GPU bins in a frame .*: the farthest [\d,]+ of 6,000 splats are not drawn\.$/);
  // The page answers: a click dismisses the warning, and frames go on being drawn.
  const warning = viewer.page.locator('.message[data-tone="warn"]');
  expect(await warning.locator('h2').textContent()).toBe('hostile.ply opened with a warning');
  await warning.locator('button', { hasText: 'Dismiss' }).click();
  expect(await warning.count()).toBe(0);
  await viewer.tab.waitForFrames(2);
  expect(viewer.tab.errors).toEqual([]);
  await rm(dir, { recursive: true });
}, BROWSER_TEST_TIMEOUT_MS);
