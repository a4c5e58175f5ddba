/**
 * The viewer page's first tests (tests/e2e/viewer.test.ts runs them on its
 * one page, in order): the stored default scene is drawn framed in the
 * window, the camera orbits when the canvas is dragged, the view goes into
 * the address and a copied link opens the same view (from there on the page
 * has the light copy of the default scene), and a screenshot is saved at
 * twice the canvas size.
 */
import { readFile } from 'node:fs/promises';
import { expect, it } from 'vitest';
import { serveLightDefaultScene, type ViewerPageFixture } from '../browser';
import { decodePng } from '../../../cli/png';
import { analyse, pageTools, type Pictures } from './page-tools';

/** Registers these tests in the calling describe: the first on the page; they leave `pictures.default`. */
export function sceneAndViewTests(viewer: ViewerPageFixture, pictures: Pictures): void {
  const { page, state, waitFor, guiRow, setPanelOpen, capture, dragOnCanvas, select } = pageTools(viewer);

  it('draws the default scene framed in the window', async () => {
    expect(await page().evaluate(() => document.body.dataset.viewer)).toBe('ready');
    await viewer.tab.waitForFrames(2);
    const s = await state();
    expect(s).toMatchObject({ ready: true, sceneName: 'default-scene.ply', activeSort: 'GPU radix', lastError: null });
    expect(s.splats).toBeGreaterThan(30_000);
    expect(await guiRow('active').locator('input').inputValue()).toBe('GPU radix');
    expect(await guiRow('splats').locator('input').inputValue()).toBe(s.splats.toLocaleString('en-US'));
    pictures.default = await capture('e2e-viewer-default.png');
    const { drawn, total } = analyse(pictures.default);
    // The vase and its plinth fill a good part of the window, and do not spill over all of it.
    expect(drawn / total).toBeGreaterThan(0.08);
    expect(drawn / total).toBeLessThan(0.9);
  });

  it('orbits the camera when the canvas is dragged', async () => {
    const frames = (await state()).frames;
    await dragOnCanvas(0.15, -0.05);
    // The frame that started after the drag ended has the new camera.
    await waitFor('the second frame after the drag', `window.__splatsort.frames >= ${frames + 2}`);
    await viewer.tab.waitForFrames(1);
    const orbited = await capture('e2e-viewer-orbited.png');
    const { drawn, changed, total } = analyse(orbited, pictures.default);
    expect(drawn / total).toBeGreaterThan(0.08);
    expect(changed / total).toBeGreaterThan(0.02);
  });

  it('keeps the view in the URL, and a copied link opens the same view', async () => {
    // The orbit above moved the camera: the URL follows it (debounced).
    await waitFor('the view in the address', "new URL(location.href).searchParams.has('eye')");
    const link = await page().evaluate(() => location.href);
    const numbers = (href: string) => ['eye', 'target', 'up', 'fovy'].flatMap((k) => new URL(href).searchParams.get(k)!.split(',').map(Number));
    // The link opens in this same page, not in a second one: two viewer pages
    // drawing at once share SwiftShader's cores and starve each other. Its
    // numbers are spelled differently (1.5e+0 for 1.5, the same values), so
    // that the page's own rewrite of its URL shows, and is waited for.
    const respelled = new URL(link);
    for (const k of ['eye', 'target', 'up', 'fovy']) {
      respelled.searchParams.set(k, respelled.searchParams.get(k)!.split(',').map((v) => Number(v).toExponential()).join(','));
    }
    expect(numbers(respelled.href)).toEqual(numbers(link));
    // The link also names a renderer (auto, the default, is left out of links).
    expect(new URL(link).searchParams.has('renderer')).toBe(false);
    respelled.searchParams.set('renderer', 'quads');
    // From here on the page loads the light copy of the default scene (the view does not depend on it).
    await serveLightDefaultScene(viewer.context);
    await page().goto(respelled.href);
    await viewer.tab.waitForViewer();
    await viewer.tab.waitFor('the page to write its own view into its address', (opened) => location.href !== opened, respelled.href);
    // The restored page wrote its own view into its URL: the same view, to
    // double precision (the f32 matrices the GPU gets are equal).
    const [got, want] = [numbers(await page().evaluate(() => location.href)), numbers(link)];
    expect(got).toHaveLength(10);
    got.forEach((v, i) => expect(Math.abs(v - want[i]!)).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(want[i]!))));
    // The link's renderer draws, and stays in the address.
    expect(await page().evaluate(() => [new URL(location.href).searchParams.get('renderer'), window.__splatsort!.renderer.renderer, window.__splatsort!.renderer.state]))
      .toEqual(['quads', 'quads', 'set']);
    expect(viewer.tab.errors).toEqual([]);
  });

  it('saves a screenshot at twice the canvas size', async () => {
    // The panel starts closed in a window this small.
    await setPanelOpen(true);
    await select('screenshot size', '2× canvas');
    const [download] = await Promise.all([
      page().waitForEvent('download'),
      guiRow('screenshot \\(P\\)').locator('button').click(),
    ]);
    const size = await page().evaluate(() => [document.querySelector('canvas')!.width, document.querySelector('canvas')!.height]);
    const png = decodePng(await readFile((await download.path())!));
    expect([png.width, png.height]).toEqual([2 * size[0]!, 2 * size[1]!]);
    expect(download.suggestedFilename()).toBe(`splatsort-${png.width}x${png.height}.png`);
    await select('screenshot size', '1× canvas');
    await setPanelOpen(false);
  });
}
