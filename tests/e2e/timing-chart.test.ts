/**
 * The timing chart under the stats panels, in Chromium on SwiftShader: a
 * chart that has drawn no frame holds no pass colour; fed known timings it
 * stacks them per pass at the heights its scale gives and leaves frames
 * without a GPU reading empty; on the viewer page the GPU passes' colours
 * appear as frames are drawn (SwiftShader in headless Chromium offers
 * timestamp-query), the CPU sort's once the CPU sort is chosen in the panel;
 * and the chart stays clear of the settings panel at 1280×800 and 390×844.
 *
 * Every wait is on the page's own state (ready, the chart's data-frames and
 * data-columns); each gives up with what it waited for after
 * tests/e2e/browser.ts's WAIT_TIMEOUT_MS.
 */

import { join } from 'node:path';
import { build, type Rolldown } from 'vite';
import { beforeAll, describe, expect, it } from 'vitest';
import { SIDE_PANEL_MIN_WIDTH } from '../../src/ui/viewer-gui';
import { BROWSER_TEST_TIMEOUT_MS, PROJECT_ROOT, useViewerPage } from './browser';

/** The stats panels' colours, which the chart must use (src/ui/stats-panels.ts). */
const COLOURS = {
  project: [0x77, 0xcc, 0xff],
  sort: [0xff, 0xcc, 0x66],
  render: [0xff, 0x88, 0xcc],
  cpu: [0x88, 0xff, 0x88],
} as const;
type Pass = keyof typeof COLOURS;
const PASSES = Object.keys(COLOURS) as Pass[];

const CHART = '.stats [data-testid="timing-chart"]';

/** Frames the page must have put in its chart before its pixels are read: enough for several GPU readings. */
const FRAMES = 8;

const viewer = useViewerPage();
const page = () => viewer.page;
const waitFor = (what: string, predicate: string) => viewer.tab.waitFor(what, predicate);

/**
 * src/ui/timing-chart.ts bundled on its own (as the page's build bundles
 * it), for charts beside the page's that the test feeds itself.
 */
async function timingChartModule(): Promise<string> {
  const result = await build({
    configFile: false,
    root: PROJECT_ROOT,
    logLevel: 'error',
    // One file: a module imported from a blob URL cannot import chunks beside it
    // (the scene formats its overlays name load their decoders lazily).
    build: {
      write: false,
      minify: false,
      lib: { entry: join(PROJECT_ROOT, 'src/ui/timing-chart.ts'), formats: ['es'], fileName: 'timing-chart' },
      rolldownOptions: { output: { codeSplitting: false } },
    },
  });
  const output = (Array.isArray(result) ? result[0] : result) as Rolldown.RolldownOutput;
  return output.output[0].code;
}

async function chartFrames(selector = CHART): Promise<number> {
  return Number(await page().locator(selector).getAttribute('data-frames'));
}

/** Waits until the chart has recorded `count` more frames. */
async function waitChartFrames(count: number, selector = CHART): Promise<void> {
  const want = (await chartFrames(selector)) + count;
  await viewer.tab.waitFor(`${want} frames in the chart`, ({ selector, want }) => Number(document.querySelector<HTMLElement>(selector)?.dataset.frames) >= want, { selector, want });
}

interface ChartPixels {
  width: number;
  height: number;
  /** Pixels of each pass colour. */
  pixels: Record<Pass, number>;
  /** Columns (x) holding each pass colour. */
  columns: Record<Pass, number>;
  /** Top-to-bottom runs of pass colours in the columns asked for (other pixels left out). */
  runs: Record<number, [Pass, number][]>;
}

/** Reads the chart canvas's pixels and finds the pass colours in them. */
async function readChart(selector: string, runsAt: number[] = []): Promise<ChartPixels> {
  return page().evaluate(
    ({ selector, colours, runsAt }) => {
      const canvas = document.querySelector<HTMLCanvasElement>(selector)!;
      const { width, height } = canvas;
      const data = canvas.getContext('2d')!.getImageData(0, 0, width, height).data;
      const names = Object.keys(colours) as (keyof typeof colours)[];
      const passAt = (x: number, y: number) => {
        const i = 4 * (y * width + x);
        return names.find((n) => colours[n].every((c, k) => Math.abs(data[i + k]! - c) <= 2));
      };
      const pixels = Object.fromEntries(names.map((n) => [n, 0])) as Record<(typeof names)[number], number>;
      const columns = { ...pixels };
      for (let x = 0; x < width; x++) {
        const seen = new Set<string>();
        for (let y = 0; y < height; y++) {
          const p = passAt(x, y);
          if (p === undefined) continue;
          pixels[p]++;
          seen.add(p);
        }
        for (const p of seen) columns[p as (typeof names)[number]]++;
      }
      const runs: Record<number, [string, number][]> = {};
      for (const x of runsAt) {
        const list: [string, number][] = [];
        for (let y = 0; y < height; y++) {
          const p = passAt(x, y);
          if (p === undefined) continue;
          const last = list[list.length - 1];
          if (last && last[0] === p) last[1]++;
          else list.push([p, 1]);
        }
        runs[x] = list;
      }
      return { width, height, pixels, columns, runs };
    },
    { selector, colours: COLOURS, runsAt },
  ) as Promise<ChartPixels>;
}

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

