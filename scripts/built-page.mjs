/**
 * The viewer page as users get it, for the scripts that photograph or
 * measure it (readme-picture.mjs, page-main-thread.mjs): built by vite
 * into a temporary folder, served by vite preview on a free port, and a
 * headless Chromium on SwiftShader (tests/e2e/chromium.mjs) with a context
 * of the asked size. `withBuiltPage` runs `use` with them and frees them
 * all, whatever `use` does.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, preview } from 'vite';
import { launchChromium } from '../tests/e2e/chromium.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Builds and serves the page, launches Chromium, and calls
 * `use({ url, context })`; `served(outDir)` may add files beside the
 * built page before it is served. Resolves with what `use` resolves with.
 */
export async function withBuiltPage({ width, height, timeoutMs, served }, use) {
  const built = await mkdtemp(join(tmpdir(), 'splatsort-page-'));
  let server;
  let browser;
  try {
    const configFile = join(root, 'vite.config.ts');
    await build({ root, configFile, logLevel: 'error', build: { outDir: built, emptyOutDir: true } });
    await served?.(built);
    server = await preview({ root, configFile, logLevel: 'warn', build: { outDir: built }, preview: { host: '127.0.0.1', port: 0, strictPort: true, open: false } });
    const url = server.resolvedUrls?.local[0];
    if (!url) throw new Error('vite preview started without a local URL');
    browser = await launchChromium(timeoutMs);
    const context = await browser.newContext({ viewport: { width, height }, deviceScaleFactor: 1 });
    context.setDefaultTimeout(timeoutMs);
    return await use({ url, context });
  } finally {
    await browser?.close();
    await server?.close();
    await rm(built, { recursive: true, force: true });
  }
}
