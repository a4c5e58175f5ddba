/**
 * Moving through a scene in the viewer, in Chromium on SwiftShader: a
 * double-click makes the splat surface under the cursor the point orbited
 * (on a scene built so the answer is known: an opaque wall in the plane
 * z = 0), a double-click on the background changes nothing, and fly mode
 * (C) moves the eye along the view for a held W, with the mode kept in the
 * view link, which opens in it; named views are added from the panel, flown
 * to, played as a tour, stepped through with [ and ], their pins stay on
 * the point they mark and open their view, and they travel in the link and
 * open from `?views=`.
 *
 * Every wait is on the page's own state (window.__splatsort); each gives up
 * with what it waited for after tests/e2e/browser.ts's WAIT_TIMEOUT_MS.
 */
import { mat4, vec4 } from 'gl-matrix';
import { beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_TIMEOUT_MS, useViewerPage } from './browser';

/** Opened from a fly-mode link: the first test checks the link's mode, then goes back to orbit. */
const viewer = useViewerPage({ query: '?mode=fly' });
const page = () => viewer.page;
const state = () => viewer.tab.state();
const waitFor = (what: string, predicate: string) => viewer.tab.waitFor(what, predicate);
const sub = (a: readonly number[], b: readonly number[]) => [a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!];
const dot = (a: readonly number[], b: readonly number[]) => a[0]! * b[0]! + a[1]! * b[1]! + a[2]! * b[2]!;
const length = (a: readonly number[]) => Math.hypot(a[0]!, a[1]!, a[2]!);

/** Half the wall's side: splats cover x and y in [−WALL, WALL] at z = 0. */
const WALL = 2;

/**
 * A .splat file (32 bytes a splat: position and scale as f32, RGBA and a
 * quaternion as bytes) of a 41 × 41 grid of opaque round splats, 0.1 apart
 * with σ 0.06: one wall you cannot see through, lying in z = 0.
 */
function wallScene(): Buffer {
  const side = 41;
  const bytes = Buffer.alloc(side * side * 32);
  let at = 0;
  for (let j = 0; j < side; j++) {
    for (let i = 0; i < side; i++) {
      bytes.writeFloatLE(-WALL + (2 * WALL * i) / (side - 1), at);
      bytes.writeFloatLE(-WALL + (2 * WALL * j) / (side - 1), at + 4);
      bytes.writeFloatLE(0, at + 8);
      bytes.writeFloatLE(0.06, at + 12);
      bytes.writeFloatLE(0.06, at + 16);
      bytes.writeFloatLE(0.06, at + 20);
      bytes.set([200, 120 + 2 * i, 60 + 3 * j, 255, 255, 128, 128, 128], at + 24); // colour, alpha; quaternion (1, 0, 0, 0)
      at += 32;
    }
  }
  return bytes;
}

