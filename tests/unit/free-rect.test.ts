/** The part of the window the scene is framed in (src/app/camera/free-rect.ts), for the page's layouts. */
import { expect, test } from 'vitest';
import { largestFreeRect } from '../../src/app/camera/free-rect';

test('no overlay: the whole window', () => {
  expect(largestFreeRect(800, 600, [])).toEqual({ x: 0, y: 0, width: 800, height: 600 });
  // Boxes of no size (hidden overlays) and boxes outside the window count for nothing.
  expect(largestFreeRect(800, 600, [{ x: 10, y: 10, width: 0, height: 0 }, { x: 900, y: 0, width: 50, height: 50 }])).toEqual({ x: 0, y: 0, width: 800, height: 600 });
});

test('a desktop window: the panel at the right, the stats at the bottom left: the tall part beside both', () => {
  const panel = { x: 1020, y: 0, width: 260, height: 700 };
  const stats = { x: 8, y: 590, width: 250, height: 202 };
  expect(largestFreeRect(1280, 800, [panel, stats])).toEqual({ x: 258, y: 0, width: 762, height: 800 });
});

test('a phone: the stats at the top left, the sheet along the bottom', () => {
  const stats = { x: 8, y: 60, width: 171, height: 230 };
  const title = { x: 0, y: 800, width: 390, height: 44 };
  // The sheet closed (its title bar): the part under the stats.
  expect(largestFreeRect(390, 844, [stats, title])).toEqual({ x: 0, y: 290, width: 390, height: 510 });
  // Open: the column right of the stats, above the sheet, is the larger square.
  const sheet = { x: 0, y: 464, width: 390, height: 380 };
  expect(largestFreeRect(390, 844, [stats, sheet])).toEqual({ x: 179, y: 0, width: 211, height: 464 });
  // The stats collapsed to a tab: the band above the sheet, under the tab.
  const tab = { x: 8, y: 60, width: 70, height: 26 };
  expect(largestFreeRect(390, 844, [tab, sheet])).toEqual({ x: 0, y: 86, width: 390, height: 378 });
});
