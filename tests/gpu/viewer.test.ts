/**
 * The Viewer's scene session on a real WebGPU device (Dawn over
 * SwiftShader), with a scripted loader standing in for the worker: a load
 * gives parts of the scene as it goes (previews), then the scene, an
 * error, or nothing until it is cancelled. What is on screen, the camera,
 * the up axis, the panel's scene facts and the events follow each outcome,
 * and nothing of a load that did not complete stays.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { readFileSync } from 'node:fs';
import { parseSplatPly } from '../../src/io/ply/parse';
import type { SplatCloud } from '../../src/scene/splat-cloud';
import { createNodeViewer, type NodeViewer } from '../../src/app/node-viewer';
import { createOffscreenTarget, OFFSCREEN_FORMAT } from '../../src/app/frame/offscreen-render';
import type { SceneLoader } from '../../src/app/viewer';
import type { CameraView } from '../../src/app/camera/orbit-camera';
import type { LoadOutcome } from '../../src/app/session/scene-loads';
import type { ViewerEvents } from '../../src/app/session/viewer-state';
import { loadSceneFile } from '../../src/io/node-scene-source';
import { scenePath } from '../shared-scenes';
import { drawnColumnSpan, drawnFraction, drawnRowSpan } from '../support/test-view';
import { tableInHalo } from '../support/stray-halo';
import { aerialTown, cloudOf, placed } from '../support/up-scenes';

/** What a scripted load does: previews of the first `parts` splats, then its end. */
interface Script {
  cloud: SplatCloud;
  parts?: number[];
  /** Resolved by the test to let the load go on after its previews (default: at once). */
  gate?: Promise<void>;
  end: 'scene' | Error;
  warnings?: string[];
}

const WIDTH = 64;
const HEIGHT = 48;

/** The first `n` splats of `cloud`, as a scene still loading shows them. */
function firstSplats(cloud: SplatCloud, n: number): SplatCloud {
  const k = cloud.sh.length / cloud.count;
  return {
    ...cloud, count: n, positions: cloud.positions.slice(0, 3 * n), scales: cloud.scales.slice(0, 3 * n), rotations: cloud.rotations.slice(0, 4 * n),
    opacities: cloud.opacities.slice(0, n), dc: cloud.dc.slice(0, 3 * n), sh: cloud.sh.slice(0, k * n),
  };
}

const abortError = () => Object.assign(new Error('cancelled'), { name: 'AbortError' });

const scripted: SceneLoader<Script> = async (script, { signal, onPreview }) => {
  for (const n of script.parts ?? []) {
    signal.throwIfAborted();
    onPreview?.(firstSplats(script.cloud, n));
    await new Promise((resolve) => setImmediate(resolve));
  }
  await new Promise<void>((resolve, reject) => {
    // Aborted already (while the last part was shown): an abort listener would never hear of it.
    if (signal.aborted) reject(abortError());
    signal.addEventListener('abort', () => reject(abortError()), { once: true });
    void (script.gate ?? Promise.resolve()).then(resolve);
  });
  if (script.end instanceof Error) throw script.end;
  return { cloud: script.cloud, warnings: script.warnings ?? [], bytes: 1234 };
};

let node: NodeViewer<Script>;
let small: SplatCloud;
let large: SplatCloud;
let target: GPUTexture;
const events: string[] = [];

beforeAll(async () => {
  node = await createNodeViewer<Script>('viewer.test', { load: scripted });
  small = parseSplatPly(readFileSync(scenePath('inria_kacytran_iter7000_9k_sh3.ply')));
  large = { ...small, count: small.count }; // the same splats under another name: what differs is the session, not the picture
  // The usage the viewer writes its window with (a tile frame resolves into it by compute).
  target = createOffscreenTarget(node.gpu.device, 'viewer.test.window', WIDTH, HEIGHT, OFFSCREEN_FORMAT);
  const viewer = node.viewer;
  viewer.setWindow(WIDTH, HEIGHT);
  const names: (keyof ViewerEvents)[] = ['loadStart', 'loadEnd', 'scene', 'opened', 'failed', 'up'];
  for (const name of names) {
    viewer.on(name, ((...args: unknown[]) => {
      events.push(name === 'scene' ? `scene:${String(args[1])}` : name === 'loadEnd' ? `loadEnd:${String(args[0])}` : name);
    }) as never);
  }
});

afterAll(() => {
  target?.destroy();
  node?.destroy();
});

/** Resolves once `viewer` shows a preview of `splats` splats (or any part): ask before the open that makes it. */
function previewShown(viewer: NodeViewer<Script>['viewer'], splats?: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const off = viewer.on('scene', (facts, how) => {
      if (how !== 'preview' || (splats !== undefined && facts?.splats !== splats)) return;
      off();
      resolve();
    });
  });
}

