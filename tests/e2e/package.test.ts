/**
 * Splatsort in other pages, as a project that installed the package gets
 * it: the example pages (examples/) are built in a project of their own
 * against the packed tarball (tests/e2e/package-consumer.ts, from
 * global-setup.ts), and these tests drive those built pages, not src/:
 * one viewer; two viewers on one page, each with its own scene and camera,
 * flown, saved, captured, one destroyed; the <splat-viewer> element, its
 * attributes changed live; the engine entry drawing splats behind the
 * page's own triangle; 50 viewers made and destroyed, which leave the live
 * GPU buffers, textures and query sets, workers, observers and event
 * listeners where they started (counted by wrappers the test puts in the
 * page before its scripts run); and a load cancelled by destroy(). Every
 * wait is on the page's own state (window.splatsortExample,
 * window.splatsortElementEvents, window.splatsortEngineExample).
 */
import { readFile } from 'node:fs/promises';
import { expect, test } from 'vitest';
import { decodePng } from '../../cli/png';
import type { Page } from 'playwright-core';
import { BROWSER_TEST_TIMEOUT_MS, useViewerPage, type TestPage } from './browser';
import type {} from '../../examples/example-state';
import type {} from '../../src/lib/element';
import { countLiveObjects, noViewer, type LiveCounts } from './live-objects';

const fixture = useViewerPage({ query: null });

/**
 * Waits until the page's live objects are `expected` (pipelines aside):
 * what a destroyed viewer was still making (a tile renderer's pipelines
 * compiling) is freed when it arrives, not at destroy(). A leak never
 * settles, and the wait gives up naming what the page held.
 */
async function waitForLive(tab: Awaited<ReturnType<typeof fixture.newPage>>, expected: LiveCounts, timeout?: number): Promise<LiveCounts> {
  try {
    await tab.waitFor('the live objects to come back to where they started', (want) => {
      const { pipelinesMade: _, ...now } = window.splatsortLive!();
      return JSON.stringify(now) === want;
    }, JSON.stringify({ ...expected, pipelinesMade: undefined }), timeout);
  } catch (error) {
    // What was left, against what was expected.
    const now = await tab.page.evaluate(() => window.splatsortLive!());
    expect(now).toEqual({ ...expected, pipelinesMade: now.pipelinesMade });
    throw error;
  }
  return tab.page.evaluate(() => window.splatsortLive!());
}


/** Opens an example page of viewers and waits until each has opened its scene, with no error. */
async function openExample(name: string, viewers: number): Promise<void> {
  const { page, tab } = fixture;
  await page.goto(`${fixture.url}examples/${name}.html`);
  await tab.waitFor(`the ${name} example's viewers to open their scenes`, (want) => window.splatsortExample?.loaded === want || (window.splatsortExample?.errors.length ?? 0) > 0, viewers);
  expect(await page.evaluate(() => window.splatsortExample!.errors)).toEqual([]);
}

/**
 * A fresh page of the one-viewer example with the counting wrappers in it
 * (`prepare` runs first, before the page loads: a route, say), its own
 * viewer drawn and then destroyed, and what is live once that settled:
 * where a test's viewers must leave the page.
 */
async function countedPageWithoutViewer(prepare?: (page: Page) => Promise<unknown>): Promise<{ tab: TestPage; page: Page; empty: LiveCounts }> {
  const tab = await fixture.newPage();
  const { page } = tab;
  await page.addInitScript(countLiveObjects);
  await prepare?.(page);
  await page.goto(`${fixture.url}examples/one-viewer.html`);
  await tab.waitFor("the page's own viewer to draw its scene", () => (window.splatsortExample?.viewers[0]?.state.frames ?? 0) > 2, undefined);
  // What the page's viewer was still making lands and is freed.
  const listeners = await page.evaluate(() => {
    window.splatsortExample!.viewers[0]!.destroy();
    return window.splatsortLive!().listeners;
  });
  return { tab, page, empty: await waitForLive(tab, noViewer(listeners)) };
}

test("one viewer in a page: the five-line example opens its scene and draws it; the examples' page leads to every example", async () => {
  const { page, tab } = fixture;
  await page.goto(`${fixture.url}examples/index.html`);
  const links = await page.evaluate(async () => Promise.all([...document.querySelectorAll('h2 a')].map(async (a) => {
    const href = (a as HTMLAnchorElement).href;
    return { page: href.split('/').pop(), status: (await fetch(href)).status };
  })));
  expect(links).toEqual(['one-viewer.html', 'two-viewers.html', 'element.html', 'with-panel.html', 'engine.html'].map((page) => ({ page, status: 200 })));
  await openExample('one-viewer', 1);
  await tab.waitFor('the viewer to draw its scene', () => window.splatsortExample!.viewers[0]!.state.frames > 2, undefined);
  expect(await page.evaluate(() => window.splatsortExample!.viewers[0]!.state.splats)).toBeGreaterThan(1000);
  expect(tab.errors).toEqual([]);
}, BROWSER_TEST_TIMEOUT_MS);

