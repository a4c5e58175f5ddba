/**
 * The viewer on a phone: a 390×844 touch screen (touch events only,
 * `pointer: coarse`), in Chromium on SwiftShader. The help shows the touch
 * controls; the stats start folded to a line of timings; the panel opens
 * as a sheet along the bottom that leaves the scene in view; every control
 * is a 44 px target; the stats can be hidden;
 * one finger orbits, two pinch, and a held touch orbits the point under it.
 *
 * Touches go through the DevTools protocol (Input.dispatchTouchEvent), as a
 * finger's would. Every wait is on the page's own state.
 */
import type { CDPSession } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_TIMEOUT_MS, useViewerPage } from './browser';
import { inriaPly } from '../support/splat-files';

const WIDTH = 390;
const HEIGHT = 844;
/** The smallest target a fingertip hits reliably. */
const TOUCH_TARGET_PX = 44;
/**
 * Chromium lays boxes out in 1/64 px, and a box's client rect comes back in
 * floats: a 44 px select read 43.99994 px once on a slower machine. A control
 * is under the target only where it is short by more than that.
 */
const LAYOUT_UNIT_PX = 1 / 64;

const viewer = useViewerPage({ viewport: { width: WIDTH, height: HEIGHT }, touch: true });
const page = () => viewer.page;
let cdp: CDPSession;

const state = () => viewer.tab.state();
const waitFor = (what: string, predicate: string) => viewer.tab.waitFor(what, predicate);
const distance = (a: readonly number[], b: readonly number[]) => Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!);

type Point = [number, number];
const touch = (type: 'touchStart' | 'touchMove' | 'touchEnd', points: Point[]) =>
  cdp.send('Input.dispatchTouchEvent', { type, touchPoints: points.map(([x, y], id) => ({ x, y, id })) });

/**
 * Fingers from `from` to `to` (one point per finger) in `steps` moves. The
 * first move is sent with the start, not after its answer: on a busy
 * machine the answer can come later than a held touch's 500 ms, and a
 * finger that rests that long picks instead of dragging.
 */
async function drag(from: Point[], to: Point[], steps = 8): Promise<void> {
  const at = (s: number): Point[] => from.map(([x, y], f) => [x + ((to[f]![0] - x) * s) / steps, y + ((to[f]![1] - y) * s) / steps]);
  await Promise.all([touch('touchStart', from), touch('touchMove', at(1))]);
  for (let s = 2; s <= steps; s++) await touch('touchMove', at(s));
  await touch('touchEnd', []);
}

