/**
 * Loading in the browser as users meet it: a slow `?url=` scene replaced by
 * a file the user opens (the slow one is cancelled and nothing of it stays,
 * nor does its error), a scene drawn while it downloads, the progress bar's
 * Cancel button and Escape, a file that fails after part of it was drawn
 * (the scene before it comes back as the user left it), a malformed or
 * empty link, a file that loads with a warning, the default scene
 * downloaded once and to its end, and a .splat that never ends, refused at
 * the bound the page's memory sets, after which the page's memory (its
 * renderer and GPU processes, read from /proc) is back where it was. The
 * slow and endless scenes come from local servers (./test-servers.ts) that
 * record how much they sent and whether the browser hung up, so the tests
 * see the download stop.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_TIMEOUT_MS, useViewerPage, WAIT_TIMEOUT_MS } from './browser';
import { decodePng } from '../../cli/png';
import { scenePath } from '../shared-scenes';
import { concat, inriaPly } from '../support/splat-files';
import { serveEndless, SlowServer, type Delivery } from './test-servers';
import { chromiumMemoryByType, chromiumPageMemory, mib } from '../support/chromium-memory';
import type { Request } from 'playwright-core';
import type { LoadLimits } from '../../src/io/load-limits';

const SCENE_9K = scenePath('inria_kacytran_iter7000_9k_sh3.ply');
/** Polls a condition of this process (the slow server's view) until it holds. */
async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + WAIT_TIMEOUT_MS;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The first page opens with a link of the first test's. */
const viewer = useViewerPage({ query: null });
const page = () => viewer.page;
const state = () => viewer.tab.state();
const waitFor = (what: string, predicate: string) => viewer.tab.waitFor(what, predicate);
let slow: SlowServer | undefined;
let tempDir: string;
let brokenUrl: string;
let slowUrl: string;
/** The slow scene's splats, and its bytes. */
const SLOW_SPLATS = 100_000;
let SLOW_BYTES = 0;

/** Opens the viewer with `?url=` set to `sceneUrl` (any text, encoded here), as a link does. */
async function openWithLink(sceneUrl: string): Promise<void> {
  await viewer.goto(`?url=${encodeURIComponent(sceneUrl)}`, { wait: false });
}

/** Opens `sceneUrl` in the viewer on the page, as a dropped file or a link opens a scene, without waiting for the load. */
async function openInViewer(sceneUrl: string, name: string): Promise<void> {
  await page().evaluate(([url, name]) => void window.__splatsortViewer!.load(url!, { name: name! }), [sceneUrl, name]);
}

/** Waits until the slow server is sending `path` and the page shows that it is loading. */
async function waitForSlowLoad(path: string): Promise<Delivery> {
  await until(() => (slow!.deliveries.get(path)?.sent ?? 0) > 0, `the page requests ${path}`);
  await waitFor(`the page loading ${path}`, 'window.__splatsort?.loading === true');
  return slow!.deliveries.get(path)!;
}

