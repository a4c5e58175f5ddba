/**
 * The viewer in Chromium on SwiftShader: the default scene is drawn, the
 * camera responds to the mouse, the CPU sort takes over and hands back, a
 * scene opens through the file picker, and a broken file is reported on the
 * page while the current scene keeps rendering. One page for the whole file:
 * SwiftShader draws a few frames per second, so each state is reached once.
 * The stored default scene is drawn and orbited; from the view link on, the
 * page reloads with its light copy (tests/e2e/browser.ts), which the later
 * tests, about the panel, sorts and files, do not depend on.
 *
 * Built to hold on machines much slower than CI's (2 cores, no GPU): one
 * viewer page draws at a time (SwiftShader's GPU process takes every core
 * while a page draws, and two drawing pages starve each other), and every
 * wait is on the page's own state (ready, frames drawn, splat counts, the
 * panel's open state), giving up with what it waited for after
 * WAIT_TIMEOUT_MS.
 */

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_TIMEOUT_MS, BROWSER_VIEWPORT, serveLightDefaultScene, TestPage, useViewerPage } from './browser';
import { scenePath } from '../shared-scenes';
import { decodePng } from '../../cli/png';
import { parseSplatPly } from '../../src/io/ply/parse';
import { bundleSog, writeSog } from '../support/sog-writer';
import { writeSplatPly } from '../support/ply-writer';
import { aerialTown, cloudOf, placed } from '../support/up-scenes';
import { UP_BY_CONVENTION } from '../../src/app/camera/framing';
import { realScene } from '../support/real-scenes';
import { loadSplatFile } from '../../src/io/parse-splat-file';
import { selectSplats } from '../../src/app/session/splat-selection';
import type { FrameCamera } from '../../src/render/frame-uniforms';
import { robustBounds, type Bounds, type SplatCloud } from '../../src/scene/splat-cloud';

const SCENE_9K = scenePath('inria_kacytran_iter7000_9k_sh3.ply');
/** Every page's size (small, so that SwiftShader keeps up: ~1 frame/s). */
const VIEWPORT = BROWSER_VIEWPORT;
/** The viewer's default background, #101318. */
const BACKGROUND = [0x10, 0x13, 0x18] as const;
/** Everything drawn over the canvas; left out of the pixel checks. */
const CHROME = '.lil-gui.lil-root, .stats, .hint, .messages, .progress, .help';

/** The default scene itself: the first tests look at it. */
const viewer = useViewerPage({ fullDefaultScene: true, renderer: 'auto' });
const page = () => viewer.page;
const state = () => viewer.tab.state();
const waitFor = (what: string, predicate: string) => viewer.tab.waitFor(what, predicate);
const guiRow = (name: string) => viewer.tab.row(name);
const waitForRow = (name: string, value: string) => viewer.tab.waitForRow(name, value);
const setPanelOpen = (open: boolean) => viewer.tab.setPanelOpen(open);
let tempDir: string | undefined;
const pictures: Record<'default' | 'loaded', Picture> = {} as Record<'default' | 'loaded', Picture>;

interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

interface Picture {
  width: number;
  height: number;
  /** RGBA, 8 bits per channel. */
  rgba: Uint8Array;
  /** Where the page's panels and messages covered the canvas. */
  chrome: Rect[];
}

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

