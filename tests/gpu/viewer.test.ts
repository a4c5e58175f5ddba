/**
 * The Viewer's scene session (src/app/viewer.ts) on a real WebGPU device
 * (Dawn over SwiftShader in CI), with a loader of the test's own that hands
 * on parts of a scene as previews and then completes, fails or waits to be
 * cancelled: a scene while it loads is drawn in place of the one on screen,
 * and the scene before it comes back, drawn and framed as it was, when the
 * load does not complete; a preview of the first scene ends with no scene.
 * (The frame engine under it: tests/gpu/viewer-core.test.ts; the page
 * around it: tests/e2e.)
 */
import { beforeAll, expect, test } from 'vitest';
import { Viewer } from '../../src/app/viewer';
import type { CameraFile } from '../../src/app/camera-file';
import { createCameraView } from '../../src/app/orbit-camera';
import type { LoadedScene } from '../../src/io/splat-loader';
import type { SplatCloud } from '../../src/scene/splat-cloud';
import { realScene, TEST_TARGET_FORMAT, useGpu } from '../support/gpu-fixture';
import { coveredFraction, medianCentre, VIEW_HEIGHT, VIEW_WIDTH } from '../support/test-view';

/** What the test's loader does with a source: previews of the first `parts` splats, then how it ends. */
interface TestLoad {
  cloud: SplatCloud;
  parts: number[];
  end: 'complete' | 'fail' | 'until-cancelled';
}

const gpu = useGpu('viewer.test');
let cloud: SplatCloud;
let viewer: Viewer<TestLoad>;
/** Calls of the loader that are waiting to be cancelled. */
let waiting = 0;

/** The first `n` splats of `cloud`, as a scene still loading shows them (views, not copies). */
function firstSplats(n: number): SplatCloud {
  const k = cloud.sh.length / cloud.count;
  return {
    ...cloud, count: n, positions: cloud.positions.subarray(0, 3 * n), scales: cloud.scales.subarray(0, 3 * n), rotations: cloud.rotations.subarray(0, 4 * n),
    opacities: cloud.opacities.subarray(0, n), dc: cloud.dc.subarray(0, 3 * n), sh: cloud.sh.subarray(0, k * n),
  };
}

async function testLoad(source: TestLoad, options: { signal: AbortSignal; onPreview?: (cloud: SplatCloud) => void }): Promise<LoadedScene> {
  for (const n of source.parts) options.onPreview?.(n === source.cloud.count ? source.cloud : firstSplats(n));
  if (source.end === 'fail') throw new Error('the rest of the file is broken');
  if (source.end === 'until-cancelled') {
    waiting++;
    await new Promise((_, reject) => options.signal.addEventListener('abort', () => reject(options.signal.reason)));
  }
  return { cloud: source.cloud, warnings: [], bytes: null };
}

/** A 64×48 camera a few units from the 9k scene's median point, to draw whatever is on screen from one place. */
function fixedCamera(): CameraFile {
  const centre = medianCentre(cloud);
  return {
    width: VIEW_WIDTH, height: VIEW_HEIGHT, fovy_deg: 60, eye: [centre[0] + 3, centre[1] - 1, centre[2] - 6], target: [centre[0], centre[1], centre[2]],
    up: [0, -1, 0], background: [0.1, 0.2, 0.3], sh_degree: 3,
  };
}

const drawn = async () => (await viewer.render(fixedCamera())).rgba;
const cameraView = () => viewer.camera.getView(createCameraView());

beforeAll(async () => {
  cloud = await realScene('inria_kacytran_iter7000_9k_sh3.ply');
  viewer = await Viewer.create<TestLoad>(gpu.device, TEST_TARGET_FORMAT, { load: testLoad });
  gpu.own(viewer);
});

test('a preview of the first scene ends with no scene at all', async () => {
  const scenes: (number | null)[] = [];
  const off = viewer.on('scene', (facts, how) => scenes.push(how === 'restored' ? null : facts!.splats));
  const opened = viewer.open({ cloud, parts: [100], end: 'until-cancelled' }, { name: 'first.ply' });
  expect(viewer.state.scene).toMatchObject({ name: 'first.ply', splats: 100, partial: true });
  expect(viewer.core.gpuScene!.count).toBe(100);
  viewer.cancel();
  expect(await opened).toBe('cancelled');
  off();
  expect(scenes).toEqual([100, null]);
  expect(viewer.state).toMatchObject({ scene: null, sceneName: '', splats: 0, loading: false, lastError: null });
  expect(viewer.core.gpuScene).toBeNull();
  // A frame as the page draws one: nothing to draw.
  const target = gpu.own(gpu.device.createTexture({ size: [VIEW_WIDTH, VIEW_HEIGHT], format: TEST_TARGET_FORMAT, usage: GPUTextureUsage.RENDER_ATTACHMENT }));
  expect(viewer.drawFrame(target.createView(), VIEW_WIDTH, VIEW_HEIGHT, 0).choice.source).toBe('none');
  expect(coveredFraction(await drawn())).toBe(0);
});

test('a scene while it loads: shown in place of the one on screen, which comes back as it was when the load fails or is cancelled', async () => {
  expect(await viewer.open({ cloud, parts: [], end: 'complete' }, { name: 'before.ply' })).toBe('opened');
  // The user turned the view: that view comes back, not the scene's framing.
  viewer.camera.orbit(0.4, 0.1);
  viewer.cameraMoved();
  const before = await drawn();
  const view = cameraView();
  expect(coveredFraction(before)).toBeGreaterThan(0.05);

  const quarter = Math.floor(cloud.count / 4);
  for (const end of ['until-cancelled', 'fail'] as const) {
    const loads = waiting;
    const opened = viewer.open({ cloud, parts: [quarter, 2 * quarter], end }, { name: `${end}.ply` });
    if (end === 'until-cancelled') {
      // Both parts are on screen in turn, the second in place of the first; the new scene is framed as new.
      expect(waiting).toBe(loads + 1);
      expect(viewer.state.scene).toMatchObject({ name: `${end}.ply`, splats: 2 * quarter, partial: true });
      expect(viewer.core.gpuScene!.count).toBe(2 * quarter);
      expect(cameraView()).not.toEqual(view);
      const part = await drawn();
      expect(coveredFraction(part)).toBeGreaterThan(0);
      expect(Buffer.from(part).equals(Buffer.from(before))).toBe(false);
      viewer.cancel();
    }
    expect(await opened).toBe(end === 'fail' ? 'failed' : 'cancelled');
    // The scene before, drawn as before, seen as the user left it.
    expect(viewer.state.scene).toMatchObject({ name: 'before.ply', splats: cloud.count, partial: false });
    expect(viewer.core.gpuScene!.count).toBe(cloud.count);
    expect(Buffer.from(await drawn()).equals(Buffer.from(before))).toBe(true);
    expect(cameraView()).toEqual(view);
  }
  expect(viewer.state.lastError).toBe('Could not open fail.ply: the rest of the file is broken');

  // A load that completes replaces its preview with the whole scene, framed anew since the view was not moved during it.
  expect(await viewer.open({ cloud, parts: [quarter], end: 'complete' }, { name: 'after.ply' })).toBe('opened');
  expect(viewer.state).toMatchObject({ sceneName: 'after.ply', splats: cloud.count, lastError: null, loading: false });
  expect(viewer.state.scene!.partial).toBe(false);
  expect(Buffer.from(await drawn()).equals(Buffer.from(before))).toBe(true);
  expect(cameraView()).not.toEqual(view);
});
