/**
 * The browser tests' fixture: Debian's Chromium with WebGPU on SwiftShader
 * (CPU Vulkan), so the page runs its real GPU code on machines without a
 * GPU, showing the viewer page that tests/e2e/global-setup.ts built and
 * serves once for all the files.
 *
 * `useViewerPage(options)` at the top of a file gives the file one browser
 * and one page, loaded once and shared by its tests in order (a page load
 * costs ~15 s of GPU pipeline creation on SwiftShader); a test that needs
 * a fresh page or another one says so (goto, newPage). The page opens with
 * the default scene thinned to one splat in eight unless the file asks for
 * the stored one: the same vase, framed the same, for a quarter of the
 * frame time (tests whose subject is the scene ask for `fullDefaultScene`),
 * and with the quad renderer unless the file asks for another: SwiftShader
 * draws the tile renderer's frames in seconds (4.8 s against 0.17 s at
 * 800×500), so "auto", which times both on every new scene and window
 * size, would cost every page load a few of them and the making of the
 * tile pipelines (tests/e2e/renderer.test.ts and viewer.test.ts open the
 * page as a user does, on auto).
 *
 * Every wait is on the page's own state (window.__splatsort, the DOM),
 * never on a time, and gives up after WAIT_TIMEOUT_MS with what it waited
 * for and what the page showed then.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { errors as playwrightErrors, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, inject } from 'vitest';
import type { CameraView } from '../../src/app/camera/orbit-camera';
import type { ViewerState } from '../../src/app/session/viewer-state';
import type { RendererSetting } from '../../src/render/frame-renderer';
import { launchChromium as launchWithin } from './chromium.mjs';

export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const RESULTS_DIR = join(PROJECT_ROOT, 'test-results');

/**
 * The window every page opens with unless a file asks for another. Small,
 * because SwiftShader rasterizes on the CPU and a page that is busy drawing
 * is slow to answer everything else (clicks, screenshots).
 */
export const BROWSER_VIEWPORT = { width: 480, height: 360 } as const;

/**
 * The longest any one wait on a page may take before it fails with its own
 * message. The slowest legitimate wait (a page load: device, pipelines,
 * scene, first frame) took ~30 s on 2 cores busy with other work; this
 * leaves room for a machine several times slower than that.
 */
export const WAIT_TIMEOUT_MS = 180_000;

/** The time one browser test may take in all (several waits): only the point at which a test is declared stuck. */
export const BROWSER_TEST_TIMEOUT_MS = 600_000;

export interface ViewerPageOptions {
  viewport?: { width: number; height: number };
  /** A touch screen as the only pointer (touch events, `pointer: coarse`), as on a phone. */
  touch?: boolean;
  /** The stored default scene (37k splats) instead of its light copy. */
  fullDefaultScene?: boolean;
  /**
   * What beforeAll opens: a query for the viewer page ('' by default: the
   * page as a user opens it), or null for nothing (the file navigates
   * itself).
   */
  query?: string | null;
  /** The renderer `goto` asks for where its query names none (default 'quads'; 'auto' asks for nothing: the page's default). */
  renderer?: RendererSetting;
}

/** Launches Chromium (chromium.mjs); throws (never skips) when it is missing. */
export function launchChromium(): Promise<Browser> {
  return launchWithin(WAIT_TIMEOUT_MS);
}

/** A page of the file's browser, with what went wrong in it recorded. */
export class TestPage {
  /** Console errors, uncaught page errors and failed HTTP responses seen so far. */
  readonly errors: string[] = [];

  constructor(readonly page: Page) {
    page.on('console', (message) => {
      if (message.type() === 'error') this.errors.push(`console.error: ${message.text()}`);
    });
    page.on('pageerror', (error) => this.errors.push(`page error: ${error.stack ?? error.message}`));
    // The console's "Failed to load resource" line omits the URL: record it here.
    page.on('response', (response) => {
      if (response.status() >= 400) this.errors.push(`HTTP ${response.status()}: ${response.url()}`);
    });
  }

  /** The viewer page's state for automated checks (window.__splatsort). */
  state(): Promise<ViewerState> {
    return this.page.evaluate(() => window.__splatsort as ViewerState);
  }

