/**
 * The viewer page's sorts (tests/e2e/viewer.test.ts runs these on its one
 * page, in order, after scene-and-view.ts): the CPU sort takes over and
 * hands back, the ordering error is measured and shown, every sort mode,
 * key width, frozen or live order draws without a WebGPU error, and the
 * sort difference view shows where a frozen order changes the picture.
 */
import { expect, it } from 'vitest';
import type { ViewerPageFixture } from '../browser';
import { analyse, pageTools } from './page-tools';

/** Registers these tests in the calling describe, after sceneAndViewTests. */
export function sortTests(viewer: ViewerPageFixture): void {
  const { page, state, waitFor, guiRow, waitForRow, setPanelOpen, capture, dragOnCanvas, select, selectSort } = pageTools(viewer);

  it('switches to the CPU sort and back to the GPU sort', async () => {
    // The panel starts closed in a window this small.
    await setPanelOpen(true);
    await selectSort('CPU 32-bit radix');
    await waitFor('the CPU sort active', "window.__splatsort.activeSort === 'CPU 32-bit radix'");
    await viewer.tab.waitForFrames(2);
    expect((await state()).lastError).toBeNull();
    expect(await guiRow('requested').locator('input').inputValue()).toBe('CPU 32-bit radix');
    expect(await guiRow('active').locator('input').inputValue()).toBe('CPU 32-bit radix');
    expect(await guiRow('CPU order age').locator('input').inputValue()).toMatch(/^\d+ frames?$/);
    const cpu = await capture('e2e-viewer-cpu-sort.png');
    const { drawn, total } = analyse(cpu);
    expect(drawn / total).toBeGreaterThan(0.05);

    await selectSort('GPU radix');
    await waitFor('the GPU sort active', "window.__splatsort.activeSort === 'GPU radix'");
    await setPanelOpen(false);
  });

  it('measures the ordering error when asked, and shows it', async () => {
    await setPanelOpen(true);
    const shown = () => guiRow('ordering error').locator('input').inputValue();
    await guiRow('measure ordering error').locator('input').check();
    await waitFor('an ordering error measured', 'window.__splatsort.orderError !== null && window.__splatsort.orderError.invertedFraction >= 0');
    const measured = (await state()).orderError!;
    expect(measured.invertedFraction).toBeLessThanOrEqual(0.5);
    expect(measured.largest).toBeGreaterThanOrEqual(0);
    // The panel shows it within its refresh (a few times a second).
    await viewer.tab.waitForRow('ordering error', /^(?!off$)/);
    expect(await shown()).toMatch(/^(0|[\d.]+ %) · max \S+ of range \((16|24|32) bits\)$/);
    await guiRow('measure ordering error').locator('input').uncheck();
    await setPanelOpen(false);
  });

  it('draws with every sort mode, key width, frozen or not, measured or not, without a WebGPU error', async () => {
    await setPanelOpen(true);
    const checkbox = (row: string, on: boolean) => (on ? guiRow(row).locator('input').check() : guiRow(row).locator('input').uncheck());
    const tried: string[] = [];
    for (const sort of ['GPU radix', 'CPU 32-bit radix', 'CPU 16-bit counting']) {
      // A frozen order sorts nothing, so a new sort mode becomes active only once the order is live.
      await checkbox('freeze order', false);
      await selectSort(sort);
      await waitFor(`${sort} active`, `window.__splatsort.activeSort === ${JSON.stringify(sort)}`);
      // The CPU sorts have one key width each: the panel offers the choice for the GPU sort only.
      const widths = (await guiRow('key bits').locator('select').isEnabled()) ? ['auto', '16 bits', '24 bits', '32 bits'] : ['its own'];
      for (const bits of widths) {
        if (bits !== 'its own') await select('key bits', bits);
        for (const [freeze, measure] of [[false, true], [true, false], [true, true]] as const) {
          await checkbox('freeze order', freeze);
          await checkbox('measure ordering error', measure);
          // Two frames drawn with these settings; a rejected frame shows as the page's last error.
          await viewer.tab.waitForFrames(2);
          const { lastError } = await state();
          tried.push(`${sort}, ${bits}, ${freeze ? 'frozen' : 'live'}, ${measure ? 'measured' : 'not measured'}`);
          expect(lastError, tried.at(-1)).toBeNull();
        }
      }
    }
    expect(await page().locator('.message', { hasText: 'WebGPU error' }).count()).toBe(0);
    await checkbox('freeze order', false);
    await checkbox('measure ordering error', false);
    await selectSort('GPU radix');
    await waitFor('the GPU sort active', "window.__splatsort.activeSort === 'GPU radix'");
    await select('key bits', 'auto');
    await setPanelOpen(false);
  });

  it('shows where a frozen order changes the picture, in the sort difference view', async () => {
    await setPanelOpen(true);
    await select('key bits', '32 bits');
    // Every animation frame from here on: once the page has a count, the
    // "pixels off" row shows it, not a waiting text (it used to lag a panel
    // refresh or more behind, seconds on a slow adapter).
    await page().evaluate(() => {
      const row = [...document.querySelectorAll('.lil-controller')].find((r) => r.querySelector('.lil-name')?.textContent === 'pixels off');
      const input = row!.querySelector('input')!;
      const check = { stale: [] as string[], frames: 0, stop: false };
      (window as unknown as { differenceRowCheck: typeof check }).differenceRowCheck = check;
      const look = () => {
        if (check.stop) return;
        if (window.__splatsort?.difference) {
          check.frames++;
          if (input.value.endsWith('…')) check.stale.push(input.value);
        }
        requestAnimationFrame(look);
      };
      requestAnimationFrame(look);
    });
    await select('show', 'sort difference (heat map)');
    // The exact order of this frame against itself: nothing differs.
    await waitFor('no pixel off with the exact order', 'window.__splatsort.difference !== null && window.__splatsort.difference.pixels === 0');
    await waitForRow('pixels off', 'none (exact order)');
    // A few animation frames with the count (they may be a second apart on a slow machine).
    await waitFor('three animation frames with a count', 'window.differenceRowCheck.frames >= 3');
    const rowCheck = await page().evaluate(() => {
      const check = (window as unknown as { differenceRowCheck: { stale: string[]; frames: number; stop: boolean } }).differenceRowCheck;
      check.stop = true;
      return check;
    });
    expect(rowCheck.frames).toBeGreaterThan(0);
    expect(rowCheck.stale).toEqual([]);
    await guiRow('freeze order').locator('input').check();
    await setPanelOpen(false);
    await dragOnCanvas(0.2, 0);
    // The order drawn is the one sorted before the turn: now it differs from the exact one.
    await waitFor('pixels off with the frozen order', 'window.__splatsort.difference !== null && window.__splatsort.difference.pixels > 0');
    const measured = (await state()).difference!;
    expect(measured.largest).toBeGreaterThan(1);
    const heat = await capture('e2e-viewer-difference.png');
    // Heat colours (not grey) cover about the share of the window the view counted (panels left out).
    let coloured = 0;
    let seen = 0;
    for (let y = 0; y < heat.height; y++) {
      for (let x = 0; x < heat.width; x++) {
        if (heat.chrome.some((r) => x >= r.x && x < r.x + r.width && y >= r.y && y < r.y + r.height)) continue;
        const i = 4 * (y * heat.width + x);
        seen++;
        if (Math.max(Math.abs(heat.rgba[i]! - heat.rgba[i + 1]!), Math.abs(heat.rgba[i + 1]! - heat.rgba[i + 2]!)) > 24) coloured++;
      }
    }
    expect(coloured / seen).toBeGreaterThan(measured.fraction / 4);
    await setPanelOpen(true);
    expect(await guiRow('pixels off').locator('input').inputValue()).toMatch(/^[\d.]+ % · max \d+\/255 · mean [\d.]+$/);
    await guiRow('freeze order').locator('input').uncheck();
    await select('show', 'picture');
    await select('key bits', 'auto');
    await waitFor('the difference view off', 'window.__splatsort.difference === null');
    await setPanelOpen(false);
  });
}
