/**
 * A tall scene framed whole in the part of a desktop window the open
 * panel leaves uncovered: clear of every edge, centred there rather than
 * in the window, filling a fair part of the height; and the panel's Scene
 * folder tells about it (SH degree, file size, load time, extent, frame
 * rate). A part of tests/e2e/desktop-window.test.ts, kept apart for its
 * length; run last there, as a tall, thin scene makes every frame after
 * it slower.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { decodePng } from '../../cli/png';
import { loadSplatFile } from '../../src/io/parse-splat-file';
import { formatBytes } from '../../src/ui/scene-facts';
import { scenePath } from '../shared-scenes';
import { writeSplatPly } from '../support/ply-writer';
import { thinnedScene } from '../support/thinned-scene';
import type { ViewerPageFixture } from './browser';

/** The test, on `viewer`'s page (its window's size read from the page); `folder` gives a folder to write the scene in. */
export function framedWholeTest(viewer: ViewerPageFixture, folder: () => Promise<string>): void {
  /** The text a read-only panel row shows. */
  const rowValue = (name: string) => viewer.tab.row(name).locator('input').inputValue();
  it('frames a scene whole in the part of the window the open panel leaves uncovered', async () => {
    // The biker (152k splats, a figure 3.3 units tall) thinned to one splat in four, their sizes
    // kept: the same outline and bounds; drawn at 1280×800 at the full count, each frame took
    // several seconds.
    const biker = await loadSplatFile(new Uint8Array(await readFile(scenePath('playcanvas_biker_v4.spz'))), 'playcanvas_biker_v4.spz');
    const file = join(await folder(), 'biker-light.ply');
    await writeFile(file, writeSplatPly(thinnedScene(biker, 4, { grow: false })));
    await viewer.page.setInputFiles('#file-input', file);
    await viewer.tab.waitFor('the biker on screen, loaded', "window.__splatsort.sceneName === 'biker-light.ply' && !window.__splatsort.loading");
    const free = await viewer.tab.settledFraming();
    const { width, height } = viewer.page.viewportSize()!;
    const panel = await viewer.page.locator('.lil-gui.lil-root').boundingBox();
    expect(panel).not.toBeNull();
    const shot = decodePng(await readFile(await viewer.tab.saveScreenshot('e2e-framing-biker-1280x800.png')));
    const background = [0x10, 0x13, 0x18];
    // The stats, the help hint and any message lie over the canvas: their pixels are not the scene's.
    const chrome = await viewer.page.evaluate(() =>
      [...document.querySelectorAll('.stats, .hint, .messages, .progress, .help')].map((e) => e.getBoundingClientRect().toJSON() as DOMRect),
    );
    const drawn = (x: number, y: number) => {
      if (chrome.some((r) => x >= r.x && x < r.x + r.width && y >= r.y && y < r.y + r.height)) return false;
      const i = 4 * (y * shot.width + x);
      return Math.abs(shot.rgba[i]! - background[0]!) + Math.abs(shot.rgba[i + 1]! - background[1]!) + Math.abs(shot.rgba[i + 2]! - background[2]!) > 24;
    };
    // The scene's drawn extent, over the part of the window left of the panel.
    const left = Math.floor(panel!.x);
    let top = height, bottom = -1, right = -1, first = width;
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < left; x++) {
        if (!drawn(x, y)) continue;
        top = Math.min(top, y);
        bottom = Math.max(bottom, y);
        first = Math.min(first, x);
        right = Math.max(right, x);
      }
    }
    console.log(`biker drawn over x ${first}..${right}, y ${top}..${bottom}; the panel starts at x ${left}`);
    // Whole: clear of every edge of the uncovered part, the top (the head) included.
    expect(top).toBeGreaterThan(0.02 * height);
    expect(bottom).toBeLessThan(0.98 * height);
    expect(first).toBeGreaterThan(0);
    expect(right).toBeLessThan(left - 1);
    // And centred in the part the panel and the stats leave free, not in the window.
    expect(free.x + free.width).toBeLessThanOrEqual(left + 1);
    expect(Math.abs((first + right) / 2 - (free.x + free.width / 2))).toBeLessThan(0.1 * free.width);
    // Fitted, not merely inside: it fills a fair part of the height.
    expect(bottom - top).toBeGreaterThan(0.4 * height);

    // The Scene folder tells about it: SH degree, file size, load time, extent, frame rate.
    expect(await rowValue('SH in file')).toBe('0');
    expect(await rowValue('file size')).toBe(formatBytes((await stat(file)).size));
    expect(await rowValue('load time')).toMatch(/^\d+ ms$|^[\d.]+ s$/);
    expect(await rowValue('extent')).toMatch(/^[\d.]+ × 3\.\d\d × [\d.]+$/);
    // The frame rate shows once a second of frames is counted.
    await viewer.tab.waitFor('a frame rate in the panel', () => {
      const row = [...document.querySelectorAll('.lil-gui .lil-controller')].find((c) => c.querySelector('.lil-name')?.textContent === 'FPS');
      return /^[\d.]+$/.test((row?.querySelector('input') as HTMLInputElement | null)?.value ?? '');
    }, undefined);
    expect(viewer.tab.errors).toEqual([]);
  });
}