async function box(selector: string): Promise<Box> {
  const b = await page().locator(selector).first().boundingBox();
  expect(b, selector).not.toBeNull();
  return b!;
}

function overlaps(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

describe('timing chart', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  let chartModule: string;

  beforeAll(async () => {
    chartModule = await timingChartModule();
    // The page's chart: unfolded (a window this small starts with the stats folded to a line of timings).
    await page().locator('.stats-toggle').click();
    await page().locator(CHART).waitFor({ state: 'visible' });
  }, BROWSER_TEST_TIMEOUT_MS);

  it('has no pass colour before its first frame, and stacks fed timings per pass with gaps where none was measured', async () => {
    // Charts of the page's own module, beside the page's.
    // (A string, so that the test's transform leaves the dynamic import alone.)
    await page().evaluate(`import(URL.createObjectURL(new Blob([${JSON.stringify(chartModule)}], { type: 'text/javascript' }))).then((m) => {
      const passes = {
        project: { label: 'PROJ', colour: '#7cf', description: 'projector' },
        sort: { label: 'SORT', colour: '#fc6', description: 'sort' },
        render: { label: 'DRAW', colour: '#f8c', description: 'render' },
        cpu: { label: 'CPU', colour: '#8f8', description: 'CPU sort' },
      };
      for (const [id, hasTimestamps] of [['fresh', true], ['no-timestamps', false]]) {
        const chart = new m.TimingChart(passes, { hasTimestamps });
        chart.canvas.dataset.testid = id;
        const host = document.createElement('div');
        host.style.cssText = 'position: fixed; left: 120px; top: ' + (id === 'fresh' ? 40 : 140) + 'px; width: 246px; z-index: 5';
        host.append(chart.dom);
        document.body.append(host);
        window['__chart_' + id] = chart;
      }
    })`);
    const fresh = '[data-testid="fresh"]';
    // Sized (and drawn empty) once laid out.
    await waitFor('the fresh chart laid out', `Number(document.querySelector('${fresh}').dataset.columns) > 0`);
    const empty = await readChart(fresh);
    expect(empty.width).toBeGreaterThan(0);
    expect(empty.pixels).toEqual({ project: 0, sort: 0, render: 0, cpu: 0 });
    expect(await page().locator(fresh).getAttribute('data-frames')).toBe('0');
    expect(await page().locator(`${fresh} + .timing-chart-max`).textContent()).toBe('50 µs');

    // 20 frames, 16 ms apart: a GPU reading in every other frame (0.2 + 0.3 + 0.5 ms), a CPU order (0.5 ms) in every frame.
    await page().evaluate(() => {
      const chart = (window as unknown as Record<string, import('../../src/ui/timing-chart').TimingChart>).__chart_fresh!;
      for (let i = 0; i < 20; i++) {
        if (i % 2 === 0) chart.addGpuTimes(0.2, 0.3, 0.5);
        chart.addCpuSort(0.5);
        chart.endFrame(1000 + 16 * i);
      }
    });
    expect(await page().locator(fresh).getAttribute('data-max-ms')).toBe('1.5');
    expect(await page().locator(`${fresh} + .timing-chart-max`).textContent()).toBe('1.5 ms');
    const fed = await readChart(fresh, []);
    const { width, height } = fed;
    const newest = width - 1;
    const filled = await readChart(fresh, [newest, newest - 1, newest - 19, newest - 20]);
    // At 1.5 ms full scale, in device pixels (the test page has a device pixel ratio of 1).
    const px = (ms: number) => Math.round((ms / 1.5) * height);
    // The newest frame had no GPU reading: the CPU sort alone, nothing carried over.
    expect(filled.runs[newest]).toEqual([['cpu', px(0.5)]]);
    // The frame before had one: projector at the bottom, then sort, render, CPU sort on top.
    expect(filled.runs[newest - 1]).toEqual([
      ['cpu', px(1.5) - px(1.0)],
      ['render', px(1.0) - px(0.5)],
      ['sort', px(0.5) - px(0.2)],
      ['project', px(0.2)],
    ]);
    expect(filled.runs[newest - 19]!.length).toBe(4);
    expect(filled.runs[newest - 20]).toEqual([]);
    expect(filled.columns).toEqual({ project: 10, sort: 10, render: 10, cpu: 20 });

    // Without timestamp-query the legend says so, and the CPU sort still shows.
    const na = '[data-testid="no-timestamps"]';
    await waitFor('the chart without timestamps laid out', `Number(document.querySelector('${na}').dataset.columns) > 0`);
    const legend = page().locator('.timing-chart').filter({ has: page().locator(na) }).locator('.timing-chart-legend');
    expect(await legend.locator('.timing-chart-note').textContent()).toBe('GPU n/a');
    expect(await legend.locator('.timing-chart-off').count()).toBe(3);
    await page().evaluate(() => {
      const chart = (window as unknown as Record<string, import('../../src/ui/timing-chart').TimingChart>)['__chart_no-timestamps']!;
      for (let i = 0; i < 5; i++) {
        chart.addCpuSort(2);
        chart.endFrame(1000 + 16 * i);
      }
    });
    expect((await readChart(na)).columns).toEqual({ project: 0, sort: 0, render: 0, cpu: 5 });

    await page().evaluate(() => document.querySelectorAll('[data-testid="fresh"], [data-testid="no-timestamps"]').forEach((c) => c.closest('.timing-chart')!.parentElement!.remove()));
  });

  it("shows the GPU passes in the page's chart as frames are drawn", async () => {
    // The page's legend uses the stats panels' colours.
    const swatches = await page().locator('.stats .timing-chart-key i').evaluateAll((is) => is.map((i) => getComputedStyle(i).backgroundColor));
    expect(swatches).toEqual(PASSES.map((p) => `rgb(${COLOURS[p].join(', ')})`));
    expect(await page().locator('.stats .timing-chart-note').count()).toBe(0);

    await waitFor(`${FRAMES} frames in the page's chart`, `Number(document.querySelector('${CHART}').dataset.frames) >= ${FRAMES}`);
    const chart = await readChart(CHART);
    const s = await viewer.tab.state();
    const detail = JSON.stringify({ columns: chart.columns, frames: s.frames, sort: s.activeSort });
    expect(s.activeSort).toBe('GPU radix');
    // SwiftShader in headless Chromium has timestamp-query: projector, sort and render were measured.
    for (const p of ['project', 'sort', 'render'] as const) expect(chart.columns[p], `${p}: ${detail}`).toBeGreaterThan(0);
    // The GPU sort is on: no CPU sort time.
    expect(chart.columns.cpu, detail).toBe(0);
    // Never more columns than frames drawn.
    expect(chart.columns.render).toBeLessThanOrEqual(s.frames);
    const max = Number(await page().locator(CHART).getAttribute('data-max-ms'));
    expect(max).toBeGreaterThan(0.05); // risen from its floor to the measured times
    expect(await page().locator('.stats .timing-chart-max').textContent()).toMatch(/^[\d.]+ (µs|ms|s)$/);
  });

  it('shows the CPU sort once the CPU sort is chosen', async () => {
    await viewer.tab.setPanelOpen(true);
    await viewer.tab.setFolderOpen('Sort & render', true);
    const row = page().locator('.lil-gui .lil-controller').filter({ has: page().locator('.lil-name', { hasText: /^sort mode$/ }) });
    await row.locator('select').selectOption({ label: 'CPU 32-bit radix' });
    await waitFor('the CPU sort active', "window.__splatsort.activeSort === 'CPU 32-bit radix'");
    await waitChartFrames(FRAMES);
    const chart = await readChart(CHART);
    expect(chart.columns.cpu, JSON.stringify(chart.columns)).toBeGreaterThan(0);
    // The projector and the render still run and are timed.
    expect(chart.columns.project).toBeGreaterThan(0);
    expect(chart.columns.render).toBeGreaterThan(0);
  });

  it('stays clear of the settings panel at 1280×800 and 390×844', async () => {
    for (const [width, height] of [[1280, 800], [390, 844]] as const) {
      await page().setViewportSize({ width, height });
      // The page lays the panel out for the new size when it sees the canvas resized (a frame or so later).
      await viewer.tab.waitFor(`the layout of a ${width} px window`, (narrow) => document.body.classList.contains('narrow-window') === narrow, width < SIDE_PANEL_MIN_WIDTH);
      await viewer.tab.setPanelOpen(true);
      // The chart spans the stats grid: three panel columns wide, or two on narrow windows.
      const grid = await box('.stats .stats-grid');
      const chart = await box(CHART);
      expect(Math.abs(chart.width - grid.width)).toBeLessThanOrEqual(1);
      await waitFor('the chart redrawn at its new width', `Number(document.querySelector('${CHART}').dataset.columns) === ${Math.round(chart.width)}`);
      expect(chart.height).toBeGreaterThanOrEqual(40);
      expect(overlaps(chart, await box('.lil-gui.lil-root')), `${width}×${height}`).toBe(false);
      expect(chart.y + chart.height).toBeLessThanOrEqual(height);
      if (width === 1280) {
        // Redrawn at the new width once laid out; the history is kept, so the passes are still there.
        await waitChartFrames(1);
        const pixels = await readChart(CHART);
        expect(pixels.columns.render).toBeGreaterThan(0);
        expect(overlaps(await box('.stats'), await box('.lil-gui.lil-root'))).toBe(false);
        await viewer.tab.saveScreenshot('e2e-timing-chart-1280x800.png');
      }
    }
    expect(viewer.tab.errors).toEqual([]);
  });
});
