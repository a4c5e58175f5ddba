/**
 * Shared setup for the browser tests: vite's dev server on a free localhost
 * port, and Debian's Chromium with WebGPU on SwiftShader (CPU Vulkan), so the
 * page runs its real GPU code on machines without a GPU.
 */

import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { createServer, type ViteDevServer } from 'vite';
import type { ViewerState } from '../../src/app/viewer-state';

export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const RESULTS_DIR = join(PROJECT_ROOT, 'test-results');

/** Debian's chromium package; it also ships the SwiftShader Vulkan driver. */
export const CHROMIUM_PATH = process.env.SPLATSORT_CHROMIUM ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless=new',
  '--no-sandbox',
  // WebGPU on SwiftShader: without all three SwiftShader switches compute
  // works but canvases stay white.
  '--enable-unsafe-webgpu',
  '--enable-features=Vulkan',
  '--use-vulkan=swiftshader',
  '--use-angle=swiftshader',
  // No traffic beyond localhost: the test machines refuse outside connections.
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/**
 * The window every page opens with. Small, because SwiftShader rasterizes on
 * the CPU: at 480×360 a frame of the default scene takes about a second on a
 * 2-core machine, at 1024×768 several, and a page that is busy drawing is slow
 * to answer everything else (clicks, screenshots, other pages).
 */
export const BROWSER_VIEWPORT = { width: 480, height: 360 } as const;

/**
 * The time one browser test may take. A test waits on the page's own state
 * (ready, frames drawn, a scene's splat count), never on a time, so this is
 * only the point at which a test is declared stuck: generous enough for a
 * machine several times slower than CI's 2 cores without a GPU. Give it to
 * the file's tests and hooks (`describe(name, { timeout }, …)`,
 * `beforeAll(fn, timeout)`).
 */
export const BROWSER_TEST_TIMEOUT_MS = 600_000;

/**
 * The default time limit of every Playwright wait on a page (clicks, waits
 * for a function, an event, a navigation, a screenshot): a little under the
 * test's own, so that a stuck wait fails with its own message (what it waited
 * for) rather than as a bare test timeout, and never sooner than the test
 * allows. Playwright's own default (30 s) is less than one slow frame's worth
 * of work on SwiftShader once a page is loaded.
 */
export const BROWSER_WAIT_TIMEOUT_MS = BROWSER_TEST_TIMEOUT_MS - 30_000;

export interface DevServer {
  /** Base URL with a trailing slash, e.g. http://127.0.0.1:41234/ */
  url: string;
  close(): Promise<void>;
}

export async function startDevServer(): Promise<DevServer> {
  const server: ViteDevServer = await createServer({
    root: PROJECT_ROOT,
    configFile: join(PROJECT_ROOT, 'vite.config.ts'),
    logLevel: 'warn',
    clearScreen: false,
    // Port 0: the OS picks a free port. No HMR: the page is loaded once.
    server: { host: '127.0.0.1', port: 0, strictPort: true, hmr: false, open: false },
  });
  await server.listen();
  const url = server.resolvedUrls?.local[0];
  if (!url) {
    await server.close();
    throw new Error('vite dev server started without a local URL');
  }
  return { url, close: () => server.close() };
}

export interface TestBrowser {
  context: BrowserContext;
  /**
   * A new page in front, with BROWSER_VIEWPORT and BROWSER_WAIT_TIMEOUT_MS.
   * Only one page should draw at a time: SwiftShader shares the machine's
   * cores among all pages, so close (or navigate) one before opening the next.
   */
  newPage(): Promise<TestPage>;
  close(): Promise<void>;
}

export interface TestPage {
  page: Page;
  /** Console errors, uncaught page errors and failed HTTP responses seen so far. */
  errors: string[];
}

/** How the browser presents itself: a desktop window by default, or a phone's touch screen. */
export interface BrowserOptions {
  viewport?: { width: number; height: number };
  /** A touch screen as the only pointer (touch events, `pointer: coarse`), as on a phone. */
  touch?: boolean;
}

