/**
 * The viewer as a new user meets it in a desktop window, 1280×800 with the
 * panel open (its default on a wide window), in Chromium on SwiftShader:
 * keys act from the first moment, before the canvas was ever clicked; F
 * frames the scene from the current angle and leaves the home view alone,
 * so R and "reset camera" go back to where the scene opened;
 * a scene is framed whole in the part of the window the open panel and
 * the stats leave uncovered, and in the larger part the folded stats
 * leave; a copied view link is a notice, not an error; the drop zone's
 * text shows whole over the panel; the panel's widgets stay visible over a
 * white background.
 *
 * The home view R goes back to is read once the scene's load is over and
 * the camera is at rest: a scene drawn while it loads is framed anew as it
 * grows, and the view of its first part is not home (tests/e2e/loading).
 * Every wait is on the page's own state (window.__splatsort: frames, the
 * camera of the last frame) and gives up, saying what it waited for, after
 * tests/e2e/browser.ts's WAIT_TIMEOUT_MS.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decodePng } from '../../cli/png';
import { writeSplatPly } from '../support/ply-writer';
import { rng } from '../support/splat-files';
import { allocateSplatCloud, computeBounds, SH_C0, type SplatCloud } from '../../src/scene/splat-cloud';
import { BROWSER_TEST_TIMEOUT_MS, useViewerPage } from './browser';
import { screenPictureTests } from './screen-pictures';
import { framedWholeTest } from './framed-whole';

const WIDTH = 1280;
const HEIGHT = 800;

const viewer = useViewerPage({ viewport: { width: WIDTH, height: HEIGHT } });

/** `count` opaque splats filling the cube [−1, 1]³. */
function solidCube(count: number): SplatCloud {
  const cloud = allocateSplatCloud(count, 0);
  const random = rng(7);
  for (let i = 0; i < count; i++) {
    for (let a = 0; a < 3; a++) {
      cloud.positions[3 * i + a] = 2 * random() - 1;
      cloud.scales[3 * i + a] = 0.06;
      cloud.dc[3 * i + a] = (0.3 + 0.5 * random() - 0.5) / SH_C0;
    }
    cloud.rotations[4 * i] = 1;
    cloud.opacities[i] = 0.9;
  }
  cloud.bounds = computeBounds(cloud.positions, count);
  return cloud;
}
const page = () => viewer.page;
const state = () => viewer.tab.state();

type Vec = [number, number, number];
const distance = (a: readonly number[], b: readonly number[]) => Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!);

/** Presses `keys` in turn, waits for the frame after the last, and returns its camera once at rest. */
async function afterKey(...keys: string[]): Promise<{ eye: Vec; target: Vec }> {
  const frames = (await state()).frames;
  for (const key of keys) await page().keyboard.press(key);
  // The frame that started after the keys has the new camera; it comes to rest a moment later.
  await viewer.tab.waitFor(`the second frame after ${keys.join(' ')}`, `window.__splatsort.frames >= ${frames + 2}`);
  const { eye, target } = await viewer.tab.settledView();
  return { eye: [...eye], target: [...target] };
}

/**
 * The home view: where the scene on screen opened, once its load is over
 * and the drawn camera is at rest. (Read while the scene still loads, it
 * would be the framing of the part loaded so far: the scene framed anew
 * when the rest arrives is what R goes back to.)
 */
async function homeView() {
  await viewer.tab.waitForViewer();
  return viewer.tab.settledView();
}