  /**
   * Waits until `predicate` (an expression, or a function of `arg`) holds
   * in the page; past WAIT_TIMEOUT_MS (or `timeout`) fails saying `what`
   * was awaited and what the page showed.
   */
  async waitFor(what: string, predicate: string, arg?: undefined, timeout?: number): Promise<void>;
  async waitFor<A>(what: string, predicate: (arg: A) => unknown, arg: A, timeout?: number): Promise<void>;
  async waitFor(what: string, predicate: string | ((arg: never) => unknown), arg?: unknown, timeout = WAIT_TIMEOUT_MS): Promise<void> {
    try {
      // (Playwright takes either form; its types want the function's argument type spelled out.)
      await this.page.waitForFunction(predicate as string, arg, { polling: 100, timeout });
    } catch (error) {
      if (!(error instanceof playwrightErrors.TimeoutError)) throw error;
      throw new Error(`gave up after ${timeout / 1000} s waiting for ${what}${typeof predicate === 'string' ? ` (${predicate})` : ''}; the page: ${await this.describe()}`);
    }
  }

  /** Waits until the viewer has drawn `count` more frames. */
  async waitForFrames(count: number): Promise<void> {
    const start = (await this.state()).frames;
    await this.waitFor(`${count} more frames after frame ${start}`, `window.__splatsort.frames >= ${start + count}`);
  }

  /** Waits until the viewer has shown its first scene and drawn it, its load over. */
  async waitForViewer(): Promise<void> {
    await this.waitFor('the viewer to show its first scene, loaded', "document.body.dataset.viewer === 'ready' && !window.__splatsort.loading");
  }

  /**
   * The camera once it has come to rest: the drawn camera glides to where
   * the controls moved it (camera damping), and its lens shift to the
   * overlays' insets (a panel row shown or hidden moves them), so this
   * waits until two frames in a row show the same view through the same
   * insets, and returns the view.
   */
  async settledView(): Promise<CameraView> {
    const deadline = Date.now() + WAIT_TIMEOUT_MS;
    const seen: string[] = [];
    while (Date.now() < deadline) {
      const { view, insets, frames } = await this.state();
      await this.waitFor(`the frame after frame ${frames}`, `window.__splatsort.frames > ${frames}`);
      const next = await this.state();
      if (JSON.stringify([next.view, next.insets]) === JSON.stringify([view, insets])) return next.view;
      seen.push(JSON.stringify(next.view.eye));
    }
    throw new Error(`the view did not come to rest in ${WAIT_TIMEOUT_MS / 1000} s; the last eyes: ${seen.slice(-3).join(', ')}`);
  }

  /**
   * The framing once it has followed the page's overlays: the last frame's
   * lens shift is that of the free rectangle the page measured, and the
   * view is at rest. Returns the free rectangle.
   */
  async settledFraming(): Promise<ViewerState['freeRect']> {
    await this.waitFor('the lens shift at the free rectangle', () => {
      const { freeRect: r, insets } = window.__splatsort!;
      const canvas = document.querySelector('canvas')!;
      const [w, h] = [canvas.clientWidth, canvas.clientHeight];
      const want = { left: r.x / w, top: r.y / h, right: 1 - (r.x + r.width) / w, bottom: 1 - (r.y + r.height) / h };
      return (Object.keys(want) as (keyof typeof want)[]).every((side) => Math.abs(insets[side] - want[side]) < 1e-4);
    }, undefined);
    await this.settledView();
    return (await this.state()).freeRect;
  }

  /**
   * The scene on screen drawn again without the page's overlays (the
   * Viewer's capture at the window's size in CSS pixels, framed as on
   * screen): how many pixels
   * show the scene (not the background), how many of them lie under each
   * of `selectors`' boxes (the first element of each; none when hidden),
   * and the box they span.
   */
  async sceneCoverage(selectors: string[]): Promise<{ drawn: number; under: number[]; box: { left: number; top: number; right: number; bottom: number } }> {
    return this.page.evaluate(async (selectors) => {
      const viewer = window.__splatsortViewer!;
      const [w, h] = [window.innerWidth, window.innerHeight];
      const { rgba } = await viewer.capturePixels({ width: w, height: h, framing: 'screen' });
      const hex = Number.parseInt(viewer.settings.background.slice(1), 16);
      const background = [(hex >> 16) & 255, (hex >> 8) & 255, hex & 255];
      const boxes = selectors.map((s) => document.querySelector(s)?.getBoundingClientRect() ?? null);
      const under = selectors.map(() => 0);
      let drawn = 0, left = w, top = h, right = -1, bottom = -1;
      for (let y = 0; y < h; y++) {
        for (let x = 0; x < w; x++) {
          const i = 4 * (y * w + x);
          if (Math.abs(rgba[i]! - background[0]!) + Math.abs(rgba[i + 1]! - background[1]!) + Math.abs(rgba[i + 2]! - background[2]!) <= 30) continue;
          drawn++;
          [left, top, right, bottom] = [Math.min(left, x), Math.min(top, y), Math.max(right, x), Math.max(bottom, y)];
          boxes.forEach((b, k) => {
            if (b && b.width > 0 && x >= b.left && x < b.right && y >= b.top && y < b.bottom) under[k]!++;
          });
        }
      }
      return { drawn, under, box: { left, top, right, bottom } };
    }, selectors);
  }