/** Launches Chromium with a fresh profile; throws (never skips) when Chromium is missing. */
export async function launchBrowser(options: BrowserOptions = {}): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM_PATH}. Install it with ` +
        '`apt-get install -y chromium libvulkan1` (.ci/run does this), ' +
        'or point SPLATSORT_CHROMIUM at a Chromium binary.',
    );
  }
  const userDataDir = await mkdtemp(join(tmpdir(), 'splatsort-chromium-'));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM_PATH,
      // Headless mode is chosen by --headless=new in the arguments.
      headless: false,
      args: CHROMIUM_ARGS,
      // A page gets this size from its first frame; setting it later would
      // lay the page out (and start drawing) at a larger size first.
      viewport: { ...(options.viewport ?? BROWSER_VIEWPORT) },
      // A phone at one device pixel per CSS pixel: SwiftShader draws 9× fewer pixels than at a phone's 3×.
      ...(options.touch ? { hasTouch: true, isMobile: true, deviceScaleFactor: 1 } : {}),
    });
    context.setDefaultTimeout(BROWSER_WAIT_TIMEOUT_MS);
    context.setDefaultNavigationTimeout(BROWSER_WAIT_TIMEOUT_MS);
  } catch (error) {
    await rm(userDataDir, { recursive: true, force: true });
    throw error;
  }
  return {
    context,
    async newPage() {
      const page = await context.newPage();
      await page.bringToFront();
      const errors: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(`console.error: ${message.text()}`);
      });
      page.on('pageerror', (error) => errors.push(`page error: ${error.stack ?? error.message}`));
      // The console's "Failed to load resource" line omits the URL: record it here.
      page.on('response', (response) => {
        if (response.status() >= 400) errors.push(`HTTP ${response.status()}: ${response.url()}`);
      });
      return { page, errors };
    },
    async close() {
      await context.close();
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}

/** Saves a full-page screenshot under test-results/ and returns its path. */
export async function saveScreenshot(page: Page, name: string): Promise<string> {
  await mkdir(RESULTS_DIR, { recursive: true });
  const path = join(RESULTS_DIR, name);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** The viewer page's state for automated checks (window.__splatsort). */
export function viewerState(page: Page): Promise<ViewerState> {
  return page.evaluate(() => window.__splatsort as ViewerState);
}

/**
 * Waits until `predicate` holds in the page. No time limit of its own: the
 * page's default (a little under the test's) applies, since how long a state
 * takes depends on how fast the machine draws.
 */
export async function waitForPage(page: Page, predicate: string): Promise<void> {
  await page.waitForFunction(predicate, null, { polling: 100 });
}

/** Waits until the viewer page has drawn `count` more frames. */
export async function waitForFrames(page: Page, count: number): Promise<void> {
  const start = (await viewerState(page)).frames;
  await waitForPage(page, `window.__splatsort.frames >= ${start + count}`);
}

/**
 * Opens the viewer's settings panel (closed by default on narrow windows)
 * and waits for its animation to end; `tap` on a touch screen.
 */
export async function openPanel(page: Page, how: 'click' | 'tap' = 'click'): Promise<void> {
  const title = page.locator('.lil-gui.lil-root > .lil-title');
  if ((await title.getAttribute('aria-expanded')) !== 'true') await (how === 'tap' ? title.tap() : title.click());
  await page.waitForFunction(
    () => {
      const root = document.querySelector('.lil-gui.lil-root');
      return root !== null && !root.classList.contains('lil-closed') && !root.classList.contains('lil-transition');
    },
    null,
    { polling: 100 },
  );
}

/**
 * The viewer's camera once it has come to rest: the drawn camera glides to
 * where the controls moved it (camera damping), so this waits until two
 * frames in a row show the same view, and returns it.
 */
export async function settledView(page: Page): Promise<ViewerState['view']> {
  for (;;) {
    const { view, frames } = await viewerState(page);
    await waitForPage(page, `window.__splatsort.frames > ${frames}`);
    const next = (await viewerState(page)).view;
    if (JSON.stringify(next) === JSON.stringify(view)) return next;
  }
}