describe('loading in the browser', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  beforeAll(async () => {
    tempDir = await mkdtemp(join(tmpdir(), 'splatsort-loading-'));
    slow = new SlowServer();
    await slow.start();
    // 100k splats (6.8 MB): 85 s at the trickle rate, far longer than any test waits on it.
    const splats = SLOW_SPLATS;
    const slowScene = inriaPly({ count: splats });
    SLOW_BYTES = slowScene.length;
    slowUrl = slow.serve('/slow.ply', slowScene);
    // The same, with a NaN opacity in the last row: an error only at the end of the download.
    brokenUrl = slow.serve('/slow-broken.ply', inriaPly({ count: splats, value: (name, i) => (name === 'opacity' && i === splats - 1 ? NaN : undefined) }));
  }, BROWSER_TEST_TIMEOUT_MS);

  afterAll(async () => {
    await slow?.close();
    await rm(tempDir, { recursive: true, force: true });
  });

  it('cancels a slow ?url= scene when the user opens a file, and never shows it or its error', async () => {
    await openWithLink(brokenUrl);
    const delivery = await waitForSlowLoad('/slow-broken.ply');
    await page().setInputFiles('#file-input', SCENE_9K);
    await waitFor('the 9k scene on screen, loaded', "window.__splatsort.sceneName === 'inria_kacytran_iter7000_9k_sh3.ply' && !window.__splatsort.loading");
    // Had the slow download gone on, the rest would now arrive at once and end in its error.
    slow!.release();
    await until(() => delivery.abandoned || delivery.finished, 'the slow download ends');
    expect(delivery.abandoned).toBe(true);
    expect(delivery.sent - delivery.sentAtRelease!).toBeLessThan(2 * 2 ** 20);
    await viewer.tab.waitForFrames(2);
    const s = await state();
    expect(s.sceneName).toBe('inria_kacytran_iter7000_9k_sh3.ply');
    expect(s.splats).toBe(9080);
    expect(s.lastError).toBeNull();
    expect(await page().locator('.message').count()).toBe(0);
  });

  it('shows a warning, apart from errors, for a PLY with more data than its header declares', async () => {
    const path = join(tempDir, 'extra.ply');
    await writeFile(path, concat(inriaPly({ count: 500 }), new Uint8Array(1000)));
    await page().setInputFiles('#file-input', path);
    await waitFor('extra.ply on screen, loaded', "window.__splatsort.sceneName === 'extra.ply' && !window.__splatsort.loading");
    const s = await state();
    expect(s.splats).toBe(500);
    expect(s.lastError).toBeNull();
    expect(s.warnings).toEqual([expect.stringContaining('holds 1,000 bytes after the 500 splats its header declares')]);
    const warning = page().locator('.message[data-tone="warn"]');
    expect(await warning.locator('h2').textContent()).toBe('extra.ply opened with a warning');
    expect(await warning.locator('p').textContent()).toContain('1,000 bytes after the 500 splats');
    await warning.locator('button', { hasText: 'Dismiss' }).click();
    expect(await page().locator('.message').count()).toBe(0);
    expect(viewer.tab.errors).toEqual([]);
  });

  it('shows the scene while it downloads, leaves the camera where the user put it when the rest arrives, and R then goes to the whole scene\'s home', async () => {
    slow!.hold();
    await openInViewer(slowUrl, 'slow.ply');
    const delivery = await waitForSlowLoad('/slow.ply');
    // Splats on screen, drawn, long before the file is in (it trickles for 85 s).
    await waitFor('part of slow.ply on screen', "window.__splatsort.loading && window.__splatsort.sceneName === 'slow.ply' && window.__splatsort.splats > 0");
    await viewer.tab.waitForFrames(2);
    const during = await state();
    expect(during.loading).toBe(true);
    expect(during.splats).toBeLessThan(SLOW_SPLATS / 4);
    expect(delivery.finished).toBe(false);
    expect(delivery.sent).toBeLessThan(SLOW_BYTES / 4);
    console.log(`drawn while loading: ${during.splats} of ${SLOW_SPLATS} splats, ${delivery.sent} of ${SLOW_BYTES} bytes sent`);
    const shot = decodePng(await readFile(await viewer.tab.saveScreenshot('e2e-loading-preview.png')));
    const background = [0x10, 0x13, 0x18];
    let drawn = 0;
    for (let i = 0; i < shot.rgba.length; i += 4) {
      if (Math.abs(shot.rgba[i]! - background[0]!) + Math.abs(shot.rgba[i + 1]! - background[1]!) + Math.abs(shot.rgba[i + 2]! - background[2]!) > 24) drawn++;
    }
    expect(drawn / (shot.width * shot.height)).toBeGreaterThan(0.01);
    expect(await page().locator('.lil-gui .lil-controller').filter({ hasText: 'splats' }).first().locator('input').inputValue()).toMatch(/ so far$/);

    // The user turns the view while the rest arrives: the scene grows around their view, which stays.
    const framedPart = await viewer.tab.settledView();
    await page().keyboard.press('ArrowLeft');
    const turned = await viewer.tab.settledView();
    expect(turned.eye).not.toEqual(framedPart.eye);
    slow!.release();
    await waitFor('all of slow.ply on screen, loaded', `!window.__splatsort.loading && window.__splatsort.splats === ${SLOW_SPLATS}`);
    const after = await viewer.tab.settledView();
    expect((await state()).sceneName).toBe('slow.ply');
    expect((await state()).lastError).toBeNull();
    expect(after.eye).toEqual(turned.eye);
    expect(after.target).toEqual(turned.target);

    // The home view moved with the scene: R goes to the whole scene's framing (in
    // the part of this window the overlays leave free), not to the framing of the part that
    // was on screen when the keys moved the view. A test that reads "home" while a
    // scene still loads waits for a view that R no longer goes to.
    const home = await page().evaluate(() => window.__splatsortViewer!.homeView().eye);
    expect(Math.hypot(...home.map((v, i) => v - framedPart.eye[i]!))).toBeGreaterThan(1e-3 * Math.hypot(...home.map((v, i) => v - after.target[i]!)));
    await page().keyboard.press('r');
    await viewer.tab.waitForEye('the whole scene\'s home', home);
  });

  it('cancels a load with the progress bar\'s Cancel button, and shows the default scene instead', async () => {
    slow!.hold();
    await openWithLink(slowUrl);
    const delivery = await waitForSlowLoad('/slow.ply');
    await page().locator('.progress-cancel').click();
    await until(() => delivery.abandoned || delivery.finished, 'the slow download ends');
    expect(delivery.abandoned).toBe(true);
    // The default scene's own load has a progress bar too: it must have ended (not only drawn) for the bar to go.
    await waitFor('the default scene on screen, loaded', "window.__splatsort.sceneName === 'default-scene.ply' && window.__splatsort.ready && !window.__splatsort.loading");
    expect(await page().locator('.progress').isHidden()).toBe(true);
    expect((await state()).lastError).toBeNull();
    expect(await page().locator('.message').count()).toBe(0);
  });

  it('cancels a load with Escape: the scene before it stays', async () => {
    slow!.hold();
    await openInViewer(slowUrl, 'slow.ply');
    const delivery = await waitForSlowLoad('/slow.ply');
    await page().keyboard.press('Escape');
    await until(() => delivery.abandoned || delivery.finished, 'the slow download ends');
    expect(delivery.abandoned).toBe(true);
    await waitFor('the default scene on screen again', "window.__splatsort.sceneName === 'default-scene.ply' && !window.__splatsort.loading");
    expect((await state()).lastError).toBeNull();
  });

  it('a file that fails after it was drawn in part gives back the scene before it as the user left it', async () => {
    await page().setInputFiles('#file-input', SCENE_9K);
    await waitFor('the 9k scene on screen, loaded', "window.__splatsort.sceneName === 'inria_kacytran_iter7000_9k_sh3.ply' && !window.__splatsort.loading && window.__splatsort.ready");
    // The user's own up axis and flying speed.
    await viewer.tab.setPanelOpen(true);
    const row = (name: string) => viewer.tab.row(name);
    await row('up axis').locator('select').selectOption({ label: '+z' });
    await waitFor('+z up', "window.__splatsort.view.up.join() === '0,0,1'");
    await page().keyboard.press('c');
    await waitFor('fly mode in the link', "new URLSearchParams(location.search).get('mode') === 'fly'");
    const sceneSpeed = (await state()).flySpeed;
    const canvas = (await page().locator('canvas.viewer-canvas').boundingBox())!;
    await page().mouse.move(canvas.x + canvas.width / 2, canvas.y + canvas.height / 2);
    await page().mouse.wheel(0, -300);
    await waitFor('a faster flying speed', `window.__splatsort.flySpeed > ${sceneSpeed}`);
    const before = await state();
    const viewBefore = await viewer.tab.settledView();
    expect(await row('up axis from').locator('input').inputValue()).toBe('chosen in the panel');

    // 100k splats, the last with a NaN opacity: drawn as it decodes (framed
    // as a new scene, with its own up and speed), refused at the end.
    await page().evaluate(() => {
      const seen: string[] = ((window as { __scenesSeen?: string[] }).__scenesSeen = []);
      window.__splatsortViewer!.on('scenechange', (_facts, how) => seen.push(how));
    });
    const path = join(tempDir, 'broken-at-the-end.ply');
    await writeFile(path, inriaPly({ count: 100_000, value: (name, i) => (name === 'opacity' && i === 100_000 - 1 ? NaN : undefined) }));
    await page().setInputFiles('#file-input', path);
    await waitFor('the load refused', 'window.__splatsort.lastError !== null && !window.__splatsort.loading');
    // It was on screen in part, and the scene before it came back.
    expect(await page().evaluate(() => (window as { __scenesSeen?: string[] }).__scenesSeen)).toEqual(expect.arrayContaining(['preview', 'restored']));
    const viewAfter = await viewer.tab.settledView();
    const after = await state();
    expect(after.lastError).toContain('Could not open broken-at-the-end.ply');
    expect(after.sceneName).toBe('inria_kacytran_iter7000_9k_sh3.ply');
    expect(after.splats).toBe(9080);
    expect(viewAfter).toEqual(viewBefore);
    expect(after.flySpeed).toBe(before.flySpeed);
    expect(await row('up axis').locator('select').inputValue()).toBe('+z');
    expect(await row('up axis from').locator('input').inputValue()).toBe('chosen in the panel');
  });

  it('names a malformed link and shows the default scene', async () => {
    await openWithLink('http://[');
    await waitFor('the viewer ready', 'document.body.dataset.viewer === "ready" && !window.__splatsort.loading');
    const s = await state();
    expect(s.sceneName).toBe('default-scene.ply');
    // The link's message stays up over the default scene; the state's error went when that scene opened.
    expect(s.lastError).toBeNull();
    expect(await page().locator('.message h2').allTextContents()).toEqual(['Could not open http://[']);
    expect(await page().locator('.message p').allTextContents()).toEqual(['The scene address "http://[" is not a valid URL']);
    // The typo stays in the address bar, to be fixed there, while the view follows the camera.
    await waitFor('the view in the address', "new URL(location.href).searchParams.has('eye')");
    expect(await page().evaluate(() => new URL(location.href).searchParams.get('url'))).toBe('http://[');
    expect(viewer.tab.errors).toEqual([]);
  });

  it('refuses an empty ?url= with a message, fetching nothing for it, and shows the default scene', async () => {
    const fetched: string[] = [];
    const onRequest = (request: Request) => {
      if (request.resourceType() === 'fetch') fetched.push(request.url());
    };
    page().on('request', onRequest);
    await viewer.goto('?url=', { wait: false });
    await waitFor('the viewer ready', 'document.body.dataset.viewer === "ready" && !window.__splatsort.loading');
    page().off('request', onRequest);
    expect(await page().locator('.message h2').allTextContents()).toEqual(['Could not open the link\'s scene']);
    expect(await page().locator('.message p').allTextContents()).toEqual(['the link\'s url= is empty: it names no scene']);
    // The one download is the default scene's: nothing asked for the page's own address.
    expect(fetched).toEqual([expect.stringMatching(/\/default-scene[^/]*\.ply$/)]);
    expect((await state()).sceneName).toBe('default-scene.ply');
  });

  it('downloads the default scene once, and to its end (no request aborted)', async () => {
    const isDefaultScene = (request: Request) => /\/default-scene[^/]*\.ply$/.test(new URL(request.url()).pathname);
    const requested: string[] = [];
    const failed: string[] = [];
    const onRequest = (request: Request) => {
      if (isDefaultScene(request)) requested.push(request.url());
    };
    const onFailed = (request: Request) => {
      if (isDefaultScene(request)) failed.push(`${request.url()}: ${request.failure()?.errorText}`);
    };
    page().on('request', onRequest);
    page().on('requestfailed', onFailed);
    await viewer.goto('');
    // A frame or two more: an abort after the scene is on screen would show by now.
    await viewer.tab.waitForFrames(2);
    page().off('request', onRequest);
    page().off('requestfailed', onFailed);
    expect(requested).toHaveLength(1);
    expect(failed).toEqual([]);
  });

  it('stops an endless .splat at the bound this device\'s memory sets, and frees all it held', async () => {
    // 0.5 GiB of memory, as the page would read it: a load may hold 256 MiB.
    await page().addInitScript(() => Object.defineProperty(Navigator.prototype, 'deviceMemory', { get: () => 0.5, configurable: true }));
    await viewer.goto('');
    const limits = await page().evaluate(() => window.__splatsortViewer!.limits as LoadLimits);
    expect(limits.memory).toMatchObject({ hostBytes: 2 ** 29, budgetBytes: 2 ** 28 });
    const budget = limits.memory!.budgetBytes;
    const maxSplats = limits.maxSplats[0];
    const cdp = await viewer.context.newCDPSession(page());
    const endless = await serveEndless();
    const byType = () => Object.entries(chromiumMemoryByType()).map(([type, bytes]) => `${type} ${mib(bytes)}`).join(', ');

    /** Opens the endless stream, watches the page's memory until it is refused, and checks the refusal. */
    const refuse = async () => {
      let peak = 0;
      let mostShown = 0;
      await page().evaluate((url) => void window.__splatsortViewer!.load(url, { name: 'endless.splat' }), endless.url);
      const deadline = Date.now() + WAIT_TIMEOUT_MS;
      for (;;) {
        peak = Math.max(peak, chromiumPageMemory());
        const s = await state();
        if (s.loading && s.sceneName === 'endless.splat') mostShown = Math.max(mostShown, s.splats);
        if (!s.loading && s.lastError !== null) break;
        if (Date.now() > deadline) throw new Error(`the endless stream was not refused in ${WAIT_TIMEOUT_MS / 1000} s: ${s.splats} splats on screen`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const s = await state();
      expect(s.lastError).toMatch(new RegExp(
        `^Could not open endless\\.splat: The file holds at least [\\d,]+ splats of SH degree 0: more than the ${maxSplats.toLocaleString('en-US')} ` +
          'that fit in the 0\\.25 GiB a load may hold of this device\'s memory \\(0\\.5 GiB\\)$',
      ));
      // The scene before it came back, and the download stopped.
      expect(s.sceneName).toBe('default-scene.ply');
      const delivery = endless.deliveries.at(-1)!;
      await until(() => delivery.hungUp, 'the browser hangs up on the endless stream');
      // What was sent past the bound was in flight: the sockets' buffers, the
      // browser's network pipe, chunks the worker had not yet decoded
      // (measured: 35.8 MB sent for a 20.5 MB bound).
      expect(delivery.sent).toBeLessThan(2 * maxSplats * 32 + 16 * 2 ** 20);
      // Previews stopped growing at their share of the bound.
      expect(mostShown).toBeGreaterThan(0);
      expect(mostShown).toBeLessThanOrEqual(Math.floor(maxSplats / 4));
      return { peak, mostShown };
    };

    try {
      // The first large scene the page draws raises the GPU process's floor
      // for good (measured: +37 MiB after a first refused stream, and +28
      // MiB after a 150k-splat scene that opened and was replaced by the
      // default one; SwiftShader's and Dawn's own caches, not objects the
      // viewer holds), so the page is measured around a second stream: had
      // a refused load kept anything, every stream would add to it.
      const start = await settledMemory(cdp, 'before the first stream');
      const first = await refuse();
      const before = await settledMemory(cdp, 'after the first stream');
      const beforeByType = byType();
      const second = await refuse();
      const after = await settledMemory(cdp, 'after the second stream', before);
      console.log(
        `Chromium's pages and GPU process: ${mib(start)} at the start, first stream's peak +${mib(first.peak - start)}; ` +
          `${mib(before)} before the second (${beforeByType}), its peak ${mib(second.peak)} (+${mib(second.peak - before)}, bound ${mib(budget)}), ` +
          `${mib(after)} after (${byType()}); previews up to ${second.mostShown} of ${maxSplats} splats`,
      );
      for (const [peak, from] of [[first.peak, start], [second.peak, before]] as const) expect(peak - from).toBeLessThan(budget + PEAK_MARGIN_BYTES);
      expect(Math.abs(after - before)).toBeLessThanOrEqual(0.1 * before);
    } finally {
      await endless.close();
    }
  });
});

/**
 * What the page holds beyond a load's own bound at the peak of one: the
 * download's and postMessage's buffers in flight, the GPU process's
 * staging of each upload, and the frames drawn meanwhile.
 */
const PEAK_MARGIN_BYTES = 128 * 2 ** 20;

/**
 * The page's memory once it stops changing: garbage collected (the page's
 * heap; the GPU process frees destroyed buffers as frames go on), then read
 * every second until three readings in a row lie within 2 % of each other,
 * or, given `near`, one lies within 10 % of it. Fails past a deadline
 * saying what it read.
 */
async function settledMemory(cdp: import('playwright-core').CDPSession, what: string, near?: number): Promise<number> {
  const readings: number[] = [];
  const deadline = Date.now() + WAIT_TIMEOUT_MS;
  while (Date.now() < deadline) {
    await cdp.send('HeapProfiler.collectGarbage');
    await viewer.tab.waitForFrames(1);
    readings.push(chromiumPageMemory());
    const last = readings.slice(-3);
    const reading = last.at(-1)!;
    if (near !== undefined && Math.abs(reading - near) <= 0.1 * near) return reading;
    if (last.length === 3 && Math.max(...last) - Math.min(...last) <= 0.02 * Math.min(...last)) return reading;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  throw new Error(`the page's memory did not settle ${what} in ${WAIT_TIMEOUT_MS / 1000} s: ${readings.map(mib).join(', ')}`);
}