const view = (): CameraView => node.viewer.camera.getView({ eye: [0, 0, 0], target: [0, 0, 0], up: [0, 0, 0], fovyDeg: 0 });
const draw = () => node.viewer.drawFrame(target.createView(), WIDTH, HEIGHT, 1 / 60);
const taken = () => events.splice(0);

describe('one load at a time, and what stays of each', () => {
  test('a scene opens: on screen, framed, up chosen, its facts published, the events in order', async () => {
    taken();
    const viewer = node.viewer;
    const outcome = await viewer.open({ cloud: small, end: 'scene', warnings: ['odd bytes'] }, { name: 'first.ply' });
    expect(outcome).toBe('opened');
    expect(taken()).toEqual(['loadStart', 'up', 'scene:opened', 'opened', 'loadEnd:opened']);
    expect(viewer.core.gpuScene?.count).toBe(small.count);
    expect(viewer.state).toMatchObject({ sceneName: 'first.ply', splats: small.count, loading: false, load: null, warnings: ['odd bytes'], lastError: null });
    expect(viewer.state.scene).toMatchObject({ name: 'first.ply', partial: false, bytes: 1234, shDegree: 3 });
    expect(viewer.state.scene!.loadMs).toBeGreaterThanOrEqual(0);
    // No format records up: a guess or the captured scenes' −y, said where it came from.
    expect(viewer.state.up.source).not.toBe('—');
    expect(viewer.settings.shDegree).toBe(3);
    expect(draw().choice.source).toBe('gpu-sort');
    expect(viewer.state.frames).toBeGreaterThan(0);
  });

  test('a load that fails after drawing parts of its scene brings back the scene, camera, up axis and facts before it', async () => {
    const viewer = node.viewer;
    viewer.camera.orbit(0.3, 0.1);
    viewer.cameraMoved();
    const before = { view: view(), up: { ...viewer.state.up }, scene: viewer.state.scene, gpu: viewer.core.gpuScene };
    taken();
    const parts = previewShown(viewer, 3000);
    const outcome = viewer.open({ cloud: large, parts: [1000, 3000], end: new Error('truncated at byte 99') }, { name: 'broken.ply' });
    // The parts show as they arrive: framed as a new scene, the facts saying "so far".
    await parts;
    expect(viewer.core.gpuScene?.count).toBe(3000);
    expect(viewer.state.scene).toMatchObject({ name: 'broken.ply', partial: true, splats: 3000, bytes: null, loadMs: null });
    expect(view()).not.toEqual(before.view);
    draw();
    expect(await outcome).toBe('failed');
    expect(viewer.state.lastError).toBe('Could not open broken.ply: truncated at byte 99');
    expect(viewer.core.gpuScene).toBe(before.gpu);
    expect(viewer.state.scene).toBe(before.scene);
    expect(view()).toEqual(before.view);
    expect(viewer.state.up).toEqual(before.up);
    expect(taken()).toEqual(['loadStart', 'up', 'scene:preview', 'scene:preview', 'failed', 'up', 'scene:restored', 'loadEnd:failed']);
    expect(draw().choice.source).toBe('gpu-sort');
  });

  test('a load that completes after its parts replaces them, keeping the framing it grew with unless the camera moved', async () => {
    const viewer = node.viewer;
    let go!: () => void;
    const part = previewShown(viewer);
    const outcome = viewer.open({ cloud: small, parts: [2000], end: 'scene', gate: new Promise((resolve) => (go = resolve)) }, { name: 'grown.ply' });
    await part;
    const framedOnPart = view();
    go();
    expect(await outcome).toBe('opened');
    expect(viewer.core.gpuScene?.count).toBe(small.count);
    expect(viewer.state.scene).toMatchObject({ name: 'grown.ply', partial: false });
    // Framed anew for the whole scene (the camera was not moved): the view glides out.
    expect(view()).not.toEqual(framedOnPart);
    // An earlier failure's message goes once a scene opens.
    expect(viewer.state.lastError).toBeNull();
  });

  test('cancel: the scene before comes back; a later open supersedes an earlier one, whose result never shows', async () => {
    const viewer = node.viewer;
    const before = viewer.core.gpuScene;
    const part = previewShown(viewer);
    const cancelled = viewer.open({ cloud: large, parts: [500], end: 'scene', gate: new Promise(() => {}) }, { name: 'slow.ply' });
    await part;
    viewer.cancel();
    expect(await cancelled).toBe('cancelled');
    expect(viewer.core.gpuScene).toBe(before);
    expect(viewer.state).toMatchObject({ sceneName: 'grown.ply', loading: false });

    let letFirstFinish!: () => void;
    const first = viewer.open({ cloud: large, end: 'scene', gate: new Promise((resolve) => (letFirstFinish = resolve)) }, { name: 'replaced.ply' });
    const second = viewer.open({ cloud: small, end: 'scene' }, { name: 'replacing.ply' });
    letFirstFinish();
    const outcomes: LoadOutcome[] = await Promise.all([first, second]);
    expect(outcomes).toEqual(['superseded', 'opened']);
    expect(viewer.state.sceneName).toBe('replacing.ply');
  });

  test('keepError: the default scene standing in for a failed link leaves the link\'s message up, and lastError clears once it opens', async () => {
    const viewer = node.viewer;
    expect(await viewer.open({ cloud: small, end: new Error('HTTP 404') }, { name: 'link.ply' })).toBe('failed');
    expect(viewer.state.lastError).toBe('Could not open link.ply: HTTP 404');
    const kept: boolean[] = [];
    const unsubscribe = viewer.on('opened', ({ keepError }) => kept.push(keepError));
    expect(await viewer.open({ cloud: small, end: 'scene' }, { name: 'default-scene.ply', up: { axis: '+y', source: 'the default scene', why: undefined }, keepError: true })).toBe('opened');
    unsubscribe();
    // The page keeps the link's message up (keepError); the state says no load error stands, a scene having opened.
    expect(kept).toEqual([true]);
    expect(viewer.state.lastError).toBeNull();
    expect(viewer.state.up).toMatchObject({ axis: '+y', source: 'the default scene' });
  });

  test('a scene whose first part shows no ground is guessed up again once it is all in; a choice made meanwhile stays', async () => {
    const viewer = node.viewer;
    // The ground is written first: the first part is a flat layer, no scene on either side of it.
    const town = cloudOf(placed(aerialTown(), '+z'));
    const ground = 8000;
    const guessed = viewer.open({ cloud: town, parts: [ground], end: 'scene' }, { name: 'town.ply' });
    expect(await guessed).toBe('opened');
    expect(viewer.state.up).toMatchObject({ axis: '+z', source: 'guessed (a ground)' });
    expect(Array.from(viewer.camera.up)).toEqual([0, 0, 1]);

    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const shown = previewShown(viewer, ground);
    const chosen = viewer.open({ cloud: town, parts: [ground], gate, end: 'scene' }, { name: 'town-again.ply' });
    await shown;
    viewer.settings.upAxis = '+x';
    viewer.upAxisChosen();
    release();
    expect(await chosen).toBe('opened');
    expect(viewer.state.up).toMatchObject({ axis: '+x', source: 'chosen in the panel' });
  });

  test('a link\'s view: the scene opens from it, up read from it, and keeps it while the scene grows', async () => {
    const viewer = node.viewer;
    const linked: CameraView = { eye: [1, -2, -8], target: [0.5, -0.5, 1], up: [0, 0, 1], fovyDeg: 50 };
    expect(await viewer.open({ cloud: small, parts: [1500], end: 'scene' }, { name: 'shared.ply', view: linked })).toBe('opened');
    const shown = view();
    for (const key of ['eye', 'target'] as const) shown[key].forEach((v, i) => expect(v).toBeCloseTo(linked[key][i]!, 4));
    expect(shown.up).toEqual([0, 0, 1]);
    expect(shown.fovyDeg).toBeCloseTo(50, 6);
    expect(viewer.state.up).toMatchObject({ axis: '+z', source: 'the link' });
    expect(viewer.rig.moved).toBe(true);
  });
});