describe('a desktop window, 1280×800', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  let tempDir: string | undefined;

  afterAll(async () => {
    if (tempDir) await rm(tempDir, { recursive: true, force: true });
  });

  it('moves the camera with the keys before the canvas was ever clicked, and after a panel button was; R goes home', async () => {
    const home = await homeView();
    expect(await page().evaluate(() => document.activeElement?.tagName)).not.toBe('CANVAS');
    const turned = await afterKey('ArrowLeft');
    expect(distance(turned.eye, home.eye)).toBeGreaterThan(0.01 * distance(home.eye, home.target));
    const zoomed = await afterKey('+');
    expect(distance(zoomed.eye, zoomed.target)).toBeLessThan(distance(turned.eye, turned.target) * 0.95);
    await page().keyboard.press('r');
    await viewer.tab.waitForEye('home', home.eye);

    // After a click on a panel button (which keeps the focus, and whose panel stops the keys it sees),
    // the keys still steer the camera.
    await page().locator('.lil-gui button').filter({ hasText: 'reset camera' }).click();
    expect(await page().evaluate(() => document.activeElement?.tagName)).toBe('BUTTON');
    const again = await afterKey('ArrowLeft');
    expect(distance(again.eye, home.eye)).toBeGreaterThan(0.01 * distance(home.eye, home.target));
    await page().keyboard.press('r');
    await viewer.tab.waitForEye('home', home.eye);
  });

  it('frames with F from the current angle, and R and "reset camera" still go home', async () => {
    const home = await homeView();
    await afterKey('ArrowRight', 'ArrowRight', 'ArrowRight', 'ArrowRight');
    const turned = (await state()).view;
    const framed = await afterKey('f');
    // F keeps the angle: the eye stays on the turned side, at the framing distance.
    expect(distance(framed.eye, home.eye)).toBeGreaterThan(0.1 * distance(home.eye, home.target));
    expect(distance(framed.target, home.target)).toBeLessThan(1e-6);
    expect(distance(framed.eye, turned.eye)).toBeLessThan(1e-6 + 0.01 * distance(home.eye, home.target));
    await page().keyboard.press('r');
    await viewer.tab.waitForEye('home', home.eye);

    // The panel's "reset camera", after F.
    await afterKey('ArrowRight', 'f');
    await page().locator('.lil-gui button').filter({ hasText: 'reset camera' }).click();
    await viewer.tab.waitForEye('home', home.eye);
  });

  it('gives the scene most of an 800×500 window: the panel shows viewing, the stats a line of timings, nothing cut; "Sort & render" is one click away and stays as left', async () => {
    const [width, height] = [800, 500];
    await page().setViewportSize({ width, height });
    // The stats fold to one line with the window (the user has not chosen), and that line gives the sort's time first.
    await viewer.tab.waitFor('the stats folded to a line of timings', () => /^▸ SORT \d+ (µs|ms)/.test(document.querySelector('.stats.stats-collapsed .stats-toggle')?.textContent ?? ''), undefined);
    const free = await viewer.tab.settledFraming();
    const share = (free.width * free.height) / (width * height);
    console.log(`800×500: the free part ${free.width}×${free.height} at ${free.x},${free.y}, ${(100 * share).toFixed(1)} % of the window`);
    expect(share).toBeGreaterThanOrEqual(0.6);
    await viewer.tab.saveScreenshot('e2e-viewer-first-800x500.png');

    // Viewing rows show; the sort, render and save rows wait in closed folders; the world budget is for worlds.
    const open = (title: string) => page().evaluate((title) => {
      const folder = [...document.querySelectorAll('.lil-gui')].find((g) => g.querySelector(':scope > .lil-title')?.textContent === title);
      return folder ? !folder.classList.contains('lil-closed') : null;
    }, title);
    expect(await Promise.all(['Scene', 'View', 'Sort & render', 'Save scene as'].map(open))).toEqual([true, true, false, false]);
    for (const name of ['file', 'splats', 'up axis', 'FPS', 'copy view link']) expect(await viewer.tab.row(name).isVisible(), name).toBe(true);
    for (const name of ['sort mode', 'show', 'renderer', 'format', 'world budget']) expect(await viewer.tab.row(name).isVisible(), name).toBe(false);

    // Every read-only value shows whole (wrapping where long), with its text on hover too.
    const rows = await page().evaluate(() => [...document.querySelectorAll<HTMLElement>('.lil-gui .read-only')].filter((r) => r.offsetParent !== null).map((r) => {
      const text = r.querySelector<HTMLElement>('.read-only-text')!;
      return { name: r.querySelector('.lil-name')!.textContent, value: r.querySelector('input')!.value, shown: text.textContent, title: r.title, clipped: text.scrollWidth > text.clientWidth };
    }));
    expect(rows.length).toBeGreaterThanOrEqual(8);
    for (const row of rows) {
      expect(row.shown, row.name!).toBe(row.value);
      expect(row.shown, row.name!).not.toMatch(/…$/);
      expect(row.clipped, row.name!).toBe(false);
      expect(row.title, row.name!).not.toBe('');
    }

    // One click opens the sort and render controls; a new visit finds them as they were left.
    await viewer.tab.setFolderOpen('Sort & render', true);
    expect(await viewer.tab.row('sort mode').isVisible()).toBe(true);
    // Its choices show their labels whole too (a long one wraps in its box).
    await viewer.tab.row('show').locator('select').selectOption({ label: 'sort difference (heat map)' });
    const cut = await page().evaluate(() => [...document.querySelectorAll<HTMLElement>('.lil-gui .lil-option .lil-display')]
      .filter((d) => d.offsetParent !== null && (d.scrollWidth > d.clientWidth || d.scrollHeight > d.clientHeight)).map((d) => d.textContent));
    expect(cut).toEqual([]);
    await viewer.tab.saveScreenshot('e2e-sort-and-render-800x500.png');
    await viewer.tab.row('show').locator('select').selectOption({ label: 'picture' });
    await viewer.goto();
    expect(await open('Sort & render')).toBe(true);
    await viewer.tab.setFolderOpen('Sort & render', false);
    await page().setViewportSize({ width: WIDTH, height: HEIGHT });
    await viewer.tab.waitFor('the stats unfolded with the window', () => !document.querySelector('.stats')!.classList.contains('stats-collapsed'), undefined);
  });

  it('hides the panels with U, shows them again with U, and starts without them for a ui=0 link', async () => {
    const chrome = ['.lil-gui.lil-root', '.stats', '.hint'];
    const shown = () => Promise.all(chrome.map((s) => page().locator(s).first().isVisible()));
    expect(await shown()).toEqual([true, true, true]);
    // The timing chart's frames so far (its data-frames, written as it draws).
    const chartFrames = () => page().evaluate(() => Number(document.querySelector<HTMLElement>('.stats [data-testid="timing-chart"]')!.dataset.frames));
    await viewer.tab.waitFor('the chart to have drawn frames', () => Number(document.querySelector<HTMLElement>('.stats [data-testid="timing-chart"]')?.dataset.frames) > 0, undefined);
    await page().keyboard.press('u');
    await page().locator('.stats').waitFor({ state: 'hidden' });
    expect(await shown()).toEqual([false, false, false]);
    // Hidden, the stats draw nothing: while the viewer draws on, the chart takes no frame (after any in flight when U was pressed).
    await viewer.tab.waitForFrames(2);
    const frozen = await chartFrames();
    await viewer.tab.waitForFrames(6);
    expect(await chartFrames()).toBe(frozen);
    await page().keyboard.press('u');
    await page().locator('.stats').waitFor({ state: 'visible' });
    expect(await shown()).toEqual([true, true, true]);
    await viewer.tab.waitFor('the chart to draw again', (before) => Number(document.querySelector<HTMLElement>('.stats [data-testid="timing-chart"]')!.dataset.frames) > before, frozen);
    expect(await page().locator('.help').textContent()).toContain('Hide or show the panels');

    await viewer.goto('?ui=0');
    expect(await shown()).toEqual([false, false, false]);
    await page().keyboard.press('u');
    await page().locator('.stats').waitFor({ state: 'visible' });
  });

  it('offers every axis as up, and levels the view: what is up on screen becomes up', async () => {
    const upAxis = viewer.tab.row('up axis').locator('select');
    const home = (await state()).view;
    await upAxis.selectOption({ label: '+z' });
    await viewer.tab.waitFor('+z up', "window.__splatsort.view.up.join() === '0,0,1'");
    // lil-gui's options carry their labels only.
    await upAxis.selectOption({ label: home.up[1] === -1 ? '−y' : '+y' });
    await viewer.tab.waitFor('the scene\'s own up again', (up) => window.__splatsort!.view.up.join() === up, home.up.join());
    // Choosing an axis frames the scene anew (for the window and panel of that moment), and that
    // framing is what R returns to.
    const framed = await viewer.tab.settledView();
    // A select in focus takes the arrow keys itself (they would choose another axis): the keys go
    // to the page once it lets go of the focus.
    await page().evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    // Tilt the view, then level it: the up becomes the screen's up, not an axis.
    await afterKey('ArrowUp', 'ArrowUp', 'ArrowUp');
    const tilted = (await state()).view;
    expect(distance(tilted.eye, framed.eye)).toBeGreaterThan(0.01 * distance(framed.eye, framed.target));
    await page().locator('.lil-gui button').filter({ hasText: 'level' }).click();
    await viewer.tab.waitFor('a levelled up', (up) => window.__splatsort!.view.up.join() !== up, home.up.join());
    const levelled = (await state()).view;
    expect(await upAxis.inputValue()).toBe('levelled');
    // The same picture: eye and target stay; up is now at right angles to the view.
    expect(distance(levelled.eye, tilted.eye)).toBeLessThan(1e-6 * distance(tilted.eye, tilted.target));
    const forward = levelled.target.map((t, i) => t - levelled.eye[i]!);
    expect(Math.abs(forward.reduce((sum, f, i) => sum + f * levelled.up[i]!, 0)) / Math.hypot(...forward)).toBeLessThan(1e-6);
    await page().keyboard.press('r');
    await viewer.tab.waitForEye('the framing that choosing the axis made', framed.eye);
    expect((await state()).view.up).toEqual(home.up);
  });

  it('turns the camera by itself with auto-rotate, and goes fullscreen from the panel', async () => {
    const before = (await state()).view;
    const toggle = page().locator('.lil-gui .lil-controller').filter({ hasText: 'auto-rotate' }).locator('input');
    await toggle.check();
    await viewer.tab.waitFor('the camera turned by auto-rotate', (eye) => Math.hypot(...window.__splatsort!.view.eye.map((v, i) => v - eye[i]!)) > 0.05 * Math.hypot(...eye), [...before.eye]);
    await toggle.uncheck();
    const button = page().locator('.lil-gui button').filter({ hasText: 'fullscreen' });
    await button.click();
    await viewer.tab.waitFor('fullscreen', 'document.fullscreenElement !== null');
    await button.click();
    await viewer.tab.waitFor('fullscreen ended', 'document.fullscreenElement === null');
  });

  it('labels every timing panel in full: value, pass and unit fit the 80 px panel', async () => {
    await viewer.tab.waitFor('three labelled timing panels', "document.querySelectorAll('.stats-slot[data-label]').length >= 3");
    const labels = await page().evaluate(() => {
      const context = document.createElement('canvas').getContext('2d')!;
      context.font = 'bold 9px Helvetica,Arial,sans-serif';
      return [...document.querySelectorAll<HTMLElement>('.stats-slot[data-label]')].map((slot) => ({ label: slot.dataset.label!, width: context.measureText(slot.dataset.label!).width, title: slot.title }));
    });
    for (const { label, width, title } of labels) {
      expect(label).toMatch(/^\d+ [A-Z]+ (µs|ms|frames)$/);
      // The text starts 3 px in: it must end inside the panel.
      expect(3 + width, label).toBeLessThanOrEqual(80);
      // The range moved to the tooltip.
      expect(title).toMatch(/\(\d+–\d+ so far\)$/);
    }
  });

  it('says a copied view link is copied, as a notice that goes by itself, not as an error', async () => {
    await page().context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(viewer.url).origin });
    await page().locator('.lil-gui button').filter({ hasText: 'copy view link' }).click();
    const message = page().locator('.message').filter({ hasText: 'View link copied' });
    await message.waitFor({ state: 'visible' });
    expect(await message.getAttribute('data-tone')).toBe('info');
    expect(await message.textContent()).toContain(await page().evaluate(() => location.href));
    await message.waitFor({ state: 'detached' });
  });

  it('shows the drop zone, its text whole, over the open panel', async () => {
    await page().evaluate(() => {
      const files = new DataTransfer();
      files.items.add(new File(['ply'], 'scene.ply'));
      window.dispatchEvent(new DragEvent('dragenter', { dataTransfer: files }));
    });
    const text = page().locator('.drop-zone p');
    await text.waitFor({ state: 'visible' });
    const box = (await text.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(WIDTH);
    // Nothing lies over it: the drop zone is stacked above the panel (both are fixed, children of the body).
    const [zone, panel] = await page().evaluate(() => ['.drop-zone', '.lil-gui.lil-root'].map((s) => Number(getComputedStyle(document.querySelector(s)!).zIndex)));
    expect(zone).toBeGreaterThan(panel!);
    await viewer.tab.saveScreenshot('e2e-drop-zone-1280x800.png');
    await page().evaluate(() => window.dispatchEvent(new DragEvent('dragleave')));
    await text.waitFor({ state: 'hidden' });
  });

  it('keeps the panel\'s checkboxes and slider tracks visible over a white background', async () => {
    await viewer.tab.setFolderOpen('Sort & render', true);
    await page().locator('.lil-gui input[type=color]').fill('#ffffff');
    await viewer.tab.waitForFrames(2);
    const shot = decodePng(await readFile(await viewer.tab.saveScreenshot('e2e-panel-white-background.png')));
    const pixel = (x: number, y: number) => {
      const i = 4 * (Math.round(y) * shot.width + Math.round(x));
      return [shot.rgba[i]!, shot.rgba[i + 1]!, shot.rgba[i + 2]!];
    };
    const panel = (await page().locator('.lil-gui.lil-root').boundingBox())!;
    const checkbox = (await page().locator('.lil-gui .lil-controller').filter({ hasText: 'freeze order' }).locator('input').boundingBox())!;
    const track = (await page().locator('.lil-gui .lil-controller').filter({ hasText: 'splat scale' }).locator('.lil-slider').boundingBox())!;
    // Beside each widget, at its height: the panel's own background.
    for (const [name, widget, at] of [['checkbox', checkbox, checkbox.x + checkbox.width / 2], ['slider track', track, track.x + track.width * 0.95]] as const) {
      const y = widget.y + widget.height / 2;
      const [w, b] = [pixel(at, y), pixel(panel.x + 3, y)];
      const contrast = Math.max(...w.map((v, c) => Math.abs(v - b[c]!)));
      expect(contrast, `${name}: ${w} on ${b}`).toBeGreaterThanOrEqual(12);
    }
    await page().locator('.lil-gui input[type=color]').fill('#101318');
    await viewer.tab.setFolderOpen('Sort & render', false);
  });
  it('frames a scene beside the stats and the panel, and in the room the folded stats leave', async () => {
    // A solid cube: from the home angle a corner reaches the lower left, where the stats are.
    tempDir ??= await mkdtemp(join(tmpdir(), 'splatsort-desktop-'));
    const file = join(tempDir, 'cube.ply');
    await writeFile(file, writeSplatPly(solidCube(4000)));
    await page().setInputFiles('#file-input', file);
    await viewer.tab.waitFor('the cube on screen, loaded', "window.__splatsort.sceneName === 'cube.ply' && !window.__splatsort.loading");
    const free = await viewer.tab.settledFraming();
    const [stats, panel] = await Promise.all(['.stats', '.lil-gui.lil-root'].map(async (s) => (await page().locator(s).boundingBox())!));
    // The free part is beside both: right of the stats, left of the panel.
    expect(free.x).toBeGreaterThanOrEqual(stats!.x + stats!.width - 1);
    expect(free.x + free.width).toBeLessThanOrEqual(panel!.x + 1);
    const overlays = ['.stats', '.lil-gui.lil-root'];
    const beside = await viewer.tab.sceneCoverage(overlays);
    console.log(`cube drawn over ${beside.drawn} px, ${beside.under.join(' and ')} of them under the stats and the panel; free part x ${free.x}..${free.x + free.width}`);
    expect(beside.drawn).toBeGreaterThan(0.1 * WIDTH * HEIGHT);
    // Under the overlays: none but the splats' soft edges (framed beside the panel only, 1.1 % lay under the stats).
    expect(beside.under[0]! + beside.under[1]!).toBeLessThan(0.002 * beside.drawn);

    // Folded to a tab, the stats leave the whole height beside the panel: the cube is framed larger, still clear of both.
    await page().locator('.stats-toggle').click();
    await viewer.tab.waitFor('the free part past the folded stats', (x) => window.__splatsort!.freeRect.x < x, free.x);
    const wider = await viewer.tab.settledFraming();
    const folded = await viewer.tab.sceneCoverage(overlays);
    console.log(`folded: drawn over ${folded.drawn} px, ${folded.under.join(' and ')} under the tab and the panel; free part x ${wider.x}..${wider.x + wider.width}`);
    expect(folded.box.bottom - folded.box.top).toBeGreaterThan(beside.box.bottom - beside.box.top);
    expect(folded.under[0]! + folded.under[1]!).toBeLessThan(0.002 * folded.drawn);
    expect(await page().locator('.stats').getAttribute('class')).toMatch(/\bstats-collapsed\b/);
    await page().locator('.stats-toggle').click();
    await viewer.tab.waitFor('the stats unfolded', () => !document.querySelector('.stats')!.classList.contains('stats-collapsed'), undefined);
    expect(viewer.tab.errors).toEqual([]);
  });

  // On the cube, framed beside the stats and the panel.
  screenPictureTests(viewer, () => join(tempDir!, 'cube.ply'));

  // Last: a tall, thin scene makes every frame after it slower.
  framedWholeTest(viewer, async () => (tempDir ??= await mkdtemp(join(tmpdir(), 'splatsort-desktop-'))));
});
