/**
 * The viewer page's up axis and help (tests/e2e/viewer.test.ts runs these
 * on its one page, in order, after files.ts): a scene whose up nothing
 * settles gets an offer to turn it over, which I takes and a scene with a
 * ground or a footing never shows; H and Escape toggle the keyboard help, which fits
 * whole, with the loading bar beside the panel, in a window 500 px high.
 */
import { expect, it } from 'vitest';
import type { ViewerPageFixture } from '../browser';
import { writeSplatPly } from '../../support/ply-writer';
import { aerialTown, cloudOf, figure, placed } from '../../support/up-scenes';
import { writeSpz } from '../../../src/io/writers/spz';
import { UP_BY_CONVENTION } from '../../../src/app/camera/framing';
import { pageTools, SCENE_9K, VIEWPORT } from './page-tools';

/** Registers these tests in the calling describe, after fileTests (they start from the 9k scene it leaves open). */
export function upAndHelpTests(viewer: ViewerPageFixture): void {
  const { page, state, waitFor, guiRow, setPanelOpen } = pageTools(viewer);

  it('offers to turn over a scene whose up is only the convention; I turns it and the offer goes, as it does for a scene with a ground', async () => {
    // The 9k scene: no ground to go by, so −y by convention, and the offer under its name.
    const hint = page().locator('.up-hint');
    expect((await state()).up.source).toBe(UP_BY_CONVENTION);
    await setPanelOpen(true);
    await hint.waitFor({ state: 'visible' });
    expect(await hint.textContent()).toBe('upside down? press I');

    // In an 800 × 500 window the up axis, the file's name and the offer show whole in their rows (the name wrapping).
    await page().setViewportSize({ width: 800, height: 500 });
    await waitFor('the panel beside the scene', "!document.body.classList.contains('narrow-window')");
    const rows = ['.up-hint', ...['file', 'up axis from'].map((name) => `row:${name}`), 'select:up axis'];
    await viewer.tab.waitFor('every row fitted to its width', (rows: string[]) => rows.every((what) => {
      const [kind, name] = what.split(':');
      const row = Array.from(document.querySelectorAll('.lil-gui .lil-controller')).find((c) => c.querySelector('.lil-name')?.textContent === name);
      const shown = kind === 'row' ? row?.querySelector('.read-only-text') : kind === 'select' ? row?.querySelector('.lil-display') : document.querySelector(what);
      return !!shown && shown.clientWidth > 0 && shown.scrollWidth <= shown.clientWidth;
    }), rows);
    const file = guiRow('file');
    // Whole, not cut: a name longer than its row wraps onto another line; the tooltip has it too.
    expect(await file.locator('.read-only-text').textContent()).toBe('inria_kacytran_iter7000_9k_sh3.ply');
    expect(await file.getAttribute('title')).toBe('inria_kacytran_iter7000_9k_sh3.ply');
    await page().setViewportSize(VIEWPORT);
    await waitFor('the panel a sheet again', "document.body.classList.contains('narrow-window')");

    // I turns the scene over: +y up, framed anew; the offer goes and stays gone.
    await page().keyboard.press('i');
    await waitFor('+y up', "window.__splatsort.view.up.join() === '0,1,0'");
    await hint.waitFor({ state: 'hidden' });
    expect((await state()).up).toMatchObject({ axis: '+y', source: 'chosen in the panel' });
    expect(await guiRow('up axis').locator('select').inputValue()).toBe('+y');
    await page().keyboard.press('i');
    await waitFor('−y up again', "window.__splatsort.view.up.join() === '0,-1,0'");
    expect(await hint.isHidden()).toBe(true);

    // The scene opened anew is −y by convention again, with the offer; a town on its ground (+z up) is guessed, without it.
    await page().setInputFiles('#file-input', SCENE_9K);
    await viewer.tab.waitFor('the 9k scene by convention', (source: string) => window.__splatsort!.up.source === source, UP_BY_CONVENTION);
    await hint.waitFor({ state: 'visible' });
    const town = cloudOf(placed(aerialTown(), '+z'));
    await page().setInputFiles('#file-input', { name: 'town.ply', mimeType: 'application/octet-stream', buffer: Buffer.from(writeSplatPly(town)) });
    await waitFor('the town on screen', `window.__splatsort.splats === ${town.count} && !window.__splatsort.loading`);
    expect((await state()).up.axis).toBe('+z');
    await hint.waitFor({ state: 'hidden' });
    // An SPZ that records no frame, holding PLY's axes as most converters write them, reads upside down
    // as the format's RUB: the figure's footing stands it up, settled, without the offer.
    const figureSpz = writeSpz(cloudOf(placed(figure(), '+y')));
    await page().setInputFiles('#file-input', { name: 'figure.spz', mimeType: 'application/octet-stream', buffer: Buffer.from(figureSpz) });
    await waitFor('the figure on screen', "window.__splatsort.sceneName === 'figure.spz' && !window.__splatsort.loading");
    expect((await state()).up).toMatchObject({ axis: '+y', source: 'guessed (its footing)', unsure: false });
    await hint.waitFor({ state: 'hidden' });
    await setPanelOpen(false);
  });

  it('toggles the keyboard help with H and closes it with Escape', async () => {
    await page().locator('.viewer-canvas').focus();
    await page().keyboard.press('h');
    const help = page().locator('.help');
    // Waits on the page's state, not a time: expect.poll gives up after 1 s.
    await help.waitFor({ state: 'visible' });
    expect(await help.isVisible()).toBe(true);
    for (const text of ['Left drag', 'Orbit', 'Wheel', 'H or ?']) expect(await help.textContent()).toContain(text);
    // It names every format the viewer opens, not only .ply.
    expect(await help.textContent()).toContain('Drop a splat file (.ply .splat .spz .ksplat .sog .glb .gltf, or a glTF with its buffers or a SOG meta.json with its images) anywhere');
    await page().keyboard.press('Escape');
    await help.waitFor({ state: 'hidden' });
    expect(await help.isVisible()).toBe(false);
    expect(await page().locator('.hint').textContent()).toBe('H for help');
  });

  it('fits the whole help, and the loading bar beside the panel, in a window 500 px high', async () => {
    await page().setViewportSize({ width: 800, height: 500 });
    try {
      await setPanelOpen(false);
      await page().locator('.viewer-canvas').focus();
      await page().keyboard.press('h');
      const help = page().locator('.help');
      await help.waitFor({ state: 'visible' });
      // Nothing scrolled out of sight: the last key (Esc) and the Close button are in the window.
      const fit = await help.evaluate((e) => ({ scroll: e.scrollHeight, client: e.clientHeight }));
      expect(fit.scroll).toBeLessThanOrEqual(fit.client);
      for (const part of [help.locator('dt', { hasText: 'Esc' }), help.locator('button', { hasText: 'Close' })]) {
        const box = (await part.boundingBox())!;
        expect(box.y + box.height).toBeLessThanOrEqual(500);
      }
      await page().keyboard.press('Escape');
      await help.waitFor({ state: 'hidden' });
      // The loading bar as a load shows it, against the panel's title bar (closed) and the open panel.
      const overlaps = await page().evaluate(() => {
        const bar = document.querySelector<HTMLElement>('.progress')!;
        bar.hidden = false;
        const a = bar.getBoundingClientRect();
        const b = document.querySelector('.lil-gui.lil-root > .lil-title')!.getBoundingClientRect();
        bar.hidden = true;
        return a.right > b.left && b.right > a.left && a.bottom > b.top && b.bottom > a.top;
      });
      expect(overlaps).toBe(false);
    } finally {
      await page().setViewportSize(VIEWPORT);
    }
  });
}