describe('a phone, 390×844 touch screen', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  beforeAll(async () => {
    cdp = await viewer.context.newCDPSession(page());
  }, BROWSER_TEST_TIMEOUT_MS);

  it('shows the touch controls in the help, not the keys', async () => {
    expect(await page().evaluate(() => matchMedia('(pointer: coarse)').matches)).toBe(true);
    const hint = page().locator('.hint');
    expect(await hint.textContent()).toBe('Help');
    await hint.tap();
    const help = page().locator('.help');
    await help.waitFor({ state: 'visible' });
    const text = await help.textContent();
    expect(text).toContain('One-finger drag');
    expect(text).toContain('Touch and hold');
    expect(text).not.toContain('W A S D');
    expect(text).not.toContain('Drop ');
    await help.getByRole('button', { name: 'Close' }).tap();
    await help.waitFor({ state: 'hidden' });
  });

  it('starts with the stats folded to one line that gives the sort\'s time', async () => {
    await viewer.tab.waitFor('the sort\'s time in the folded stats', () => /^▸ SORT \d+ (µs|ms)/.test(document.querySelector('.stats.stats-collapsed .stats-toggle')?.textContent ?? ''), undefined);
    const line = (await page().locator('.stats').boundingBox())!;
    // One line, under the help button, clear of the scene's middle.
    expect(line.height).toBeLessThanOrEqual(TOUCH_TARGET_PX + 8);
    const free = await viewer.tab.settledFraming();
    console.log(`390×844: the free part ${free.width}×${free.height} at ${free.x},${free.y}, ${((100 * free.width * free.height) / (WIDTH * HEIGHT)).toFixed(1)} % of the screen`);
    await viewer.tab.saveScreenshot('e2e-phone-390x844.png');
  });

  it('opens the panel as a sheet along the bottom that leaves the scene in view, every control 44 px', async () => {
    // Closed at first: the scene has the screen.
    expect(await page().locator('.lil-gui.lil-root').getAttribute('class')).toContain('lil-closed');
    await viewer.tab.setPanelOpen(true, 'tap');
    const sheet = (await page().locator('.lil-gui.lil-root').boundingBox())!;
    expect(sheet.x).toBe(0);
    expect(sheet.width).toBe(WIDTH);
    expect(Math.abs(sheet.y + sheet.height - HEIGHT)).toBeLessThanOrEqual(1);
    // Over less than half the screen: the scene (framed in the middle) shows above it.
    expect(sheet.height).toBeLessThanOrEqual(HEIGHT / 2);
    // The stats stay clear of it.
    const stats = (await page().locator('.stats').boundingBox())!;
    expect(stats.y + stats.height).toBeLessThan(sheet.y);
    await viewer.tab.saveScreenshot('e2e-phone-sheet-390x844.png');

    // Every control in the panel, the folded ones too, and the page's buttons, is at least 44 px high.
    for (const folder of ['Sort & render', 'Save scene as']) await viewer.tab.setFolderOpen(folder, true, 'tap');
    const heights = await page().evaluate(() =>
      [...document.querySelectorAll('.lil-gui .lil-controller:not(.read-only) .lil-widget, .lil-gui .lil-title, .hint')]
        .map((e) => ({ what: (e.closest('.lil-controller')?.querySelector('.lil-name')?.textContent ?? e.textContent ?? '').trim(), height: e.getBoundingClientRect().height }))
        .filter((e) => e.height > 0),
    );
    expect(heights.length).toBeGreaterThan(20);
    expect(heights.filter((h) => h.height < TOUCH_TARGET_PX - LAYOUT_UNIT_PX)).toEqual([]);
    for (const folder of ['Sort & render', 'Save scene as']) await viewer.tab.setFolderOpen(folder, false, 'tap');
  });

  it('frames the scene above the open sheet and beside the folded stats, and in the smaller room the unfolded stats leave', async () => {
    // The sheet is open (the test before): the free part ends above it.
    const sheet = (await page().locator('.lil-gui.lil-root').boundingBox())!;
    const roomy = await viewer.tab.settledFraming();
    expect(roomy.y + roomy.height).toBeLessThanOrEqual(sheet.y + 1);
    const overlays = ['.lil-gui.lil-root', '.stats'];
    const folded = await viewer.tab.sceneCoverage(overlays);
    console.log(`sheet open, stats folded: the scene drawn over ${folded.drawn} px, ${folded.under.join(' and ')} of them under the sheet and the line; free part ${roomy.width}×${roomy.height}`);
    expect(folded.drawn).toBeGreaterThan(0.02 * WIDTH * HEIGHT);
    // (Framed in the whole window as before, 46 % of the scene's pixels lay under the sheet and the stats.)
    expect(folded.under[0]! + folded.under[1]!).toBeLessThan(0.01 * folded.drawn);

    // The stats unfolded: less room above the sheet, the scene framed smaller in it, still clear of both.
    await page().locator('.stats-toggle').tap();
    await viewer.tab.waitFor('a smaller free part', (area) => window.__splatsort!.freeRect.width * window.__splatsort!.freeRect.height < area, roomy.width * roomy.height);
    const free = await viewer.tab.settledFraming();
    const stats = (await page().locator('.stats').boundingBox())!;
    // The stats stay clear of the sheet.
    expect(stats.y + stats.height).toBeLessThan(sheet.y);
    const above = await viewer.tab.sceneCoverage(overlays);
    console.log(`stats unfolded: drawn over ${above.drawn} px, ${above.under.join(' and ')} under the sheet and the stats; free part y ${free.y}..${free.y + free.height}`);
    expect(folded.drawn).toBeGreaterThan(above.drawn);
    expect(above.under[0]! + above.under[1]!).toBeLessThan(0.01 * above.drawn);
    await page().locator('.stats-toggle').tap();
    await viewer.tab.waitFor('the stats folded', () => document.querySelector('.stats')!.classList.contains('stats-collapsed'), undefined);
  });

  it('hides the stats from the panel, and shows them again', async () => {
    const stats = page().locator('.stats');
    const toggle = page().locator('.lil-gui .lil-controller').filter({ hasText: 'stats panels' });
    await toggle.scrollIntoViewIfNeeded();
    await toggle.tap();
    await stats.waitFor({ state: 'hidden' });
    await toggle.tap();
    await stats.waitFor({ state: 'visible' });
    // Closed again, for the touches on the scene.
    await viewer.tab.setPanelOpen(false, 'tap');
  });

  it('orbits with one finger and zooms with a pinch', async () => {
    const start = await viewer.tab.settledView();
    await drag([[WIDTH * 0.3, HEIGHT * 0.5]], [[WIDTH * 0.7, HEIGHT * 0.5]]);
    await waitFor('the eye moved by the drag', `Math.hypot(...window.__splatsort.view.eye.map((e, i) => e - ${JSON.stringify(start.eye)}[i])) > 0`);
    const orbited = (await state()).view;
    // Orbit keeps the target and the distance.
    expect(distance(orbited.target, start.target)).toBeLessThan(1e-6);
    expect(distance(orbited.eye, orbited.target)).toBeCloseTo(distance(start.eye, start.target), 4);

    // Fingers apart: closer.
    await drag([[WIDTH * 0.45, HEIGHT * 0.5], [WIDTH * 0.55, HEIGHT * 0.5]], [[WIDTH * 0.2, HEIGHT * 0.5], [WIDTH * 0.8, HEIGHT * 0.5]]);
    await waitFor('the eye closer after the pinch', `Math.hypot(...window.__splatsort.view.eye.map((e, i) => e - window.__splatsort.view.target[i])) < 0.8 * ${distance(orbited.eye, orbited.target)}`);
  });

  it('orbits the point under a held finger', async () => {
    const before = await viewer.tab.settledView();
    await page().evaluate(() => { (window.__splatsort as { picked?: unknown }).picked = undefined; });
    // The default scene fills the middle of the screen.
    await touch('touchStart', [[WIDTH / 2, HEIGHT / 2]]);
    await waitFor('a pick', 'window.__splatsort.picked !== undefined');
    await touch('touchEnd', []);
    const picked = (await state()).picked;
    expect(picked).not.toBeNull();
    await waitFor('the picked point as the target', `Math.hypot(...window.__splatsort.view.target.map((t, i) => t - ${JSON.stringify(picked)}[i])) < 1e-6`);
    // The eye stays.
    expect(distance((await state()).view.eye, before.eye)).toBeLessThan(1e-6 * distance(before.eye, before.target));
    expect(viewer.tab.errors).toEqual([]);
  });

  it('offers to turn over a scene whose up only the convention gives, asking for a tap, not a key', async () => {
    await page().setInputFiles('#file-input', { name: 'one.ply', mimeType: 'application/octet-stream', buffer: Buffer.from(inriaPly({ count: 50, shDegree: 0 })) });
    await waitFor('the scene of unknown up on screen', "window.__splatsort.sceneName === 'one.ply' && !window.__splatsort.loading");
    const hint = page().locator('.up-hint');
    expect(await hint.getAttribute('hidden')).toBeNull();
    expect(await hint.textContent()).toBe('upside down? tap to turn it over');
  });
});
