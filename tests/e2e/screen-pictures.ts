/**
 * Pictures of the view on a page whose panel and stats cover part of the
 * canvas, the scene framed in the part they leave free (a lens shift):
 * P and capture() frame the scene itself, centred, as if nothing covered
 * the canvas; capture({ framing: 'screen' }) keeps the screen's framing;
 * and a camera file saved there renders, as the render command draws it
 * (cli/render-scene.ts, in Node: Dawn on SwiftShader), the picture the
 * screen showed.
 *
 * Run on a page that already shows a compact scene framed beside its
 * overlays (the desktop window's cube), its stats folded to a tab for the
 * while so the panel alone sets the framing, well off the window's
 * centre: the parts cost a few captures and one Node device, no page load.
 */
import { readFile } from 'node:fs/promises';
import { expect, it } from 'vitest';
import { decodePng } from '../../cli/png';
import { psnr } from '../../cli/picture-compare';
import { applyRenderSettings, openForRender } from '../../cli/render-scene';
import { parseCameraFile } from '../../src/app/camera/camera-file';
import { createNodeViewer } from '../../src/app/node-viewer';
import { hexToRgb } from '../../src/app/session/viewer-settings';
import { drawnBoxCentre } from '../support/test-view';
import type { ViewerPageFixture } from './browser';

/** The render command's picture of a saved camera against the screen's capture: at least this PSNR. */
const MIN_SCREEN_PSNR_DB = 45;
/** The size pictures are compared at: small, SwiftShader draws them in the page and in Node. */
const PICTURE = { width: 160, height: 100 } as const;

/**
 * Adds the tests to the calling file, on its page: `sceneFile()` is the
 * path of the scene on screen (a file the Node viewer opens as the render
 * command does).
 */
export function screenPictureTests(viewer: ViewerPageFixture, sceneFile: () => string): void {
  const page = () => viewer.page;
  const background = async () => hexToRgb(await page().evaluate(() => window.__splatsortViewer!.settings.background), [0, 0, 0]);
  /** The free rectangle's middle, in shares of the window's width and height. */
  const freeCentre = async (): Promise<[number, number]> => {
    const free = await viewer.tab.settledFraming();
    const [w, h] = await page().evaluate(() => [window.innerWidth, window.innerHeight]);
    return [(free.x + free.width / 2) / w!, (free.y + free.height / 2) / h!];
  };
  /** The screen's picture at PICTURE's size, and the camera file saved with it. */
  let onScreen: { width: number; height: number; rgba: Uint8Array } | undefined;
  let savedText: string | undefined;
  const capture = async (framing: 'scene' | 'screen' | undefined) => {
    const rgba = await page().evaluate(async ({ size, framing }) => Array.from((await window.__splatsortViewer!.capturePixels({ ...size, framing })).rgba), { size: PICTURE, framing });
    return { ...PICTURE, rgba: Uint8Array.from(rgba) };
  };

  it('takes a screenshot (P, capture) framed on the scene, centred, and as on screen when asked', async () => {
    // The stats folded to a tab: the panel alone beside the free part, whose middle is well left of the window's.
    // The camera jumps to the new framing rather than glide there: fewer frames to wait for (restored below).
    await page().evaluate(() => window.__splatsortViewer!.setSettings({ smoothCamera: false }));
    // (The page measures its overlays a moment after they change: the free part is first seen beside the open stats.)
    const stats = (await page().locator('.stats').boundingBox())!;
    const edge = stats.x + stats.width - 1;
    await viewer.tab.waitFor('the free part beside the open stats', (x) => window.__splatsort!.freeRect.x >= x, edge);
    await page().locator('.stats-toggle').click();
    await viewer.tab.waitFor('the free part past the folded stats', (x) => window.__splatsort!.freeRect.x < x, edge);
    const free = await freeCentre();
    const bg = await background();
    expect(Math.hypot(free[0] - 0.5, free[1] - 0.5)).toBeGreaterThan(0.08);
    // The screen's picture and its camera file, taken together: the next test renders that file.
    [onScreen, savedText] = [await capture('screen'), await page().evaluate(() => window.__splatsortViewer!.cameraFile())];
    const screen = drawnBoxCentre(onScreen, bg)!;
    const scene = drawnBoxCentre(await capture(undefined), bg)!;
    // P: the page's screenshot, at the canvas's size, downloaded.
    const download = page().waitForEvent('download');
    await page().keyboard.press('p');
    const png = decodePng(await readFile((await (await download).path())!));
    const pressed = drawnBoxCentre(png, bg)!;
    console.log(`drawn box centre: screen ${screen.map((v) => v.toFixed(3))}, free part ${free.map((v) => v.toFixed(3))}; scene ${scene.map((v) => v.toFixed(3))}; P ${pressed.map((v) => v.toFixed(3))} (${png.width}×${png.height})`);
    // The screen's picture is the scene's slid by the lens shift, to the free part's middle: the scene's is
    // centred (across; up and down the cube seen from above reaches lower than higher), and P's is the scene's.
    expect(Math.abs(scene[0] - 0.5)).toBeLessThan(0.02);
    for (const axis of [0, 1]) {
      expect(Math.abs(screen[axis]! - scene[axis]! - (free[axis]! - 0.5))).toBeLessThan(0.02);
      expect(Math.abs(pressed[axis]! - scene[axis]!)).toBeLessThan(0.01);
    }
  });

  it('renders a saved camera with the render command as the screen showed it, lens shift and all', async () => {
    try {
      if (!onScreen || !savedText) throw new Error('the screen\'s picture was not taken: this test follows the one before');
      const settings = await page().evaluate(() => window.__splatsortViewer!.settings);
      const saved = parseCameraFile(savedText);
      // Beside the overlays the file keeps a shift: without it the render command drew another picture.
      expect(Math.hypot(...saved.lens_shift!)).toBeGreaterThan(0.08);
      const { viewer: node, destroy } = await createNodeViewer('screen-pictures');
      try {
        // As the render command opens a scene and sets what it draws with (its flags the page's settings here).
        const warnings: string[] = [];
        await openForRender(node, sceneFile(), (warning) => warnings.push(warning));
        expect(warnings).toEqual([]);
        applyRenderSettings(node, { keyBits: settings.keyBits, antiAliasing: settings.antiAliasing, renderer: settings.renderer, order: settings.order, background: settings.background });
        const db = psnr((await node.render({ ...saved, ...PICTURE })).rgba, onScreen.rgba);
        const centred = psnr((await node.render({ ...saved, ...PICTURE, lens_shift: [0, 0] })).rgba, onScreen.rgba);
        console.log(`the render command's picture of the saved camera: ${db.toFixed(2)} dB against the screen's; without its lens shift ${centred.toFixed(2)} dB`);
        expect(db).toBeGreaterThanOrEqual(MIN_SCREEN_PSNR_DB);
        expect(centred).toBeLessThan(MIN_SCREEN_PSNR_DB - 20);
      } finally {
        destroy();
      }
    } finally {
      // The page as the tests after these expect it: the stats open, the camera gliding.
      if (await page().locator('.stats.stats-collapsed').count()) await page().locator('.stats-toggle').click();
      await viewer.tab.waitFor('the stats unfolded', () => !document.querySelector('.stats')!.classList.contains('stats-collapsed'), undefined);
      await page().evaluate(() => window.__splatsortViewer!.setSettings({ smoothCamera: true }));
    }
  });
}