test('two viewers on one page open their scenes and draw; each has its own camera, flown or set; they save and capture; one destroyed leaves the other drawing', async () => {
  const { page, tab } = fixture;
  await openExample('two-viewers', 2);
  await tab.waitFor('both viewers to draw their scene', () => window.splatsortExample!.viewers.every((v) => v.state.frames > 2 && v.state.splats > 0), undefined);

  // Each viewer's camera is its own: moving one leaves the other where it was.
  const eyes = await page.evaluate(() => {
    const [left, right] = window.splatsortExample!.viewers;
    const before = right!.camera.get().eye.slice();
    const moved = left!.camera.get();
    left!.camera.set({ ...moved, eye: [moved.eye[0] * 2, moved.eye[1] * 2, moved.eye[2] * 2] });
    return { left: left!.camera.get().eye, right: right!.camera.get().eye, before };
  });
  expect(eyes.right).toEqual(eyes.before);
  expect(eyes.left).not.toEqual(eyes.right);

  // A flight ends at the pose asked for, and its promise says so.
  const flown = await page.evaluate(async () => {
    const viewer = window.splatsortExample!.viewers[1]!;
    const start = viewer.camera.get();
    const to = { ...start, eye: [start.eye[0] + 0.5, start.eye[1] + 0.25, start.eye[2] - 0.5] as [number, number, number] };
    await viewer.camera.flyTo(to, { seconds: 0.3 });
    return { to: to.eye, now: viewer.camera.get().eye };
  });
  flown.now.forEach((v, i) => expect(v).toBeCloseTo(flown.to[i]!, 4));

  // The scene saved as a file of a writable format, whole.
  const saved = await page.evaluate(async () => {
    const viewer = window.splatsortExample!.viewers[0]!;
    const file = await viewer.save('ply');
    return { name: file.name, bytes: file.blob.size, splats: file.splats, shown: viewer.state.splats, losses: [viewer.saveLosses('ply'), viewer.saveLosses('splat')] };
  });
  expect(saved.name).toBe('default-scene.ply');
  // What a format cannot hold is named before saving: .splat has no SH bands.
  expect(saved.losses).toEqual([[], ['its view-dependent colour, SH bands 1 to 3: .splat keeps SH up to degree 0']]);
  expect(saved.splats).toBe(saved.shown);
  expect(saved.bytes).toBeGreaterThan(saved.splats * 62 * 4);

  // A capture is a PNG of the size asked for.
  const png = await page.evaluate(async () => {
    const blob = await window.splatsortExample!.viewers[0]!.capture({ width: 64, height: 48 });
    const bytes = new Uint8Array(await blob.arrayBuffer());
    return { type: blob.type, width: new DataView(bytes.buffer).getUint32(16), height: new DataView(bytes.buffer).getUint32(20) };
  });
  expect(png).toEqual({ type: 'image/png', width: 64, height: 48 });

  const frames = await page.evaluate(() => {
    const { viewers } = window.splatsortExample!;
    viewers[1]!.destroy();
    return { canvases: document.querySelectorAll('#right canvas').length, left: viewers[0]!.state.frames };
  });
  expect(frames.canvases).toBe(0);
  await tab.waitFor('the other viewer to go on drawing', (start: number) => window.splatsortExample!.viewers[0]!.state.frames > start + 2, frames.left);
  expect(tab.errors).toEqual([]);
}, BROWSER_TEST_TIMEOUT_MS);

test('the <splat-viewer> element: opens its src, reflects its attributes both ways, changes renderer live with a DOM event, and frees its viewer when removed', async () => {
  const { page, tab } = fixture;
  await page.goto(`${fixture.url}examples/element.html`);
  await tab.waitFor('the element to open its scene', () => (window.splatsortElementEvents ?? []).some((e) => e.type === 'loaded' || e.type === 'error'), undefined);
  expect(await page.evaluate(() => window.splatsortElementEvents!.filter((e) => e.type === 'error'))).toEqual([]);
  expect(await page.evaluate(() => window.splatsortElementEvents!.find((e) => e.type === 'rendererchange')?.detail)).toBe('quads');

  // Without an order attribute the order is auto's: centre depths where quads draw.
  expect(await page.evaluate(() => document.querySelector('splat-viewer')!.order)).toBe('auto');

  // Property → attribute, and the change applied: the frames are drawn by tiles.
  const reflected = await page.evaluate(() => {
    const element = document.querySelector('splat-viewer')!;
    element.renderer = 'tiles';
    element.budget = '500k';
    element.setAttribute('order', 'per-pixel');
    return { renderer: element.getAttribute('renderer'), budget: element.getAttribute('budget'), order: element.order, controls: element.controls };
  });
  expect(reflected).toEqual({ renderer: 'tiles', budget: '500k', order: 'per-pixel', controls: true });
  await tab.waitFor('a rendererchange event to tiles', () => window.splatsortElementEvents!.some((e) => e.type === 'rendererchange' && e.detail === 'tiles'), undefined);
  await tab.waitFor('frames drawn per pixel', () => document.querySelector('splat-viewer')!.viewer?.state.order === 'per-pixel', undefined);
  await tab.waitFor('an orderchange event to per-pixel', () => window.splatsortElementEvents!.some((e) => e.type === 'orderchange' && e.detail === 'per-pixel'), undefined);

  const removed = await page.evaluate(() => {
    const element = document.querySelector('splat-viewer')!;
    element.remove();
    return { viewer: element.viewer, canvases: element.querySelectorAll('canvas').length };
  });
  expect(removed).toEqual({ viewer: null, canvases: 0 });
  expect(tab.errors).toEqual([]);
}, BROWSER_TEST_TIMEOUT_MS);

