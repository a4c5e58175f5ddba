/**
 * Splatsort in another page, through its package entry (src/lib/index.ts
 * createViewer), as the built example page examples/two-viewers.html uses
 * it: two viewers on one page each open their scene and draw it, with
 * their own camera; the public events and captures work; destroying one
 * removes its canvas and leaves the other drawing; and the <splat-viewer>
 * element (src/lib/element.ts, examples/element.html), its attributes
 * changed live. Every wait is on the page's own state
 * (window.splatsortExample, window.splatsortElementEvents, the element).
 */
import { expect, test } from 'vitest';
import { BROWSER_TEST_TIMEOUT_MS, useViewerPage } from './browser';
import type { SplatViewer } from '../../src/lib/index';
import type {} from '../../src/lib/element';

declare global {
  interface Window {
    splatsortExample?: { viewers: SplatViewer[]; loaded: number; errors: string[] };
    splatsortElementEvents?: { type: string; detail: unknown }[];
  }
}

const fixture = useViewerPage({ query: null });

test('two viewers on one page open their scenes and draw; each has its own camera, flown or set; they save and capture; one destroyed leaves the other drawing', async () => {
  const { page, tab } = fixture;
  await page.goto(`${fixture.url}examples/two-viewers.html`);
  await tab.waitFor('both viewers to open their scene', () => window.splatsortExample?.loaded === 2 || (window.splatsortExample?.errors.length ?? 0) > 0, undefined);
  expect(await page.evaluate(() => window.splatsortExample!.errors)).toEqual([]);
  await tab.waitFor('both viewers to draw their scene', () => window.splatsortExample!.viewers.every((v) => v.state.frames > 2 && v.state.splats > 0), undefined);

  // Each viewer's camera is its own: moving one leaves the other where it was.
  const eyes = await page.evaluate(() => {
    const [left, right] = window.splatsortExample!.viewers;
    const before = right!.camera.get().eye.slice();
    const moved = left!.camera.get();
    left!.camera.set({ ...moved, eye: [moved.eye[0] * 2, moved.eye[1] * 2, moved.eye[2] * 2] });
    return { left: left!.camera.get().eye, right: right!.camera.get().eye, before };
  });
  expect(eyes.right).toEqual(eyes.before);
  expect(eyes.left).not.toEqual(eyes.right);

  // A flight ends at the pose asked for, and its promise says so.
  const flown = await page.evaluate(async () => {
    const viewer = window.splatsortExample!.viewers[1]!;
    const start = viewer.camera.get();
    const to = { ...start, eye: [start.eye[0] + 0.5, start.eye[1] + 0.25, start.eye[2] - 0.5] as [number, number, number] };
    await viewer.camera.flyTo(to, { seconds: 0.3 });
    return { to: to.eye, now: viewer.camera.get().eye };
  });
  flown.now.forEach((v, i) => expect(v).toBeCloseTo(flown.to[i]!, 4));

  // The scene saved as a file of a writable format, whole.
  const saved = await page.evaluate(async () => {
    const viewer = window.splatsortExample!.viewers[0]!;
    const file = await viewer.save('ply');
    return { name: file.name, bytes: file.blob.size, splats: file.splats, shown: viewer.state.splats };
  });
  expect(saved.name).toBe('default-scene.ply');
  expect(saved.splats).toBe(saved.shown);
  expect(saved.bytes).toBeGreaterThan(saved.splats * 62 * 4);

  // A capture is a PNG of the size asked for.
  const png = await page.evaluate(async () => {
    const blob = await window.splatsortExample!.viewers[0]!.capture({ width: 64, height: 48 });
    const bytes = new Uint8Array(await blob.arrayBuffer());
    return { type: blob.type, width: new DataView(bytes.buffer).getUint32(16), height: new DataView(bytes.buffer).getUint32(20) };
  });
  expect(png).toEqual({ type: 'image/png', width: 64, height: 48 });

  const frames = await page.evaluate(() => {
    const { viewers } = window.splatsortExample!;
    viewers[1]!.destroy();
    return { canvases: document.querySelectorAll('#right canvas').length, left: viewers[0]!.state.frames };
  });
  expect(frames.canvases).toBe(0);
  await tab.waitFor('the other viewer to go on drawing', (start: number) => window.splatsortExample!.viewers[0]!.state.frames > start + 2, frames.left);
  expect(tab.errors).toEqual([]);
}, BROWSER_TEST_TIMEOUT_MS);

test('the <splat-viewer> element: opens its src, reflects its attributes both ways, changes renderer live with a DOM event, and frees its viewer when removed', async () => {
  const { page, tab } = fixture;
  await page.goto(`${fixture.url}examples/element.html`);
  await tab.waitFor('the element to open its scene', () => (window.splatsortElementEvents ?? []).some((e) => e.type === 'loaded' || e.type === 'error'), undefined);
  expect(await page.evaluate(() => window.splatsortElementEvents!.filter((e) => e.type === 'error'))).toEqual([]);
  expect(await page.evaluate(() => window.splatsortElementEvents!.find((e) => e.type === 'rendererchange')?.detail)).toBe('quads');

  // Property → attribute, and the change applied: the frames are drawn by tiles.
  const reflected = await page.evaluate(() => {
    const element = document.querySelector('splat-viewer')!;
    element.renderer = 'tiles';
    element.budget = '500k';
    element.setAttribute('order', 'per-pixel');
    return { renderer: element.getAttribute('renderer'), budget: element.getAttribute('budget'), order: element.order, controls: element.controls };
  });
  expect(reflected).toEqual({ renderer: 'tiles', budget: '500k', order: 'per-pixel', controls: true });
  await tab.waitFor('a rendererchange event to tiles', () => window.splatsortElementEvents!.some((e) => e.type === 'rendererchange' && e.detail === 'tiles'), undefined);
  await tab.waitFor('frames drawn per pixel', () => document.querySelector('splat-viewer')!.viewer?.state.order === 'per-pixel', undefined);

  const removed = await page.evaluate(() => {
    const element = document.querySelector('splat-viewer')!;
    element.remove();
    return { viewer: element.viewer, canvases: element.querySelectorAll('canvas').length };
  });
  expect(removed).toEqual({ viewer: null, canvases: 0 });
  expect(tab.errors).toEqual([]);
}, BROWSER_TEST_TIMEOUT_MS);