describe('moving through a scene', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  beforeAll(async () => {
    await page().setInputFiles('#file-input', { name: 'wall.splat', mimeType: 'application/octet-stream', buffer: wallScene() });
    await waitFor('the wall on screen, loaded', "window.__splatsort.sceneName === 'wall.splat' && !window.__splatsort.loading");
    await viewer.tab.waitForFrames(1);
  }, BROWSER_TEST_TIMEOUT_MS);

  it('opens a fly-mode link in fly mode; C goes back to orbit, and the link drops the mode', async () => {
    const mode = page().locator('.lil-gui .lil-controller').filter({ hasText: 'camera (C)' }).locator('select');
    expect(await mode.inputValue()).toBe('fly');
    await page().keyboard.press('c');
    await waitFor('orbit mode in the link', "!new URLSearchParams(location.search).has('mode')");
    expect(await mode.inputValue()).toBe('orbit');
  });

  it('orbits the splat under a double-click: the eye stays, the point is on the wall and under the cursor', async () => {
    const free = await viewer.tab.settledFraming();
    const { view: before, insets } = await state();
    const canvas = (await page().locator('canvas.viewer-canvas').boundingBox())!;
    // Left of the middle of the part the overlays leave free, still on the wall (framed to fill it).
    const [x, y] = [canvas.x + free.x + free.width * 0.42, canvas.y + free.y + free.height * 0.55];
    await page().mouse.dblclick(x, y);
    await waitFor('a pick', 'window.__splatsort.picked !== undefined');
    const picked = (await state()).picked!;
    expect(picked).not.toBeNull();
    // On the wall: its plane, within its sides (a splat's σ of slack).
    expect(Math.abs(picked![2])).toBeLessThan(0.06);
    expect(Math.abs(picked![0])).toBeLessThan(WALL + 0.06);
    expect(Math.abs(picked![1])).toBeLessThan(WALL + 0.06);
    // Under the cursor: seen from the view before the pick, the point projects onto the pixel clicked
    // (through the lens shift that centres the picture in the free part: OrbitCamera.projectionMatrix).
    const view = mat4.lookAt(mat4.create(), before.eye, before.target, before.up);
    const projection = mat4.perspectiveZO(mat4.create(), (before.fovyDeg * Math.PI) / 180, canvas.width / canvas.height, 0.01, Infinity);
    [projection[8], projection[9]] = [insets.right - insets.left, insets.top - insets.bottom];
    const clip = vec4.transformMat4(vec4.create(), vec4.transformMat4(vec4.create(), [...picked!, 1], view), projection);
    const pixel = [((clip[0] / clip[3] + 1) / 2) * canvas.width, ((1 - clip[1] / clip[3]) / 2) * canvas.height];
    expect(Math.abs(pixel[0]! - (x - canvas.x))).toBeLessThan(1);
    expect(Math.abs(pixel[1]! - (y - canvas.y))).toBeLessThan(1);
    await waitFor('the picked point as the target', `Math.hypot(...window.__splatsort.view.target.map((t, i) => t - ${JSON.stringify(picked)}[i])) < 1e-6`);
    const after = (await state()).view;
    expect(length(sub(after.eye, before.eye))).toBeLessThan(1e-6 * length(sub(before.eye, before.target)));
    // The picked point is now straight ahead: the picture turned to centre it.
    const forward = sub(after.target, after.eye);
    expect(dot(forward, sub(picked!, after.eye)) / (length(forward) * length(sub(picked!, after.eye)))).toBeGreaterThan(1 - 1e-9);

    // The background has nothing to orbit: the view stays, and the page says so.
    await page().evaluate(() => { (window.__splatsort as { picked?: unknown }).picked = undefined; });
    await page().mouse.dblclick(canvas.x + 3, canvas.y + 3);
    await waitFor('a pick on the background', 'window.__splatsort.picked !== undefined');
    expect((await state()).picked).toBeNull();
    await page().locator('.messages').filter({ hasText: 'Nothing to orbit there' }).waitFor();
    expect(length(sub((await state()).view.target, picked!))).toBeLessThan(1e-6);
  });

  it('flies: C switches to fly mode, kept in the link; a held W moves eye and target forward along the view', async () => {
    await page().keyboard.press('r');
    await page().keyboard.press('c');
    await waitFor('fly mode in the link', "new URLSearchParams(location.search).get('mode') === 'fly'");
    const mode = page().locator('.lil-gui .lil-controller').filter({ hasText: 'camera (C)' }).locator('select');
    expect(await mode.inputValue()).toBe('fly');
    const start = await viewer.tab.settledView();
    const startMs = Date.now();
    await page().keyboard.down('w');
    // Until the eye has moved a tenth of the way to the target, then let go.
    await waitFor('the eye a tenth of the way forward', `Math.hypot(...window.__splatsort.view.eye.map((e, i) => e - ${JSON.stringify(start.eye)}[i])) > 0.1 * ${length(sub(start.target, start.eye))}`);
    await page().keyboard.up('w');
    const heldS = (Date.now() - startMs) / 1000;
    const end = await viewer.tab.settledView();
    const moved = sub(end.eye, start.eye);
    const forward = sub(start.target, start.eye);
    // Along the view, not turned: the target moved with the eye, by the same step.
    expect(dot(moved, forward) / (length(moved) * length(forward))).toBeGreaterThan(1 - 1e-6);
    expect(length(sub(sub(end.target, start.target), moved))).toBeLessThan(1e-6 * length(forward));
    // No faster than the scene's default speed (its framing diagonal in 8 s) over the time W was held.
    const diagonal = Math.hypot(2 * WALL, 2 * WALL, 0);
    expect(length(moved)).toBeLessThan((diagonal / 8) * (heldS + 0.2));
    // The eye stays where it came to rest once W is let go.
    await viewer.tab.waitForFrames(2);
    expect(length(sub((await state()).view.eye, end.eye))).toBe(0);

    // Back to orbit with C; the link drops the mode.
    await page().keyboard.press('c');
    await waitFor('orbit mode in the link', "!new URLSearchParams(location.search).has('mode')");
    expect(await mode.inputValue()).toBe('orbit');
    expect(viewer.tab.errors).toEqual([]);
  });
  it('names views, flies to them, plays them as a tour; a pin marks its point and opens its view; the views reopen from ?views=', async () => {
    const tab = viewer.tab;
    const views = (expression: string) => page().evaluate(`(() => { const views = window.__splatsortViewer.views; return ${expression}; })()`);
    await page().keyboard.press('r');
    const home = await tab.settledView();
    // Short flights and pauses: the tour's timing is what a flight to a view takes.
    await page().evaluate('window.__splatsortViewer.views.tour = { flightSeconds: 0.3, pauseSeconds: 0.1 }');
    // The panel's Views folder: the first view as the scene opened, the second close to a corner of the wall, pinned there.
    await tab.setPanelOpen(true);
    const folder = page().locator('.lil-gui .lil-title', { hasText: /^Views$/ });
    if ((await folder.getAttribute('aria-expanded')) !== 'true') await folder.click();
    const name = tab.row('name').locator('input');
    await name.fill('Whole wall');
    await tab.row('add this view').locator('button').click();
    const corner = { eye: [1, 1, 2.5], target: [1, 1, 0], up: home.up, fovyDeg: home.fovyDeg };
    await page().evaluate(`window.__splatsortViewer.camera.set(${JSON.stringify(corner)})`);
    await tab.waitForEye('the corner', corner.eye);
    await name.fill('Corner');
    await tab.row('pin at the centre').locator('input').check();
    await tab.row('add this view').locator('button').click();
    expect(await page().locator('.views-list .views-go').allTextContents()).toEqual(['Whole wall', '◉ Corner']);
    await tab.setPanelOpen(false);
    await tab.settledFraming();

    // Looking at the pinned point, the pin is at the centre of the free part of the window, where the camera frames its target.
    const pin = page().locator('.views-pin', { hasText: 'Corner' });
    const pinAt = async () => ({ x: Number(await pin.getAttribute('data-x')), y: Number(await pin.getAttribute('data-y')) });
    const free = (await state()).freeRect;
    const centre = { x: free.x + free.width / 2, y: free.y + free.height / 2 };
    expect(Math.hypot((await pinAt()).x - centre.x, (await pinAt()).y - centre.y)).toBeLessThanOrEqual(1);

    // ] from no view gone to yet: the first, the whole wall, in a flight of several frames; the pin follows its point to one side.
    await page().evaluate("window.__viewsSeen = []; window.__splatsortViewer.on('viewschange', () => window.__viewsSeen.push(window.__splatsortViewer.views.current))");
    const before = (await state()).frames;
    await page().keyboard.press(']');
    await tab.waitForEye('the whole wall', home.eye);
    expect((await state()).frames - before).toBeGreaterThan(2);
    await tab.waitForFrames(1);
    const moved = await pinAt();
    expect(Math.hypot(moved.x - centre.x, moved.y - centre.y)).toBeGreaterThan(20);
    expect(await pin.isVisible()).toBe(true);

    // The pin opens its view.
    await pin.click();
    await tab.waitForEye('the corner, from its pin', corner.eye);
    expect(await views('views.current')).toBe('Corner');

    // The tour (the bar's button): every view in order, then it ends where the last one is.
    await page().evaluate('window.__viewsSeen = []');
    await page().locator('.views-bar button', { hasText: 'tour' }).click();
    await tab.waitFor('the tour over', '!window.__splatsortViewer.views.playing && window.__viewsSeen.length > 0');
    expect((await page().evaluate('window.__viewsSeen')) as string[]).toEqual(['Corner', 'Whole wall', 'Corner', 'Corner']);
    await tab.waitForEye('the corner, the tour\'s last view', corner.eye);

    // [ steps back from the last view: the first.
    await page().keyboard.press('[');
    await tab.waitForEye('the whole wall again', home.eye);

    // The link keeps the views; a page opened from them (`?views=` naming a file with the same text) has them, and opens the first.
    await tab.waitFor('the views in the link', "JSON.parse(new URLSearchParams(location.search).get('views') ?? '{}').views?.length === 2");
    const kept = await page().evaluate("new URLSearchParams(location.search).get('views')") as string;
    await page().route('**/wall-views.json', (route) => route.fulfill({ body: kept, contentType: 'application/json' }));
    await viewer.goto('?views=wall-views.json');
    expect(await views('views.list().map((v) => v.name)')).toEqual(['Whole wall', 'Corner']);
    await tab.waitForEye('the first view, as the views opened', home.eye);
    await page().locator('.views-pin', { hasText: 'Corner' }).waitFor({ state: 'attached' });
    expect(viewer.tab.errors).toEqual([]);
  });
});