test("the viewer page's panel in another page (ui: true): loaded with its styles, it opens the page's scene and sets the viewer", async () => {
  const { page, tab } = fixture;
  await openExample('with-panel', 1);
  // The page's styles are on the page, added once: the canvas fills the window under the panels.
  const styled = await page.evaluate(() => ({
    styles: getComputedStyle(document.documentElement).getPropertyValue('--splatsort-styles').trim(),
    canvas: getComputedStyle(window.splatsortExample!.viewers[0]!.canvas).position,
    added: document.querySelectorAll('style[data-splatsort]').length,
    panel: document.querySelectorAll('.lil-gui.lil-root').length,
  }));
  expect(styled).toEqual({ styles: '1', canvas: 'fixed', added: 1, panel: 1 });
  await tab.saveScreenshot('e2e-package-with-panel.png');
  // A row of the panel changes the viewer it was given.
  await tab.setPanelOpen(true);
  await tab.setFolderOpen('Sort & render', true);
  await tab.row('sort mode').locator('select').selectOption({ index: 1 });
  await tab.waitFor('the panel to set the sort mode', () => window.splatsortExample!.viewers[0]!.settings.sortMode !== 'gpu', undefined);
  expect(tab.errors).toEqual([]);
}, BROWSER_TEST_TIMEOUT_MS);

test("the engine entry draws splats into the page's own WebGPU frame, hidden behind the page's own triangle", async () => {
  const { page, tab } = fixture;
  await page.goto(`${fixture.url}examples/engine.html`);
  await tab.waitFor('the engine page to draw frames with its scene', () => (window.splatsortEngineExample?.frames ?? 0) > 2 || window.splatsortEngineExample?.error, undefined);
  const example = await page.evaluate(() => window.splatsortEngineExample!);
  expect(example.error).toBeNull();
  expect(example.splats).toBeGreaterThan(1000);
  const shot = decodePng(await readFile(await tab.saveScreenshot('e2e-engine-entry.png')));
  const at = (x: number, y: number) => {
    const i = 4 * (Math.round(y) * shot.width + Math.round(x));
    return [shot.rgba[i]!, shot.rgba[i + 1]!, shot.rgba[i + 2]!];
  };
  // The triangle, in front of the scene's middle, is the page's colour alone (#ff8000): no splat drawn over it.
  const [tx, ty] = example.trianglePixel!;
  const triangle = at(tx, ty);
  [255, 128, 0].forEach((v, i) => expect(Math.abs(triangle[i]! - v), `triangle ${triangle}`).toBeLessThanOrEqual(2));
  // And the scene around it: pixels neither the background (#101318) nor the triangle.
  let scene = 0;
  for (let y = 0; y < shot.height; y += 2) {
    for (let x = 0; x < shot.width; x += 2) {
      const [r, g, b] = at(x, y);
      const background = Math.abs(r! - 16) + Math.abs(g! - 19) + Math.abs(b! - 24) <= 6;
      const orange = Math.abs(r! - 255) + Math.abs(g! - 128) + Math.abs(b!) <= 6;
      if (!background && !orange) scene++;
    }
  }
  expect(scene, 'pixels of the scene').toBeGreaterThan((shot.width * shot.height) / 4 / 50);
  expect(tab.errors).toEqual([]);
}, BROWSER_TEST_TIMEOUT_MS);

/** Viewers made and destroyed in a row; each opens its scene and draws a frame before it goes. */
const CYCLES = 50;

