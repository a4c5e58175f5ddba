/**
 * The self-test page in Chromium on SwiftShader: the GPU sort must match the
 * CPU reference at every size the page runs, with a clean console; without
 * WebGPU the page must explain how to get it instead of throwing.
 *
 * One page at a time, each closed before the next opens, and every wait is on
 * the page's own state (`data-selftest`, `data-webgpu`), with a limit that
 * says what it waited for: SwiftShader runs the sorts ~1000× slower than a
 * GPU and pipeline creation adds seconds, more on a slower or busier machine.
 */

import { describe, expect, it } from 'vitest';
import type { SortSelfTestResult } from '../../src/sort/self-test';
import { BROWSER_TEST_TIMEOUT_MS, useViewerPage } from './browser';

interface RowInfo {
  n: string | undefined;
  keyBits: string | undefined;
  text: string;
}

/** Sorting takes ~70 s on 2 busy cores; allowed several times that. */
const SELF_TEST_TIMEOUT_MS = 480_000;

/** The file's page opens the self-test itself. */
const fixture = useViewerPage({ query: null });

describe('self-test page', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it('sorts on the GPU and matches the CPU reference at every size', async () => {
    const { tab } = fixture;
    const { page, errors } = tab;
    try {
      await fixture.goto('?selftest', { wait: false });
      // Sorting a million pairs four ways on SwiftShader: far the longest wait of the browser tests.
      await tab.waitFor('the self-test verdict', 'document.body.dataset.selftest !== undefined', undefined, SELF_TEST_TIMEOUT_MS);
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
      await tab.saveScreenshot('e2e-self-test.png').catch(() => undefined);
    }
  });

  it('explains how to get WebGPU when the browser has none', async () => {
    const tab = await fixture.newPage();
    const { page, errors } = tab;
    try {
      await page.addInitScript(() => {
        Reflect.deleteProperty(Navigator.prototype, 'gpu');
      });
      await page.goto(`${fixture.url}?selftest`);
      await tab.waitFor('the page to find no WebGPU', "document.body.dataset.webgpu === 'unavailable'");

      expect(await page.evaluate(() => 'gpu' in navigator)).toBe(false);
      expect(errors, 'console errors and page errors').toEqual([]);
      expect(await page.locator('h2').first().textContent()).toBe('WebGPU is not available');
      const notice = (await page.locator('.notice').textContent()) ?? '';
      for (const hint of ['Chrome or Edge', 'Safari 26', 'Firefox 141', 'flag']) expect(notice).toContain(hint);
      expect(await page.locator('a[href="https://caniuse.com/webgpu"]').count()).toBe(1);
      expect(await page.evaluate(() => document.body.dataset.selftest)).toBe('fail');
    } finally {
      await tab.saveScreenshot('e2e-no-webgpu.png').catch(() => undefined);
      await page.close();
    }
  });
});
