import { expect, test } from 'vitest';
import { isHeatMap, rendererSettingOf, type FrameSettings } from '../../src/app/frame/frame-settings';
import { RENDERER_SETTINGS } from '../../src/render/frame-renderer';

const settings = (change: Partial<FrameSettings>): FrameSettings => ({ sortMode: 'gpu', keyBits: 32, freezeOrder: false, measureOrder: false, renderer: 'auto', ...change });

test.each(RENDERER_SETTINGS)('renderer %s: kept for the centre-depth order (the default), tiles for the per-pixel order and for the per-pixel order view', (renderer) => {
  expect(rendererSettingOf(settings({ renderer }))).toBe(renderer);
  expect(rendererSettingOf(settings({ renderer, order: 'centre-depth', view: 'difference' }))).toBe(renderer);
  expect(rendererSettingOf(settings({ renderer, order: 'per-pixel' }))).toBe('tiles');
  expect(rendererSettingOf(settings({ renderer, view: 'pixel-order' }))).toBe('tiles');
  // The view the frame can show decides: the picture while the per-pixel order view is being prepared.
  expect(rendererSettingOf(settings({ renderer, view: 'pixel-order' }), 'picture')).toBe(renderer);
});

test('the two difference views are heat maps that count pixels; the picture is not', () => {
  expect(isHeatMap('difference')).toBe(true);
  expect(isHeatMap('pixel-order')).toBe(true);
  expect(isHeatMap('picture')).toBe(false);
});