test(`${CYCLES} viewers made and destroyed leave the live GPU objects, workers, observers and listeners where they started, and compile no pipeline after the first`, async () => {
  const { tab, page, empty } = await countedPageWithoutViewer();
  const result = await page.evaluate(async (cycles) => {
    const { createViewer } = window.splatsortExample!;
    const box = document.body.appendChild(document.createElement('div'));
    box.style.cssText = 'position: fixed; left: 0; top: 0; width: 64px; height: 48px;';
    const cycle = async () => {
      const viewer = await createViewer(box, { src: 'default-scene.ply', settings: { renderer: 'quads' } });
      await new Promise<void>((resolve, reject) => {
        viewer.on('error', ({ reason }) => reject(new Error(reason)));
        const off = viewer.on('frame', () => {
          if (viewer.state.splats > 0) {
            off();
            resolve();
          }
        });
      });
      viewer.destroy();
    };
    await cycle();
    const pipelinesAfterFirst = window.splatsortLive!().pipelinesMade;
    for (let i = 1; i < cycles; i++) await cycle();
    box.remove();
    return { pipelinesAfterFirst, children: box.childElementCount };
  }, CYCLES);
  const after = await waitForLive(tab, empty);
  expect(after).toEqual({ ...empty, pipelinesMade: result.pipelinesAfterFirst });
  expect(result.children).toBe(0);
  expect(tab.errors).toEqual([]);
  await page.close();
}, BROWSER_TEST_TIMEOUT_MS);

test('a load cancelled by destroy() ends as cancelled, says no error, and leaves nothing behind', async () => {
  let requested!: () => void;
  const arrived = new Promise<void>((resolve) => (requested = resolve));
  // The scene's download starts and is never answered: only destroy() ends the load.
  const { tab, page, empty: before } = await countedPageWithoutViewer((page) => page.route('**/held-scene.ply', () => requested()));
  const outcome = page.evaluate(async () => {
    const box = document.body.appendChild(document.createElement('div'));
    box.style.cssText = 'position: fixed; left: 0; top: 0; width: 64px; height: 48px;';
    const viewer = await window.splatsortExample!.createViewer(box);
    const errors: string[] = [];
    viewer.on('error', ({ reason }) => errors.push(reason));
    (window as unknown as { heldViewer: typeof viewer }).heldViewer = viewer;
    const outcome = await viewer.load('held-scene.ply');
    return { outcome, errors, canvases: box.querySelectorAll('canvas').length };
  });
  await arrived;
  await page.evaluate(() => (window as unknown as { heldViewer: { destroy(): void } }).heldViewer.destroy());
  expect(await outcome).toEqual({ outcome: 'cancelled', errors: [], canvases: 0 });
  const after = await waitForLive(tab, before);
  expect(after).toEqual({ ...before, pipelinesMade: after.pipelinesMade });
  expect(tab.errors).toEqual([]);
  await page.close();
}, BROWSER_TEST_TIMEOUT_MS);

test("the viewer page's panel, made with the viewer or shown later, hides and shows, and goes with the viewer: nothing of either is left", async () => {
  const { tab, page, empty: before } = await countedPageWithoutViewer();
  for (const how of ['made with the viewer', 'shown later'] as const) {
    const seen = await page.evaluate(async (how) => {
      const box = document.body.appendChild(document.createElement('div'));
      box.id = 'panel-box';
      const viewer = await window.splatsortExample!.createViewer(box, how === 'made with the viewer' ? { ui: true, src: 'default-scene.ply' } : { src: 'default-scene.ply' });
      await new Promise<void>((resolve) => viewer.on('loaded', () => resolve()));
      const shownFirst = viewer.ui;
      if (how === 'shown later') await viewer.setUi(true);
      const shown = { ui: viewer.ui, panels: document.querySelectorAll('.lil-gui.lil-root').length, hidden: document.body.classList.contains('ui-hidden') };
      await viewer.setUi(false);
      const hidden = { ui: viewer.ui, hidden: document.body.classList.contains('ui-hidden') };
      await viewer.setUi(true);
      (window as unknown as { panelViewer: typeof viewer }).panelViewer = viewer;
      return { shownFirst, shown, hidden, again: viewer.ui };
    }, how);
    expect(seen, how).toEqual({ shownFirst: how === 'made with the viewer', shown: { ui: true, panels: 1, hidden: false }, hidden: { ui: false, hidden: true }, again: true });
    const gone = await page.evaluate(() => {
      (window as unknown as { panelViewer: { destroy(): void } }).panelViewer.destroy();
      const box = document.getElementById('panel-box')!;
      const left = { children: box.childElementCount, panels: document.querySelectorAll('.lil-gui.lil-root').length, page: document.body.classList.contains('viewer') };
      box.remove();
      return left;
    });
    expect(gone, how).toEqual({ children: 0, panels: 0, page: false });
    const after = await waitForLive(tab, before);
    expect(after, how).toEqual({ ...before, pipelinesMade: after.pipelinesMade });
  }
  expect(tab.errors).toEqual([]);
  await page.close();
}, BROWSER_TEST_TIMEOUT_MS);
