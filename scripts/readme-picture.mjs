#!/usr/bin/env node
/**
 * The picture at the top of the README: the viewer page, built as users get
 * it (vite build, served by vite preview), opened in headless Chromium on
 * SwiftShader (tests/e2e/chromium.mjs) on its own default scene
 * (data/default-scene.ply), photographed once the page says it is ready and
 * the camera is at rest, and written as WebP (encoded by the same Chromium)
 * or, for a name ending in .png, as PNG.
 *
 *   node scripts/readme-picture.mjs [--out docs/images/viewer.webp]
 *     [--width 1280] [--height 800] [--panels] [--quality 0.9] [--query '&eye=…']
 *
 * Without --panels the page opens with `ui=0` (the scene alone). The quad
 * renderer is asked for: "auto" would first time the tile renderer, whose
 * frames take seconds on SwiftShader, and both draw the same picture.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { withBuiltPage } from './built-page.mjs';

/** The longest the page may take to show its first scene: the whole script took ~11 s on 2 busy cores at 1280×800; room for a far slower machine. */
const READY_TIMEOUT_MS = 300_000;

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    out: { type: 'string', default: 'docs/images/viewer.webp' },
    width: { type: 'string', default: '1280' },
    height: { type: 'string', default: '800' },
    panels: { type: 'boolean', default: false },
    quality: { type: 'string', default: '0.9' },
    query: { type: 'string', default: '' },
  },
});
const width = Number(args.width);
const height = Number(args.height);
const quality = Number(args.quality);
if (!(Number.isInteger(width) && width > 0 && Number.isInteger(height) && height > 0)) throw new Error(`--width and --height must be whole numbers of pixels above 0 (got ${args.width} × ${args.height})`);
if (!(quality > 0 && quality <= 1)) throw new Error(`--quality must be in (0, 1] (got ${args.quality})`);
const out = resolve(root, args.out);
if (!/\.(webp|png)$/i.test(out)) throw new Error(`--out must name a .webp or .png file (got ${args.out})`);

await withBuiltPage({ width, height, timeoutMs: READY_TIMEOUT_MS }, async ({ url, context }) => {
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
  await page.goto(`${url}?renderer=quads${args.panels ? '' : '&ui=0'}${args.query}`);
  await page.waitForFunction("document.body.dataset.viewer !== undefined && !window.__splatsort?.loading", undefined, { polling: 250 });
  const shown = await page.evaluate(() => document.body.dataset.viewer);
  if (shown !== 'ready') throw new Error(`the page did not show its scene (data-viewer=${shown}): ${errors.join('; ') || 'no error reported'}`);
  // The camera glides to its opening view: wait for two frames in a row from the same eye.
  await page.waitForFunction(() => {
    const { frames, view } = window.__splatsort;
    const seen = (window.__pictureSeen ??= { frames: -1, view: '' });
    const same = frames > seen.frames && JSON.stringify(view) === seen.view;
    if (frames > seen.frames) Object.assign(seen, { frames, view: JSON.stringify(view) });
    return same;
  }, undefined, { polling: 250 });
  if (errors.length > 0) throw new Error(`the page reported errors: ${errors.join('; ')}`);
  const png = await page.screenshot({ type: 'png' });

  let bytes = png;
  if (/\.webp$/i.test(out)) {
    const encoder = await context.newPage();
    const encoded = await encoder.evaluate(async ({ base64, quality }) => {
      const image = await createImageBitmap(await (await fetch(`data:image/png;base64,${base64}`)).blob());
      const canvas = new OffscreenCanvas(image.width, image.height);
      canvas.getContext('2d').drawImage(image, 0, 0);
      const webp = await canvas.convertToBlob({ type: 'image/webp', quality });
      if (webp.type !== 'image/webp') throw new Error(`this Chromium encodes no WebP (it gave ${webp.type})`);
      return [...new Uint8Array(await webp.arrayBuffer())];
    }, { base64: png.toString('base64'), quality });
    bytes = Buffer.from(encoded);
  }
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, bytes);
  console.log(JSON.stringify({ out: args.out, width, height, panels: args.panels, bytes: bytes.length }));
});