  /** Waits until a frame is drawn from `eye` (within 1e-6 of the viewing distance). */
  async waitForEye(what: string, eye: readonly number[]): Promise<void> {
    await this.waitFor(`the eye at ${what} [${eye.join(', ')}]`, (want) => {
      const { eye: got, target } = window.__splatsort!.view;
      const far = Math.hypot(got[0] - target[0], got[1] - target[1], got[2] - target[2]);
      return Math.hypot(got[0] - want[0]!, got[1] - want[1]!, got[2] - want[2]!) <= 1e-6 * far;
    }, [...eye]);
  }

  /**
   * Opens the viewer's settings panel (closed by default on narrow
   * windows), or closes it, and waits for its animation to end: during it
   * (class lil-transition) its rows take no pointer events. `tap` on a
   * touch screen.
   */
  async setPanelOpen(open: boolean, how: 'click' | 'tap' = 'click'): Promise<void> {
    const title = this.page.locator('.lil-gui.lil-root > .lil-title');
    if ((await title.getAttribute('aria-expanded')) !== String(open)) await (how === 'tap' ? title.tap() : title.click());
    await this.waitFor(`the panel ${open ? 'open' : 'closed'}`, (want) => {
      const root = document.querySelector('.lil-gui.lil-root');
      // (lil-gui may leave the children's inline height set after the
      // animation, so the class is what tells it has ended.)
      return root !== null && root.classList.contains('lil-closed') === !want && !root.classList.contains('lil-transition');
    }, open);
  }

  /**
   * Opens or closes a folder of the open settings panel by its title (the
   * sort and render controls wait in the closed "Sort & render"), and waits
   * for its animation to end.
   */
  async setFolderOpen(title: string, open: boolean, how: 'click' | 'tap' = 'click'): Promise<void> {
    const bar = this.page.locator('.lil-gui .lil-title', { hasText: new RegExp(`^${title}$`) });
    if ((await bar.getAttribute('aria-expanded')) !== String(open)) await (how === 'tap' ? bar.tap() : bar.click());
    await this.waitFor(`the ${title} folder ${open ? 'open' : 'closed'}`, ({ title, open }) => {
      const folder = [...document.querySelectorAll('.lil-gui')].find((g) => g.querySelector(':scope > .lil-title')?.textContent === title);
      return folder !== undefined && folder.classList.contains('lil-closed') === !open && !folder.classList.contains('lil-transition');
    }, { title, open });
  }

  /** A row of the settings panel, by its exact name. */
  row(name: string): Locator {
    return this.page.locator('.lil-gui .lil-controller').filter({ has: this.page.locator('.lil-name', { hasText: new RegExp(`^${name}$`) }) });
  }

  /** Waits until a read-only panel row shows `value` (rows are redrawn a few times a second). */
  async waitForRow(name: string, value: string | RegExp): Promise<void> {
    const want = typeof value === 'string' ? { text: value } : { pattern: value.source };
    await this.waitFor(`the panel's ${name} row to show ${value}`, ({ name, want }) => {
      const row = Array.from(document.querySelectorAll('.lil-gui .lil-controller')).find((c) => c.querySelector('.lil-name')?.textContent === name);
      const shown = (row?.querySelector('input') as HTMLInputElement | null)?.value;
      return shown !== undefined && ('text' in want ? shown === want.text : new RegExp(want.pattern!).test(shown));
    }, { name, want });
  }

