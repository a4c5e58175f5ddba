/**
 * What the viewer page's tests (tests/e2e/viewer.test.ts and the parts in
 * this folder, run in order on one page) look at the page with: screenshots
 * decoded for pixel checks, drags on the canvas, and the settings panel's
 * rows.
 */
import { readFile } from 'node:fs/promises';
import { expect } from 'vitest';
import { BROWSER_VIEWPORT, type ViewerPageFixture } from '../browser';
import { scenePath } from '../../shared-scenes';
import { decodePng } from '../../../cli/png';

export const SCENE_9K = scenePath('inria_kacytran_iter7000_9k_sh3.ply');
/** Every page's size (small, so that SwiftShader keeps up: ~1 frame/s). */
export const VIEWPORT = BROWSER_VIEWPORT;
/** The viewer's default background, #101318. */
const BACKGROUND = [0x10, 0x13, 0x18] as const;
/** Everything drawn over the canvas; left out of the pixel checks. */
const CHROME = '.lil-gui.lil-root, .stats, .hint, .messages, .progress, .help';

interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface Picture {
  width: number;
  height: number;
  /** RGBA, 8 bits per channel. */
  rgba: Uint8Array;
  /** Where the page's panels and messages covered the canvas. */
  chrome: Rect[];
}

/** The pictures later tests compare with: the default scene as first drawn, and the 9k scene opened from the file picker. */
export type Pictures = Record<'default' | 'loaded', Picture>;

/** Pixels of `a` (outside both pictures' panels) that are not background, and that differ from `b`. */
export function analyse(a: Picture, b: Picture = a): { drawn: number; changed: number; total: number } {
  const rects = [...a.chrome, ...b.chrome];
  const covered = (x: number, y: number) =>
    rects.some((r) => x >= r.x && x < r.x + r.width && y >= r.y && y < r.y + r.height);
  const close = (p: Uint8Array, i: number, q: ArrayLike<number>, j: number) =>
    Math.abs(p[i]! - q[j]!) + Math.abs(p[i + 1]! - q[j + 1]!) + Math.abs(p[i + 2]! - q[j + 2]!) <= 12;
  let drawn = 0, changed = 0, total = 0;
  for (let y = 0; y < a.height; y++) {
    for (let x = 0; x < a.width; x++) {
      if (covered(x, y)) continue;
      const i = 4 * (y * a.width + x);
      total++;
      if (!close(a.rgba, i, BACKGROUND, 0)) drawn++;
      if (!close(a.rgba, i, b.rgba, i)) changed++;
    }
  }
  return { drawn, changed, total };
}

/** The file's page and the ways its tests act on it and read it. */
export function pageTools(viewer: ViewerPageFixture) {
  const page = () => viewer.page;
  const guiRow = (name: string) => viewer.tab.row(name);

  /**
   * Saves a screenshot under test-results/ and decodes it for the pixel checks.
   * Each screenshot costs several SwiftShader frames (~6 s), so every state
   * gets exactly one, used for both.
   */
  async function capture(name: string): Promise<Picture> {
    const chrome = await page().evaluate((selector) => {
      return [...document.querySelectorAll(selector)].map((e) => {
        const r = e.getBoundingClientRect();
        return { x: r.x, y: r.y, width: r.width, height: r.height };
      });
    }, CHROME);
    const png = await readFile(await viewer.tab.saveScreenshot(name));
    return { ...decodePng(png), chrome };
  }

  /**
   * Drags from the middle of the window by (dx, dy) window sizes. The start
   * must be on the canvas itself: a drag that starts on a panel (the stats
   * and their chart take much of a small window) does not orbit.
   */
  async function dragOnCanvas(dx: number, dy: number): Promise<void> {
    const { width, height } = VIEWPORT;
    const [x, y] = [width * 0.55, height * 0.5];
    expect(await page().evaluate(([px, py]) => document.elementFromPoint(px!, py!)?.tagName, [x, y])).toBe('CANVAS');
    await page().mouse.move(x, y);
    await page().mouse.down();
    await page().mouse.move(x + dx * width, y + dy * height, { steps: 3 });
    await page().mouse.up();
  }

  /** Picks an option of a panel row (open the panel first). */
  async function select(row: string, label: string): Promise<void> {
    await guiRow(row).locator('select').selectOption({ label });
  }

  return {
    page,
    state: () => viewer.tab.state(),
    waitFor: (what: string, predicate: string) => viewer.tab.waitFor(what, predicate),
    guiRow,
    waitForRow: (name: string, value: string) => viewer.tab.waitForRow(name, value),
    /** Opens the panel with its "Sort & render" folder (closed by default; these tests use its rows), or closes the panel. */
    setPanelOpen: async (open: boolean) => {
      await viewer.tab.setPanelOpen(open);
      if (open) await viewer.tab.setFolderOpen('Sort & render', true);
    },
    capture,
    dragOnCanvas,
    select,
    selectSort: (label: string) => select('sort mode', label),
  };
}
