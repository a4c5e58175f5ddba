/**
 * Files on the viewer page (tests/e2e/viewer.test.ts runs these on its one
 * page, in order, after sorts.ts): an SPZ with its anti-aliasing flag, a
 * .splat, a .sog bundle and a loose SOG meta.json open; a scene chosen in
 * the file picker replaces the one on screen; the scene on screen is saved
 * whole, as far as it is in view, or inside a box; and a broken file is
 * reported on the page while the current scene keeps rendering.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import type { ViewerPageFixture } from '../browser';
import { scenePath } from '../../shared-scenes';
import { parseSplatPly } from '../../../src/io/ply/parse';
import { bundleSog, writeSog } from '../../support/sog-writer';
import { realScene } from '../../support/real-scenes';
import { loadSplatFile } from '../../../src/io/parse-splat-file';
import { selectSplats } from '../../../src/app/session/splat-selection';
import type { FrameCamera } from '../../../src/render/frame-uniforms';
import { robustBounds, type Bounds, type SplatCloud } from '../../../src/scene/splat-cloud';
import { analyse, pageTools, SCENE_9K, type Pictures } from './page-tools';

/** Registers these tests in the calling describe, after sortTests; they compare with `pictures.default` and leave `pictures.loaded`. */
export function fileTests(viewer: ViewerPageFixture, pictures: Pictures): void {
  const { page, state, waitFor, guiRow, waitForRow, setPanelOpen, capture, select } = pageTools(viewer);
  let tempDir: string | undefined;
  afterAll(async () => {
    if (tempDir) await rm(tempDir, { recursive: true, force: true });
  });

  it('opens an SPZ (version 4, zstd streams), with its anti-aliasing flag, and a .splat file', async () => {
    await page().setInputFiles('#file-input', scenePath('playcanvas_biker_v4.spz'));
    await waitFor('the biker on screen', 'window.__splatsort.splats === 152746');
    await waitForRow('filter', '0.3 px²');
    // An SH-0 scene: the SH slider says 0 and offers nothing to choose.
    expect(await guiRow('SH degree').locator('input').inputValue()).toBe('0');
    expect(await guiRow('SH degree').getAttribute('class')).toMatch(/lil-disabled/);
    // The same file, flagged as trained anti-aliased (bit 0 of the header's flags byte): drawn with that filter.
    const flagged = await readFile(scenePath('playcanvas_biker_v4.spz'));
    flagged[14]! |= 1;
    await page().setInputFiles('#file-input', { name: 'biker-antialiased.spz', mimeType: 'application/octet-stream', buffer: flagged });
    await waitForRow('filter', '0.3 px², compensated, from file');
    expect(await guiRow('filter').getAttribute('title')).toBe('0.3 px² + opacity compensation (from SPZ flag "antialiased")');
    await page().setInputFiles('#file-input', scenePath('justdealman_model.splat'));
    await waitFor('the .splat scene on screen', 'window.__splatsort.splats === 116549');
    expect((await state()).lastError).toBeNull();
  });

  it('opens a .sog bundle, and a SOG meta.json picked with its images', async () => {
    const cloud = parseSplatPly(await readFile(SCENE_9K));
    const written = await writeSog(cloud, { shDegree: 1, paletteSize: 256 });
    await page().setInputFiles('#file-input', { name: 'scene.sog', mimeType: 'application/zip', buffer: Buffer.from(bundleSog(written)) });
    await waitFor('the SOG bundle on screen', "window.__splatsort.splats === 9080 && window.__splatsort.sceneName === 'scene.sog'");
    const loose = [
      { name: 'meta.json', mimeType: 'application/json', buffer: Buffer.from(written.metaJson) },
      ...[...written.files].map(([name, bytes]) => ({ name, mimeType: 'image/webp', buffer: Buffer.from(bytes) })),
    ];
    await page().setInputFiles('#file-input', loose);
    await waitFor('the SOG meta.json on screen', "window.__splatsort.sceneName === 'meta.json' && !window.__splatsort.loading");
    expect((await state()).splats).toBe(9080);
    expect((await state()).lastError).toBeNull();
  });

  it('opens a scene chosen in the file picker', async () => {
    await page().setInputFiles('#file-input', SCENE_9K);
    await waitFor('the 9k scene on screen', 'window.__splatsort.splats === 9080');
    await viewer.tab.waitForFrames(2);
    const s = await state();
    expect(s.sceneName).toBe('inria_kacytran_iter7000_9k_sh3.ply');
    expect(s.lastError).toBeNull();
    pictures.loaded = await capture('e2e-viewer-loaded-9k.png');
    const { drawn, changed, total } = analyse(pictures.loaded, pictures.default);
    expect(drawn / total).toBeGreaterThan(0.05);
    expect(changed / total).toBeGreaterThan(0.05);
  });

  it('saves the scene on screen: all of it as .spz, what is in view as .ply, a box as .splat', async () => {
    const scene = await realScene('inria_kacytran_iter7000_9k_sh3.ply');
    // The view the next tests compare with comes back at the end.
    const home = await viewer.tab.settledView();
    await setPanelOpen(true);
    await page().locator('.lil-gui .lil-title', { hasText: /^Save scene as$/ }).click();
    const save = async (): Promise<{ name: string; cloud: SplatCloud }> => {
      const [download] = await Promise.all([page().waitForEvent('download'), guiRow('save').locator('button').click()]);
      const name = download.suggestedFilename();
      return { name, cloud: await loadSplatFile(await readFile((await download.path())!), name) };
    };

    await select('format', '.spz (SPZ)');
    const all = await save();
    expect(all.name).toBe('inria_kacytran_iter7000_9k_sh3.spz');
    expect({ count: all.cloud.count, shDegree: all.cloud.shDegree }).toEqual({ count: 9080, shDegree: 3 });

    // In view: what the keep rule keeps from the frame the page drew, applied here to the scene as loaded.
    // From the middle of the scene, looking along +z: part of it is behind the eye or beside the view.
    const { min, max } = robustBounds(scene.positions, scene.count);
    const middle = [0, 1, 2].map((a) => (min[a]! + max[a]!) / 2) as [number, number, number];
    await page().evaluate((eye) => window.__splatsortViewer!.camera.set({ eye, target: [eye[0]!, eye[1]!, eye[2]! + 1], up: [0, -1, 0], fovyDeg: 50 }), middle);
    await select('format', '.ply (INRIA PLY)');
    await select('keep', 'only what is in view');
    await viewer.tab.settledView();
    // The frame the page drew last, matrices and all (its projection carries the lens shift the overlays ask for).
    const drawnFrame = () => page().evaluate(() => {
      const f = window.__splatsortViewer!.lastFrame;
      return { ...f, view: Array.from(f.view), projection: Array.from(f.projection), eye: Array.from(f.eye) };
    });
    // The save keeps what the frame drawn when it runs keeps: compared only where that frame is the one read
    // before and after it (an overlay that changes size, the stats' text, slides the lens shift a little).
    let saved: { drawn: Awaited<ReturnType<typeof drawnFrame>>; seen: Awaited<ReturnType<typeof save>> } | undefined;
    for (let attempt = 0; attempt < 5 && !saved; attempt++) {
      const before = await drawnFrame();
      const seen = await save();
      if (JSON.stringify(await drawnFrame()) === JSON.stringify(before)) saved = { drawn: before, seen };
      else await viewer.tab.settledView();
    }
    if (!saved) throw new Error('the drawn frame changed around each of 5 saves');
    const { drawn, seen } = saved;
    const frame = { ...drawn, view: new Float32Array(drawn.view), projection: new Float32Array(drawn.projection), eye: new Float32Array(drawn.eye) } as FrameCamera;
    const inView = selectSplats(scene, { keep: 'in-view', frame }).count;
    expect(seen.name).toBe('inria_kacytran_iter7000_9k_sh3.ply');
    console.log(`in view: ${seen.cloud.count} of ${scene.count} splats saved, ${inView} by the keep rule from the same view`);
    expect(inView).toBeLessThan(0.9 * scene.count);
    expect(inView).toBeGreaterThan(100);
    expect(seen.cloud.count).toBe(inView);

    // A box: exactly the splats whose centre is in it, with every value as loaded. A .splat keeps no SH:
    // saving says so first, and saves only when asked again.
    await select('format', '.splat');
    await select('keep', 'only inside the box');
    const box: Bounds = { min: [-35, -155, 60], max: [150, 35, 520] };
    await guiRow('box \\(min, max\\)').locator('input').fill([...box.min, ...box.max].join(', '));
    const warning = page().locator('.message', { hasText: 'Saving as .splat loses something' });
    const [boxedDownload] = await Promise.all([
      page().waitForEvent('download'),
      (async () => {
        await guiRow('save').locator('button').click();
        await warning.waitFor();
        expect(await warning.textContent()).toMatch(/SH/);
        await warning.locator('button', { hasText: 'Save anyway' }).click();
      })(),
    ]);
    const boxed = { name: boxedDownload.suggestedFilename(), cloud: await loadSplatFile(await readFile((await boxedDownload.path())!), boxedDownload.suggestedFilename()) };
    expect(boxed.name).toBe('inria_kacytran_iter7000_9k_sh3.splat');
    const expected = selectSplats(scene, { keep: 'box', box });
    expect(expected.count).toBeGreaterThan(100);
    expect(boxed.cloud.count).toBe(expected.count);
    expect(Buffer.from(boxed.cloud.positions.buffer).equals(Buffer.from(expected.positions.buffer))).toBe(true);

    // Nothing in the box: a message says so, and nothing is downloaded.
    await guiRow('box \\(min, max\\)').locator('input').fill('1e6, 1e6, 1e6, 2e6, 2e6, 2e6');
    await guiRow('save').locator('button').click();
    await warning.locator('button', { hasText: 'Save anyway' }).click();
    const nothing = page().locator('.message', { hasText: /Nothing to save: none of the scene's 9,080 splats is inside the box/ });
    await nothing.waitFor();
    await nothing.locator('button', { hasText: 'Dismiss' }).click();
    await select('keep', 'all splats');
    await page().locator('.lil-gui .lil-title', { hasText: /^Save scene as$/ }).click();
    await setPanelOpen(false);
    // The notices of the files saved go; the view saved from goes back to the one before.
    await page().evaluate(() => document.querySelectorAll<HTMLButtonElement>('.message button.dismiss').forEach((b) => b.click()));
    expect(await page().locator('.message').count()).toBe(0);
    await page().evaluate((view) => window.__splatsortViewer!.camera.set(view), home);
    await viewer.tab.waitForEye('the view before saving', home.eye);
    expect(viewer.tab.errors).toEqual([]);
  });

  it('reports a broken file on the page and keeps the current scene', async () => {
    tempDir = await mkdtemp(join(tmpdir(), 'splatsort-e2e-'));
    const broken = join(tempDir, 'broken.ply');
    await writeFile(broken, Buffer.from('not a ply file \u0000\u00ff\u0013 garbage garbage garbage'));
    await page().setInputFiles('#file-input', broken);
    await waitFor('the broken file reported', 'window.__splatsort.lastError !== null');
    const message = (await page().locator('.message').first().textContent()) ?? '';
    expect(message).toContain('broken.ply');
    const s = await state();
    expect(s.lastError).toContain('Could not open broken.ply');
    expect(s.splats).toBe(9080);
    expect(s.sceneName).toBe('inria_kacytran_iter7000_9k_sh3.ply');
    const frames = s.frames;
    await viewer.tab.waitForFrames(2);
    expect((await state()).frames).toBeGreaterThan(frames);
    const bad = await capture('e2e-viewer-bad-file.png');
    // The 9k scene is still on screen around the message.
    expect(analyse(bad, pictures.loaded).changed / analyse(bad).total).toBeLessThan(0.2);

    await page().locator('.message button', { hasText: 'Dismiss' }).click();
    expect(await page().locator('.message').count()).toBe(0);
  });
}
