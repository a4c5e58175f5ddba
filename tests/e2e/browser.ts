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
  newPage(): Promise<TestPage>;
  close(): Promise<void>;
}

export interface TestPage {
  page: Page;
  /** Console errors, uncaught page errors and failed HTTP responses seen so far. */
  errors: string[];
}

/** Launches Chromium with a fresh profile; throws (never skips) when Chromium is missing. */
export async function launchBrowser(): Promise<TestBrowser> {
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
      viewport: { width: 1024, height: 768 },
    });
  } catch (error) {
    await rm(userDataDir, { recursive: true, force: true });
    throw error;
  }
  return {
    context,
    async newPage() {
      const page = await context.newPage();
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
