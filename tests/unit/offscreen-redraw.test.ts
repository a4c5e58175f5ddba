/**
 * When an offscreen frame (a capture, the render command) is drawn again
 * (src/app/frame/offscreen-render.ts drawAgain): a tile frame whose pair
 * counts went unread may have outgrown its room unseen, and was kept.
 */
import { expect, test } from 'vitest';
import { drawAgain } from '../../src/app/frame/offscreen-render';

const drawnWith = (renderer: 'tiles' | 'quads') => ({ renderer: { renderer } }) as Parameters<typeof drawAgain>[0];

test('a tile frame is drawn again when it overflowed or its counts went unread; a tile frame that fit, and a quad frame, are kept', () => {
  expect(drawAgain(drawnWith('tiles'), { painted: { overflowed: true } })).toBe(true);
  expect(drawAgain(drawnWith('tiles'), { painted: null })).toBe(true);
  expect(drawAgain(drawnWith('tiles'), { painted: { overflowed: false } })).toBe(false);
  expect(drawAgain(drawnWith('quads'), { painted: null })).toBe(false);
});