describe('the camera and the frame', () => {
  test('render(): a camera file\'s picture; homeCamera frames the scene; pick finds the surface or says there is none', async () => {
    const viewer = node.viewer;
    await viewer.open({ cloud: small, end: 'scene' }, { name: 'pick.ply' });
    const camera = viewer.homeCamera(WIDTH, HEIGHT);
    expect(camera).toMatchObject({ width: WIDTH, height: HEIGHT, sh_degree: 3 });
    const picture = await viewer.render(camera);
    expect(drawnFraction(picture, camera.background)).toBeGreaterThan(0.2);
    expect((await viewer.render(camera)).rgba).toEqual(picture.rgba);

    // Drawn at the window's size from the home view, the middle of the window is the scene.
    viewer.resetCamera();
    for (let k = 0; k < 3; k++) draw();
    await node.gpu.device.queue.onSubmittedWorkDone();
    const notices: string[] = [];
    const off = viewer.on('message', (m) => notices.push(m.title));
    const hit = viewer.pick(WIDTH / 2, HEIGHT / 2);
    expect(hit).not.toBeNull();
    expect(viewer.state.picked).toEqual(hit);
    // Far out in a corner, above the scene: nothing to orbit, and a notice says so.
    viewer.resetCamera();
    viewer.camera.zoom(20);
    draw();
    expect(viewer.pick(0, 0)).toBeNull();
    expect(notices).toEqual(['Nothing to orbit there']);
    off();
  });

  // The render command prints this framing; the page opens every scene with it.
  test.each(['playcanvas_biker_v4.spz', 'playcanvas_biker.compressed.ply', 'inria_kacytran_iter7000_9k_sh3.ply'])('%s is framed as it opens: up −y, filling most of the picture', async (name) => {
    const viewer = node.viewer;
    const { cloud } = await loadSceneFile(scenePath(name));
    expect(await viewer.open({ cloud, end: 'scene' }, { name })).toBe('opened');
    const camera = viewer.homeCamera(64, 40);
    expect(camera).toMatchObject({ width: 64, height: 40, up: [0, -1, 0] });
    const picture = await viewer.render(camera);
    // Not a grey blur, not a dot: a fair part covered, and the scene spans most of the height.
    expect(drawnFraction(picture, camera.background)).toBeGreaterThan(0.1);
    expect(drawnRowSpan(picture, camera.background)).toBeGreaterThan(0.6 * 40);
  });

  test('a table in a halo of faint strays (8 % of the splats, to 7× its radius) is framed on the table, filling most of the width', async () => {
    const viewer = node.viewer;
    // The strays in the background's own colour: what is drawn is the table, while framing sees the strays' opacity and size.
    const background = [0x10 / 255, 0x13 / 255, 0x18 / 255] as const;
    const { cloud, object } = tableInHalo({ haloColour: background });
    expect(await viewer.open({ cloud, end: 'scene' }, { name: 'table-in-halo.ply' })).toBe('opened');
    // The orbit target (what "+" zooms towards) is on the table.
    const { target } = view();
    for (let a = 0; a < 3; a++) {
      expect(target[a]).toBeGreaterThan(object.min[a]!);
      expect(target[a]).toBeLessThan(object.max[a]!);
    }
    const camera = viewer.homeCamera(48, 48);
    camera.background.forEach((c, i) => expect(c).toBeCloseTo(background[i]!, 6));
    const picture = await viewer.render(camera);
    const span = drawnColumnSpan(picture, camera.background);
    console.log(`table in a halo: drawn over ${span} of 48 columns, ${(100 * drawnFraction(picture, camera.background)).toFixed(0)} % of the picture`);
    expect(span).toBeGreaterThan(0.6 * 48);
  });

  test('a preview of the very first scene that fails leaves no scene at all', async () => {
    const fresh = await createNodeViewer<Script>('viewer.test.fresh', { load: scripted });
    try {
      const part = previewShown(fresh.viewer);
      const outcome = fresh.viewer.open({ cloud: small, parts: [100], end: new Error('cut short') }, { name: 'first.ply' });
      await part;
      expect(fresh.viewer.core.gpuScene?.count).toBe(100);
      expect(await outcome).toBe('failed');
      expect(fresh.viewer.core.gpuScene).toBeNull();
      expect(fresh.viewer.state.scene).toBeNull();
      const texture = createOffscreenTarget(fresh.gpu.device, 'viewer.test.fresh.window', 8, 8, OFFSCREEN_FORMAT);
      expect(fresh.viewer.drawFrame(texture.createView(), 8, 8, 0).choice.source).toBe('none');
      texture.destroy();
    } finally {
      fresh.destroy();
    }
  });

  test('a screenshot is the view asked for, drawn again if need be, while frames on screen show another; the last frame stays the screen\'s', async () => {
    const viewer = node.viewer;
    await viewer.open({ cloud: small, end: 'scene' }, { name: 'capture.ply' });
    const setting = viewer.settings.renderer;
    Object.assign(viewer.settings, { renderer: 'tiles' });
    await viewer.core.prepareRenderer('tiles');
    viewer.resetCamera();
    draw();
    // Square, where the screen is not: a screenshot of its own shape.
    const side = 40;
    const screen = { width: viewer.lastFrame.width, projection: Array.from(viewer.lastFrame.projection) };
    const quiet = await viewer.capture(side, side, 'screen');
    // A pick and an in-view save read the frame on screen, not the screenshot's.
    expect({ width: viewer.lastFrame.width, projection: Array.from(viewer.lastFrame.projection) }).toEqual(screen);
    // Frames on screen whose reads are still out leave the screenshot's pair counts unread: it is drawn again (drawAgain).
    for (let k = 0; k < 4; k++) draw();
    const asked = viewer.capture(side, side, 'screen');
    viewer.camera.orbit(0.6, 0.2);
    for (let k = 0; k < 3; k++) {
      draw();
      await new Promise((resolve) => setImmediate(resolve));
    }
    const shot = await asked;
    let apart = 0;
    for (let i = 0; i < shot.length; i++) if (Math.abs(shot[i]! - quiet[i]!) > 1) apart++;
    expect(apart, 'channels of the screenshot more than a level off the same view drawn alone').toBe(0);
    Object.assign(viewer.settings, { renderer: setting });
  });
});
