/**
 * The self-test page in Chromium on SwiftShader: the GPU sort must match the
 * CPU reference at every size the page runs, with a clean console; without
 * WebGPU the page must explain how to get it instead of throwing.
 *
 * One page at a time, each closed before the next opens, and every wait is on
 * the page's own state (`data-selftest`, `data-webgpu`), bounded only by the
 * test's time limit: SwiftShader runs the sorts ~1000× slower than a GPU and
 * pipeline creation adds seconds, more on a slower or busier machine.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SortSelfTestResult } from '../../src/sort/self-test';
import { BROWSER_TEST_TIMEOUT_MS, launchBrowser, saveScreenshot, startDevServer, type DevServer, type TestBrowser } from './browser';

interface RowInfo {
  n: string | undefined;
  keyBits: string | undefined;
  text: string;
}

describe('self-test page', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  let server: DevServer | undefined;
  let browser: TestBrowser | undefined;

  beforeAll(async () => {
    server = await startDevServer();
    browser = await launchBrowser();
  }, BROWSER_TEST_TIMEOUT_MS);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('sorts on the GPU and matches the CPU reference at every size', async () => {
    const { page, errors } = await browser!.newPage();
    try {
      await page.goto(server!.url + '?selftest');
      await page.waitForFunction(() => document.body.dataset.selftest !== undefined, null, { polling: 500 });
      const verdict = await page.evaluate(() => document.body.dataset.selftest);
      const results = await page.evaluate(
        () => (window as { __splatsortSelfTest?: SortSelfTestResult[] }).__splatsortSelfTest ?? [],
      );
      const rows: RowInfo[] = await page.locator('tbody tr').evaluateAll((trs) =>
        trs.map((tr) => ({
          n: (tr as HTMLElement).dataset.n,
          keyBits: (tr as HTMLElement).dataset.keyBits,
          text: tr.textContent ?? '',
        })),
      );

      expect(errors, 'console errors and page errors').toEqual([]);
      expect(verdict, `self-test results: ${JSON.stringify(results, null, 2)}`).toBe('pass');

      // SwiftShader is a software adapter: the page runs 2^16 and 2^20 pairs with 32- and 16-bit keys.
      const expected = [65536, 1048576].flatMap((n) => [32, 16].map((keyBits) => ({ n, keyBits })));
      for (const { n, keyBits } of expected) {
        const row = rows.find((r) => r.n === String(n) && r.keyBits === String(keyBits));
        expect(row, `table row for n=${n}, ${keyBits}-bit keys`).toBeDefined();
        expect(row!.text).toContain(n.toLocaleString('en-US'));
        expect(row!.text).toContain('pass');
      }
      expect(results.map((r) => [r.n, r.keyBits, r.ok])).toEqual(
        rows.map((r) => [Number(r.n), Number(r.keyBits), true]),
      );
      for (const r of results) {
        expect(r.cpuMs).toBeGreaterThanOrEqual(0);
        if (r.gpuMs !== null) expect(r.gpuMs).toBeGreaterThanOrEqual(0);
      }
    } finally {
      await saveScreenshot(page, 'e2e-self-test.png').catch(() => undefined);
      await page.close();
    }
  });

  it('explains how to get WebGPU when the browser has none', async () => {
    const { page, errors } = await browser!.newPage();
    try {
      await page.addInitScript(() => {
        Reflect.deleteProperty(Navigator.prototype, 'gpu');
      });
      await page.goto(server!.url + '?selftest');
      await page.waitForFunction(() => document.body.dataset.webgpu === 'unavailable', null, { polling: 100 });

      expect(await page.evaluate(() => 'gpu' in navigator)).toBe(false);
      expect(errors, 'console errors and page errors').toEqual([]);
      expect(await page.locator('h2').first().textContent()).toBe('WebGPU is not available');
      const notice = (await page.locator('.notice').textContent()) ?? '';
      for (const hint of ['Chrome or Edge', 'Safari 26', 'Firefox 141', 'flag']) expect(notice).toContain(hint);
      expect(await page.locator('a[href="https://caniuse.com/webgpu"]').count()).toBe(1);
      expect(await page.evaluate(() => document.body.dataset.selftest)).toBe('fail');
    } finally {
      await saveScreenshot(page, 'e2e-no-webgpu.png').catch(() => undefined);
      await page.close();
    }
  });
});