  /** Saves a full-page screenshot under test-results/ and returns its path. */
  async saveScreenshot(name: string): Promise<string> {
    await mkdir(RESULTS_DIR, { recursive: true });
    const path = join(RESULTS_DIR, name);
    await this.page.screenshot({ path, fullPage: true });
    return path;
  }

  /** What a failed wait reports of the page. */
  private async describe(): Promise<string> {
    try {
      return await this.page.evaluate(() => {
        const s = window.__splatsort;
        const page = `body data-viewer=${document.body.dataset.viewer ?? 'unset'}`;
        if (!s) return `${page}, no window.__splatsort`;
        const { frames, ready, loading, sceneName, splats, lastError, view } = s;
        return `${page}, ${JSON.stringify({ frames, ready, loading, sceneName, splats, lastError, eye: view.eye, target: view.target })}`;
      });
    } catch (error) {
      return `(could not be read: ${error instanceof Error ? error.message : String(error)})`;
    }
  }
}

/** The file's browser and its main page. */
export interface ViewerPageFixture {
  /** The built viewer page, with a trailing slash. */
  readonly url: string;
  readonly browser: Browser;
  readonly context: BrowserContext;
  /** The file's page (its tests share it). */
  readonly tab: TestPage;
  readonly page: Page;
  /** Loads the viewer page with `query` ('' for none) in the file's page, and waits for its first scene unless told not to. */
  goto(query?: string, options?: { wait?: boolean }): Promise<void>;
  /**
   * Another page in the same context (the file's page is closed first
   * unless `keep`: two pages that draw share SwiftShader's cores and
   * starve each other).
   */
  newPage(options?: { keep?: boolean }): Promise<TestPage>;
}

/**
 * The file's browser (one Chromium, one context of the given window) and
 * page, opened in beforeAll with the viewer (unless `query` is null) and
 * closed in afterAll.
 */
export function useViewerPage(options: ViewerPageOptions = {}): ViewerPageFixture {
  let browser: Browser | undefined;
  let context: BrowserContext | undefined;
  let tab: TestPage | undefined;
  const url = inject('splatsortPageUrl');
  const need = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the browser fixture was used outside its file\'s tests');
    return value;
  };

  const fixture: ViewerPageFixture = {
    url,
    get browser() { return need(browser); },
    get context() { return need(context); },
    get tab() { return need(tab); },
    get page() { return need(tab).page; },
    async goto(query = '', { wait = true } = {}) {
      const renderer = options.renderer ?? 'quads';
      if (renderer !== 'auto' && !/[?&]renderer=/.test(query)) query = `${query}${query.includes('?') ? '&' : '?'}renderer=${renderer}`;
      await fixture.page.goto(`${url}${query}`);
      if (wait) await fixture.tab.waitForViewer();
    },
    async newPage({ keep = false } = {}) {
      if (!keep && tab && !tab.page.isClosed()) await tab.page.close();
      const page = new TestPage(await fixture.context.newPage());
      await page.page.bringToFront();
      return page;
    },
  };

  beforeAll(async () => {
    browser = await launchChromium();
    context = await browser.newContext({
      // A page gets this size from its first frame; setting it later would
      // lay the page out (and start drawing) at another size first.
      viewport: { ...(options.viewport ?? BROWSER_VIEWPORT) },
      // A phone at one device pixel per CSS pixel: SwiftShader draws 9× fewer pixels than at a phone's 3×.
      ...(options.touch ? { hasTouch: true, isMobile: true, deviceScaleFactor: 1 } : {}),
    });
    context.setDefaultTimeout(WAIT_TIMEOUT_MS);
    context.setDefaultNavigationTimeout(WAIT_TIMEOUT_MS);
    if (!options.fullDefaultScene) await serveLightDefaultScene(context);
    tab = await fixture.newPage();
    if (options.query !== null) await fixture.goto(options.query ?? '');
  }, BROWSER_TEST_TIMEOUT_MS);

  afterAll(async () => {
    await browser?.close();
  });

  return fixture;
}

/** Makes `context` get the light copy of the default scene (global-setup.ts) where the page asks for the stored one. */
export async function serveLightDefaultScene(context: BrowserContext): Promise<void> {
  const body = await readFile(inject('splatsortLightScene'));
  await context.route('**/default-scene*.ply', (route) => route.fulfill({ body, contentType: 'application/octet-stream' }));
}