/** Pixels of `a` (outside both pictures' panels) that are not background, and that differ from `b`. */
function analyse(a: Picture, b: Picture = a): { drawn: number; changed: number; total: number } {
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

async function selectSort(label: string): Promise<void> {
  await select('sort mode', label);
}

describe('viewer page', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  afterAll(async () => {
    if (tempDir) await rm(tempDir, { recursive: true, force: true });
  });

  it('draws the default scene framed in the window', async () => {
    expect(await page().evaluate(() => document.body.dataset.viewer)).toBe('ready');
    await viewer.tab.waitForFrames(2);
    const s = await state();
    expect(s).toMatchObject({ ready: true, sceneName: 'default-scene.ply', activeSort: 'GPU radix', lastError: null });
    expect(s.splats).toBeGreaterThan(30_000);
    expect(await guiRow('active').locator('input').inputValue()).toBe('GPU radix');
    expect(await guiRow('splats').locator('input').inputValue()).toBe(s.splats.toLocaleString('en-US'));
    pictures.default = await capture('e2e-viewer-default.png');
    const { drawn, total } = analyse(pictures.default);
    // The vase and its plinth fill a good part of the window, and do not spill over all of it.
    expect(drawn / total).toBeGreaterThan(0.08);
    expect(drawn / total).toBeLessThan(0.9);
  });

  it('orbits the camera when the canvas is dragged', async () => {
    const frames = (await state()).frames;
    await dragOnCanvas(0.15, -0.05);
    // The frame that started after the drag ended has the new camera.
    await waitFor('the second frame after the drag', `window.__splatsort.frames >= ${frames + 2}`);
    await viewer.tab.waitForFrames(1);
    const orbited = await capture('e2e-viewer-orbited.png');
    const { drawn, changed, total } = analyse(orbited, pictures.default);
    expect(drawn / total).toBeGreaterThan(0.08);
    expect(changed / total).toBeGreaterThan(0.02);
  });

  it('keeps the view in the URL, and a copied link opens the same view', async () => {
    // The orbit above moved the camera: the URL follows it (debounced).
    await waitFor('the view in the address', "new URL(location.href).searchParams.has('eye')");
    const link = await page().evaluate(() => location.href);
    const numbers = (href: string) => ['eye', 'target', 'up', 'fovy'].flatMap((k) => new URL(href).searchParams.get(k)!.split(',').map(Number));
    // The link opens in this same page, not in a second one: two viewer pages
    // drawing at once share SwiftShader's cores and starve each other. Its
    // numbers are spelled differently (1.5e+0 for 1.5, the same values), so
    // that the page's own rewrite of its URL shows, and is waited for.
    const respelled = new URL(link);
    for (const k of ['eye', 'target', 'up', 'fovy']) {
      respelled.searchParams.set(k, respelled.searchParams.get(k)!.split(',').map((v) => Number(v).toExponential()).join(','));
    }
    expect(numbers(respelled.href)).toEqual(numbers(link));
    // The link also names a renderer (auto, the default, is left out of links).
    expect(new URL(link).searchParams.has('renderer')).toBe(false);
    respelled.searchParams.set('renderer', 'quads');
    // From here on the page loads the light copy of the default scene (the view does not depend on it).
    await serveLightDefaultScene(viewer.context);
    await page().goto(respelled.href);
    await viewer.tab.waitForViewer();
    await viewer.tab.waitFor('the page to write its own view into its address', (opened) => location.href !== opened, respelled.href);
    // The restored page wrote its own view into its URL: the same view, to
    // double precision (the f32 matrices the GPU gets are equal).
    const [got, want] = [numbers(await page().evaluate(() => location.href)), numbers(link)];
    expect(got).toHaveLength(10);
    got.forEach((v, i) => expect(Math.abs(v - want[i]!)).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(want[i]!))));
    // The link's renderer draws, and stays in the address.
    expect(await page().evaluate(() => [new URL(location.href).searchParams.get('renderer'), window.__splatsort!.renderer.renderer, window.__splatsort!.renderer.state]))
      .toEqual(['quads', 'quads', 'set']);
    expect(viewer.tab.errors).toEqual([]);
  });

  it('saves a screenshot at twice the canvas size', async () => {
    // The panel starts closed in a window this small.
    await setPanelOpen(true);
    await select('screenshot size', '2× canvas');
    const [download] = await Promise.all([
      page().waitForEvent('download'),
      guiRow('screenshot \\(P\\)').locator('button').click(),
    ]);
    const size = await page().evaluate(() => [document.querySelector('canvas')!.width, document.querySelector('canvas')!.height]);
    const png = decodePng(await readFile((await download.path())!));
    expect([png.width, png.height]).toEqual([2 * size[0]!, 2 * size[1]!]);
    expect(download.suggestedFilename()).toBe(`splatsort-${png.width}x${png.height}.png`);
    await select('screenshot size', '1× canvas');
    await setPanelOpen(false);
  });

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

  it('opens an SPZ (version 4, zstd streams), with its anti-aliasing flag, and a .splat file', async () => {
    await page().setInputFiles('#file-input', scenePath('playcanvas_biker_v4.spz'));
    await waitFor('the biker on screen', 'window.__splatsort.splats === 152746');
    await waitForRow('filter', '0.3 px²');
    // An SH-0 scene: the SH slider says 0 and offers nothing to choose.
    expect(await guiRow('SH degree').locator('input').inputValue()).toBe('0');
    expect(await guiRow('SH degree').getAttribute('class')).toMatch(/lil-disabled/);
    // The same file, flagged as trained anti-aliased (bit 0 of the header's flags byte): drawn with that filter.
    const flagged = await readFile(scenePath('playcanvas_biker_v4.spz'));
    flagged[14]! |= 1;
    await page().setInputFiles('#file-input', { name: 'biker-antialiased.spz', mimeType: 'application/octet-stream', buffer: flagged });
    await waitForRow('filter', '0.3 px², compensated, from file');
    expect(await guiRow('filter').getAttribute('title')).toBe('0.3 px² + opacity compensation (from SPZ flag "antialiased")');
    await page().setInputFiles('#file-input', scenePath('justdealman_model.splat'));
    await waitFor('the .splat scene on screen', 'window.__splatsort.splats === 116549');
    expect((await state()).lastError).toBeNull();
  });

  it('opens a .sog bundle, and a SOG meta.json picked with its images', async () => {
    const cloud = parseSplatPly(await readFile(SCENE_9K));
    const written = await writeSog(cloud, { shDegree: 1, paletteSize: 256 });
    await page().setInputFiles('#file-input', { name: 'scene.sog', mimeType: 'application/zip', buffer: Buffer.from(bundleSog(written)) });
    await waitFor('the SOG bundle on screen', "window.__splatsort.splats === 9080 && window.__splatsort.sceneName === 'scene.sog'");
    const loose = [
      { name: 'meta.json', mimeType: 'application/json', buffer: Buffer.from(written.metaJson) },
      ...[...written.files].map(([name, bytes]) => ({ name, mimeType: 'image/webp', buffer: Buffer.from(bytes) })),
    ];
    await page().setInputFiles('#file-input', loose);
    await waitFor('the SOG meta.json on screen', "window.__splatsort.sceneName === 'meta.json' && !window.__splatsort.loading");
    expect((await state()).splats).toBe(9080);
    expect((await state()).lastError).toBeNull();
  });

  it('opens a scene chosen in the file picker', async () => {
    await page().setInputFiles('#file-input', SCENE_9K);
    await waitFor('the 9k scene on screen', 'window.__splatsort.splats === 9080');
    await viewer.tab.waitForFrames(2);
    const s = await state();
    expect(s.sceneName).toBe('inria_kacytran_iter7000_9k_sh3.ply');
    expect(s.lastError).toBeNull();
    pictures.loaded = await capture('e2e-viewer-loaded-9k.png');
    const { drawn, changed, total } = analyse(pictures.loaded, pictures.default);
    expect(drawn / total).toBeGreaterThan(0.05);
    expect(changed / total).toBeGreaterThan(0.05);
  });

  it('saves the scene on screen: all of it as .spz, what is in view as .ply, a box as .splat', async () => {
    const scene = await realScene('inria_kacytran_iter7000_9k_sh3.ply');
    // The view the next tests compare with comes back at the end.
    const home = await viewer.tab.settledView();
    await setPanelOpen(true);
    await page().locator('.lil-gui .lil-title', { hasText: /^Save scene as$/ }).click();
    const save = async (): Promise<{ name: string; cloud: SplatCloud }> => {
      const [download] = await Promise.all([page().waitForEvent('download'), guiRow('save').locator('button').click()]);
      const name = download.suggestedFilename();
      return { name, cloud: await loadSplatFile(await readFile((await download.path())!), name) };
    };

    await select('format', '.spz (SPZ)');
    const all = await save();
    expect(all.name).toBe('inria_kacytran_iter7000_9k_sh3.spz');
    expect({ count: all.cloud.count, shDegree: all.cloud.shDegree }).toEqual({ count: 9080, shDegree: 3 });

    // In view: what the keep rule keeps from the frame the page drew, applied here to the scene as loaded.
    // From the middle of the scene, looking along +z: part of it is behind the eye or beside the view.
    const { min, max } = robustBounds(scene.positions, scene.count);
    const middle = [0, 1, 2].map((a) => (min[a]! + max[a]!) / 2) as [number, number, number];
    await page().evaluate((eye) => window.__splatsortViewer!.setView({ eye, target: [eye[0]!, eye[1]!, eye[2]! + 1], up: [0, -1, 0], fovyDeg: 50 }), middle);
    await select('format', '.ply (INRIA PLY)');
    await select('keep', 'only what is in view');
    await viewer.tab.settledView();
    // The frame the page drew last, matrices and all (its projection carries the lens shift the overlays ask for).
    const drawn = await page().evaluate(() => {
      const f = window.__splatsortViewer!.lastFrame;
      return { ...f, view: [...f.view], projection: [...f.projection], eye: [...f.eye] };
    });
    const frame = { ...drawn, view: new Float32Array(drawn.view), projection: new Float32Array(drawn.projection), eye: new Float32Array(drawn.eye) } as FrameCamera;
    const inView = selectSplats(scene, { keep: 'in-view', frame }).count;
    const seen = await save();
    expect(seen.name).toBe('inria_kacytran_iter7000_9k_sh3.ply');
    console.log(`in view: ${seen.cloud.count} of ${scene.count} splats saved, ${inView} by the keep rule from the same view`);
    expect(inView).toBeLessThan(0.9 * scene.count);
    expect(inView).toBeGreaterThan(100);
    expect(Math.abs(seen.cloud.count - inView)).toBeLessThanOrEqual(2);

    // A box: exactly the splats whose centre is in it, with every value as loaded.
    await select('format', '.splat');
    await select('keep', 'only inside the box');
    const box: Bounds = { min: [-35, -155, 60], max: [150, 35, 520] };
    await guiRow('box \\(min, max\\)').locator('input').fill([...box.min, ...box.max].join(', '));
    const boxed = await save();
    expect(boxed.name).toBe('inria_kacytran_iter7000_9k_sh3.splat');
    const expected = selectSplats(scene, { keep: 'box', box });
    expect(expected.count).toBeGreaterThan(100);
    expect(boxed.cloud.count).toBe(expected.count);
    expect(Buffer.from(boxed.cloud.positions.buffer).equals(Buffer.from(expected.positions.buffer))).toBe(true);

    // Nothing in the box: a message says so, and nothing is downloaded.
    await guiRow('box \\(min, max\\)').locator('input').fill('1e6, 1e6, 1e6, 2e6, 2e6, 2e6');
    await guiRow('save').locator('button').click();
    const nothing = page().locator('.message', { hasText: /Nothing to save: none of the scene's 9,080 splats is inside the box/ });
    await nothing.waitFor();
    await nothing.locator('button', { hasText: 'Dismiss' }).click();
    await select('keep', 'all splats');
    await page().locator('.lil-gui .lil-title', { hasText: /^Save scene as$/ }).click();
    await setPanelOpen(false);
    // The notices of the files saved go; the view saved from goes back to the one before.
    await page().evaluate(() => document.querySelectorAll<HTMLButtonElement>('.message button.dismiss').forEach((b) => b.click()));
    expect(await page().locator('.message').count()).toBe(0);
    await page().evaluate((view) => window.__splatsortViewer!.setView(view), home);
    await viewer.tab.waitForEye('the view before saving', home.eye);
    expect(viewer.tab.errors).toEqual([]);
  });

  it('reports a broken file on the page and keeps the current scene', async () => {
    tempDir = await mkdtemp(join(tmpdir(), 'splatsort-e2e-'));
    const broken = join(tempDir, 'broken.ply');
    await writeFile(broken, Buffer.from('not a ply file \u0000\u00ff\u0013 garbage garbage garbage'));
    await page().setInputFiles('#file-input', broken);
    await waitFor('the broken file reported', 'window.__splatsort.lastError !== null');
    const message = (await page().locator('.message').first().textContent()) ?? '';
    expect(message).toContain('broken.ply');
    const s = await state();
    expect(s.lastError).toContain('Could not open broken.ply');
    expect(s.splats).toBe(9080);
    expect(s.sceneName).toBe('inria_kacytran_iter7000_9k_sh3.ply');
    const frames = s.frames;
    await viewer.tab.waitForFrames(2);
    expect((await state()).frames).toBeGreaterThan(frames);
    const bad = await capture('e2e-viewer-bad-file.png');
    // The 9k scene is still on screen around the message.
    expect(analyse(bad, pictures.loaded).changed / analyse(bad).total).toBeLessThan(0.2);

    await page().locator('.message button', { hasText: 'Dismiss' }).click();
    expect(await page().locator('.message').count()).toBe(0);
  });

  it('offers to turn over a scene whose up is only the convention; I turns it and the offer goes, as it does for a scene with a ground', async () => {
    // The 9k scene: no ground to go by, so −y by convention, and the offer under its name.
    const hint = page().locator('.up-hint');
    expect((await state()).up.source).toBe(UP_BY_CONVENTION);
    await setPanelOpen(true);
    await hint.waitFor({ state: 'visible' });
    expect(await hint.textContent()).toBe('upside down? press I');

    // In an 800 × 500 window the up axis, the file's name and the offer show whole in their rows.
    await page().setViewportSize({ width: 800, height: 500 });
    await waitFor('the panel beside the scene', "!document.body.classList.contains('narrow-window')");
    const rows = ['.up-hint', ...['file', 'up axis from'].map((name) => `row:${name}`), 'select:up axis'];
    await viewer.tab.waitFor('every row fitted to its width', (rows: string[]) => rows.every((what) => {
      const [kind, name] = what.split(':');
      const row = Array.from(document.querySelectorAll('.lil-gui .lil-controller')).find((c) => c.querySelector('.lil-name')?.textContent === name);
      const shown = kind === 'row' ? row?.querySelector('input') : kind === 'select' ? row?.querySelector('.lil-display') : document.querySelector(what);
      return !!shown && shown.clientWidth > 0 && shown.scrollWidth <= shown.clientWidth;
    }), rows);
    const file = guiRow('file');
    expect(await file.locator('input').inputValue()).toMatch(/^inria_.+….+_sh3\.ply$/);
    expect(await file.getAttribute('title')).toBe('inria_kacytran_iter7000_9k_sh3.ply');
    await page().setViewportSize(VIEWPORT);
    await waitFor('the panel a sheet again', "document.body.classList.contains('narrow-window')");

    // I turns the scene over: +y up, framed anew; the offer goes and stays gone.
    await page().keyboard.press('i');
    await waitFor('+y up', "window.__splatsort.view.up.join() === '0,1,0'");
    await hint.waitFor({ state: 'hidden' });
    expect((await state()).up).toMatchObject({ axis: '+y', source: 'chosen in the panel' });
    expect(await guiRow('up axis').locator('select').inputValue()).toBe('+y');
    await page().keyboard.press('i');
    await waitFor('−y up again', "window.__splatsort.view.up.join() === '0,-1,0'");
    expect(await hint.isHidden()).toBe(true);

    // The scene opened anew is −y by convention again, with the offer; a town on its ground (+z up) is guessed, without it.
    await page().setInputFiles('#file-input', SCENE_9K);
    await viewer.tab.waitFor('the 9k scene by convention', (source: string) => window.__splatsort!.up.source === source, UP_BY_CONVENTION);
    await hint.waitFor({ state: 'visible' });
    const town = cloudOf(placed(aerialTown(), '+z'));
    await page().setInputFiles('#file-input', { name: 'town.ply', mimeType: 'application/octet-stream', buffer: Buffer.from(writeSplatPly(town)) });
    await waitFor('the town on screen', `window.__splatsort.splats === ${town.count} && !window.__splatsort.loading`);
    expect((await state()).up.axis).toBe('+z');
    await hint.waitFor({ state: 'hidden' });
    await setPanelOpen(false);
  });

  it('toggles the keyboard help with H and closes it with Escape', async () => {
    await page().locator('.viewer-canvas').focus();
    await page().keyboard.press('h');
    const help = page().locator('.help');
    // Waits on the page's state, not a time: expect.poll gives up after 1 s.
    await help.waitFor({ state: 'visible' });
    expect(await help.isVisible()).toBe(true);
    for (const text of ['Left drag', 'Orbit', 'Wheel', 'H or ?']) expect(await help.textContent()).toContain(text);
    // It names every format the viewer opens, not only .ply.
    expect(await help.textContent()).toContain('Drop a splat file (.ply .splat .spz .ksplat .sog, or a SOG meta.json with its images) anywhere');
    await page().keyboard.press('Escape');
    await help.waitFor({ state: 'hidden' });
    expect(await help.isVisible()).toBe(false);
    expect(await page().locator('.hint').textContent()).toBe('H for help');
  });

  it('fits the whole help, and the loading bar beside the panel, in a window 500 px high', async () => {
    await page().setViewportSize({ width: 800, height: 500 });
    try {
      await setPanelOpen(false);
      await page().locator('.viewer-canvas').focus();
      await page().keyboard.press('h');
      const help = page().locator('.help');
      await help.waitFor({ state: 'visible' });
      // Nothing scrolled out of sight: the last key (Esc) and the Close button are in the window.
      const fit = await help.evaluate((e) => ({ scroll: e.scrollHeight, client: e.clientHeight }));
      expect(fit.scroll).toBeLessThanOrEqual(fit.client);
      for (const part of [help.locator('dt', { hasText: 'Esc' }), help.locator('button', { hasText: 'Close' })]) {
        const box = (await part.boundingBox())!;
        expect(box.y + box.height).toBeLessThanOrEqual(500);
      }
      await page().keyboard.press('Escape');
      await help.waitFor({ state: 'hidden' });
      // The loading bar as a load shows it, against the panel's title bar (closed) and the open panel.
      const overlaps = await page().evaluate(() => {
        const bar = document.querySelector<HTMLElement>('.progress')!;
        bar.hidden = false;
        const a = bar.getBoundingClientRect();
        const b = document.querySelector('.lil-gui.lil-root > .lil-title')!.getBoundingClientRect();
        bar.hidden = true;
        return a.right > b.left && b.right > a.left && a.bottom > b.top && b.bottom > a.top;
      });
      expect(overlaps).toBe(false);
    } finally {
      await page().setViewportSize(VIEWPORT);
    }
  });

  it('logged no console errors', async () => {
    // The broken file is reported on the page only, never as a console error.
    expect(viewer.tab.errors).toEqual([]);
    await page().close();
  });

  // One more page load for both: a page without timestamp-query, opened from a link to a scene that is not there.
  let other: TestPage;

  it('names a link to a scene that is not there, and shows the default scene', async () => {
    other = await viewer.newPage();
    // Hide the feature from the device the viewer requests (the next test looks at what the page says of it).
    await other.page.addInitScript(() => {
      const requestDevice = GPUAdapter.prototype.requestDevice;
      GPUAdapter.prototype.requestDevice = function (descriptor?: GPUDeviceDescriptor) {
        const requiredFeatures = [...(descriptor?.requiredFeatures ?? [])].filter((f) => f !== 'timestamp-query');
        return requestDevice.call(this, { ...descriptor, requiredFeatures });
      };
    });
    // The server answers an unknown path with its index page, as the dev server and single-page hosts do.
    await other.page.goto(`${viewer.url}?url=no-such-scene.ply`);
    await other.waitFor('the viewer ready', 'document.body.dataset.viewer === "ready"');
    const s = await other.state();
    expect(s.sceneName).toBe('default-scene.ply');
    // The link's message stays up over the default scene; the state's error went when that scene opened.
    expect(s.lastError).toBeNull();
    expect(await other.page.locator('.message h2').allTextContents()).toEqual(['Could not open no-such-scene.ply']);
    expect(await other.page.locator('.message p').textContent()).toMatch(/no-such-scene\.ply is a web page, not a splat file/);
    // The address bar follows the view, and keeps the link's scene address so its typo can be fixed there.
    await other.waitFor('the view in the address', "new URL(location.href).searchParams.has('eye')");
    expect(await other.page.evaluate(() => new URL(location.href).searchParams.get('url'))).toBe('no-such-scene.ply');
  });

  it('says "n/a" for GPU timings where the device has no timestamp-query', async () => {
    expect(await other.page.locator('.stats-note').textContent()).toBe('GPU timings n/a: no timestamp-query');
    expect(await other.page.locator('.stats-na').count()).toBe(3);
    expect(other.errors).toEqual([]);
    await other.page.close();
  });
});
