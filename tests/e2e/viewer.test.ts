/**
 * The viewer in Chromium on SwiftShader: the default scene is drawn, the
 * camera responds to the mouse, the CPU sort takes over and hands back, a
 * scene opens through the file picker, and a broken file is reported on the
 * page while the current scene keeps rendering. One page for the whole file:
 * SwiftShader draws a few frames per second, so each state is reached once.
 * The stored default scene is drawn and orbited; from the view link on, the
 * page reloads with its light copy (tests/e2e/browser.ts), which the later
 * tests, about the panel, sorts and files, do not depend on.
 *
 * Built to hold on machines much slower than CI's (2 cores, no GPU): one
 * viewer page draws at a time (SwiftShader's GPU process takes every core
 * while a page draws, and two drawing pages starve each other), and every
 * wait is on the page's own state (ready, frames drawn, splat counts, the
 * panel's open state), giving up with what it waited for after
 * WAIT_TIMEOUT_MS.
 *
 * The tests are kept by subject in tests/e2e/viewer-page/ (the scene and
 * its view, the sorts, files, the up axis and help) and run here in that
 * order on the one page: a file of its own would cost each part another
 * Chromium and page load.
 */
import { describe, expect, it } from 'vitest';
import { BROWSER_TEST_TIMEOUT_MS, TestPage, useViewerPage } from './browser';
import { fileTests } from './viewer-page/files';
import type { Pictures } from './viewer-page/page-tools';
import { sceneAndViewTests } from './viewer-page/scene-and-view';
import { sortTests } from './viewer-page/sorts';
import { upAndHelpTests } from './viewer-page/up-and-help';

/** The default scene itself: the first tests look at it. */
const viewer = useViewerPage({ fullDefaultScene: true, renderer: 'auto' });
const page = () => viewer.page;
const pictures = {} as Pictures;

describe('viewer page', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  sceneAndViewTests(viewer, pictures);
  sortTests(viewer);
  fileTests(viewer, pictures);
  upAndHelpTests(viewer);

  it('logged no console errors', async () => {
    // The broken file is reported on the page only, never as a console error.
    expect(viewer.tab.errors).toEqual([]);
    await page().close();
  });

  // One more page load for both: a page without timestamp-query, opened from a link to a scene that is not there.
  let other: TestPage;

  it('names a link to a scene that is not there, and shows the default scene', async () => {
    other = await viewer.newPage();
    // Hide the feature from the device the viewer requests (the next test looks at what the page says of it).
    await other.page.addInitScript(() => {
      const requestDevice = GPUAdapter.prototype.requestDevice;
      GPUAdapter.prototype.requestDevice = function (descriptor?: GPUDeviceDescriptor) {
        const requiredFeatures = [...(descriptor?.requiredFeatures ?? [])].filter((f) => f !== 'timestamp-query');
        return requestDevice.call(this, { ...descriptor, requiredFeatures });
      };
    });
    // The server answers an unknown path with its index page, as the dev server and single-page hosts do.
    await other.page.goto(`${viewer.url}?url=no-such-scene.ply`);
    await other.waitFor('the viewer ready', 'document.body.dataset.viewer === "ready"');
    const s = await other.state();
    expect(s.sceneName).toBe('default-scene.ply');
    // The link's message stays up over the default scene; the state's error went when that scene opened.
    expect(s.lastError).toBeNull();
    expect(await other.page.locator('.message h2').allTextContents()).toEqual(['Could not open no-such-scene.ply']);
    expect(await other.page.locator('.message p').textContent()).toMatch(/no-such-scene\.ply is a web page, not a splat file/);
    // The address bar follows the view, and keeps the link's scene address so its typo can be fixed there.
    await other.waitFor('the view in the address', "new URL(location.href).searchParams.has('eye')");
    expect(await other.page.evaluate(() => new URL(location.href).searchParams.get('url'))).toBe('no-such-scene.ply');
  });

  it('says "n/a" for GPU timings where the device has no timestamp-query', async () => {
    expect(await other.page.locator('.stats-note').textContent()).toBe('GPU timings n/a: no timestamp-query');
    expect(await other.page.locator('.stats-na').count()).toBe(3);
    expect(other.errors).toEqual([]);
    await other.page.close();
  });
});
