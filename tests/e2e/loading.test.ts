/**
 * Loading in the browser as users meet it: a slow `?url=` scene replaced by
 * a file the user opens (the slow one is cancelled and nothing of it stays,
 * nor does its error), a scene drawn while it downloads, the progress bar's
 * Cancel button and Escape, a file that fails after part of it was drawn
 * (the scene before it comes back as the user left it), a malformed link,
 * and a file that loads with a warning. The slow scenes come from a local
 * server in this file that sends a little at a time and records how much it
 * sent and whether the browser hung up, so the tests see the download stop.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_TIMEOUT_MS, useViewerPage, WAIT_TIMEOUT_MS } from './browser';
import { decodePng } from '../../cli/png';
import { scenePath } from '../shared-scenes';
import { concat, inriaPly } from '../support/splat-files';

const SCENE_9K = scenePath('inria_kacytran_iter7000_9k_sh3.ply');
/** Sent at once, then TRICKLE_BYTES every TRICKLE_MS until released (80 KB/s). */
const FIRST_BYTES = 64 * 1024;
const TRICKLE_BYTES = 16 * 1024;
const TRICKLE_MS = 200;

/** One response of the slow server, as the server saw it. */
interface Delivery {
  sent: number;
  /** Bytes sent when the test released the rest. */
  sentAtRelease: number | undefined;
  /** The whole body went out. */
  finished: boolean;
  /** The browser closed the connection before the body was complete (an aborted download). */
  abandoned: boolean;
}

/**
 * Serves files slowly: each response sends FIRST_BYTES, then trickles until
 * release(), then sends the rest as fast as the socket takes it.
 */
class SlowServer {
  readonly deliveries = new Map<string, Delivery>();
  private readonly files = new Map<string, Uint8Array>();
  private released = false;
  private server!: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const path = new URL(request.url ?? '/', 'http://localhost').pathname;
      const body = this.files.get(path);
      if (!body) {
        response.writeHead(404, { 'Access-Control-Allow-Origin': '*' }).end();
        return;
      }
      response.writeHead(200, {
        'Content-Type': 'application/octet-stream',
        'Content-Length': String(body.length),
        'Access-Control-Allow-Origin': '*',
        'Cache-Control': 'no-store',
      });
      const delivery: Delivery = { sent: 0, sentAtRelease: undefined, finished: false, abandoned: false };
      this.deliveries.set(path, delivery);
      response.on('close', () => {
        delivery.abandoned = !delivery.finished;
      });
      void this.send(body, response, delivery);
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  serve(path: string, body: Uint8Array): string {
    this.files.set(path, body);
    return `${this.url}${path}`;
  }

  release(): void {
    this.released = true;
    for (const delivery of this.deliveries.values()) delivery.sentAtRelease ??= delivery.sent;
  }

  /** Back to trickling, for the next test. */
  hold(): void {
    this.released = false;
    this.deliveries.clear();
  }

  private async send(body: Uint8Array, response: ServerResponse, delivery: Delivery): Promise<void> {
    while (delivery.sent < body.length && !response.destroyed) {
      const size = delivery.sent === 0 ? FIRST_BYTES : this.released ? 256 * 1024 : TRICKLE_BYTES;
      const chunk = body.subarray(delivery.sent, Math.min(body.length, delivery.sent + size));
      delivery.sent += chunk.length;
      const drained = response.write(chunk);
      if (this.released) {
        if (!drained) await new Promise((resolve) => response.once('drain', resolve).once('close', resolve));
      } else {
        await new Promise((resolve) => setTimeout(resolve, TRICKLE_MS));
      }
    }
    if (delivery.sent >= body.length && !response.destroyed) {
      delivery.finished = true;
      response.end();
    }
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

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
  await page().evaluate(([url, name]) => void window.__splatsortViewer!.open(url!, { name: name! }), [sceneUrl, name]);
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
    await waitFor('extra.ply on screen', "window.__splatsort.sceneName === 'extra.ply'");
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

    // The home view moved with the scene: R goes to the whole scene's framing (the
    // viewer's home camera for this window), not to the framing of the part that
    // was on screen when the keys moved the view. A test that reads "home" while a
    // scene still loads waits for a view that R no longer goes to.
    const home = await page().evaluate(() => {
      const canvas = document.querySelector('canvas.viewer-canvas')!;
      return window.__splatsortViewer!.homeCamera(canvas.clientWidth, canvas.clientHeight).eye;
    });
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
      window.__splatsortViewer!.on('scene', (_facts, how) => seen.push(how));
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
    await waitFor('the viewer ready', 'document.body.dataset.viewer === "ready"');
    const s = await state();
    expect(s.sceneName).toBe('default-scene.ply');
    expect(s.lastError).toBe('Could not open http://[: The scene address "http://[" is not a valid URL');
    expect(await page().locator('.message h2').allTextContents()).toEqual(['Could not open http://[']);
    // The typo stays in the address bar, to be fixed there, while the view follows the camera.
    await waitFor('the view in the address', "new URL(location.href).searchParams.has('eye')");
    expect(await page().evaluate(() => new URL(location.href).searchParams.get('url'))).toBe('http://[');
    expect(viewer.tab.errors).toEqual([]);
  });
});
