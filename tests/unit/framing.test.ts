/** How a scene's bounds become the camera's pose and zoom (src/app/camera/framing.ts), alone: no viewer, no GPU. */
import { mat4, vec4 } from 'gl-matrix';
import { describe, expect, it } from 'vitest';
import {
  boxBounds,
  followGrowth,
  followWindow,
  frameArrival,
  frameFromHere,
  frameHome,
  framingAxis,
  goHome,
  HOME_PITCH,
  HOME_YAW,
  homeCameraFile,
  homeView,
  insetsOfFreeRect,
  sceneUp,
  shownUp,
  UP_BY_CONVENTION,
  WORLD_UP,
  type SceneUp,
} from '../../src/app/camera/framing';
import { createCameraView, OrbitCamera, type CameraView } from '../../src/app/camera/orbit-camera';
import type { Bounds } from '../../src/scene/splat-cloud';
import { cloudOf, figure, placed, town } from '../support/up-scenes';

const BOUNDS: Bounds = { min: [-3, -1, 2], max: [5, 0.5, 2.5] };
const WIDTH = 1280, HEIGHT = 800, ASPECT = WIDTH / HEIGHT;
/** A settings panel at the right, stats at the top left: the part of the window framing may use. */
const FREE = { x: 0, y: 60, width: 960, height: 740 };
const GUESSED: SceneUp = { axis: '+z', source: 'guessed (a ground)', why: 'A ground below.' };

/** Where a point of the scene shows in the window, CSS pixels from its top left corner. */
function pixelOf(camera: OrbitCamera, p: readonly number[]): [number, number] {
  const m = camera.projectionMatrix(mat4.create(), ASPECT);
  mat4.multiply(m, m, camera.viewMatrix(mat4.create()));
  const c = vec4.transformMat4(vec4.create(), vec4.fromValues(p[0]!, p[1]!, p[2]!, 1), m);
  expect(c[3]).toBeGreaterThan(0);
  return [((c[0] / c[3] + 1) / 2) * WIDTH, ((1 - c[1] / c[3]) / 2) * HEIGHT];
}

const corners = (b: Bounds): number[][] => Array.from({ length: 8 }, (_, k) => [0, 1, 2].map((a) => ((k >> a) & 1 ? b.max[a]! : b.min[a]!)));
const centre = (b: Bounds): number[] => [0, 1, 2].map((a) => (b.min[a]! + b.max[a]!) / 2);

/** Points of the bounds' bounding sphere, the shape framing fits. */
function spherePoints(b: Bounds): number[][] {
  const c = centre(b);
  const r = Math.hypot(b.max[0] - b.min[0], b.max[1] - b.min[1], b.max[2] - b.min[2]) / 2;
  const points: number[][] = [];
  for (let i = 0; i <= 90; i++) {
    for (let j = 0; j < 180; j++) {
      const theta = (Math.PI * i) / 90, phi = (2 * Math.PI * j) / 180;
      points.push([c[0]! + r * Math.sin(theta) * Math.cos(phi), c[1]! + r * Math.cos(theta), c[2]! + r * Math.sin(theta) * Math.sin(phi)]);
    }
  }
  return points;
}

function windowCamera(): OrbitCamera {
  const camera = new OrbitCamera();
  camera.setInsets(insetsOfFreeRect(WIDTH, HEIGHT, FREE));
  return camera;
}

const viewOf = (camera: OrbitCamera): CameraView => camera.getView(createCameraView());

function expectSameView(a: CameraView, b: CameraView, digits = 9): void {
  for (const key of ['eye', 'target', 'up'] as const) a[key].forEach((v, i) => expect(v).toBeCloseTo(b[key][i]!, digits));
  expect(a.fovyDeg).toBeCloseTo(b.fovyDeg, digits);
}

describe('the home view', () => {
  it('shows the bounds inside the free part of the window, centred in it, their bounding sphere touching its shorter side', () => {
    const camera = windowCamera();
    frameHome(camera, BOUNDS, '+y', ASPECT);
    const [cx, cy] = pixelOf(camera, centre(BOUNDS));
    // Within a thousandth of a pixel (the matrices are float32).
    expect(cx).toBeCloseTo(FREE.x + FREE.width / 2, 3);
    expect(cy).toBeCloseTo(FREE.y + FREE.height / 2, 3);
    for (const corner of corners(BOUNDS)) {
      const [x, y] = pixelOf(camera, corner);
      expect(x).toBeGreaterThanOrEqual(FREE.x);
      expect(x).toBeLessThanOrEqual(FREE.x + FREE.width);
      expect(y).toBeGreaterThanOrEqual(FREE.y);
      expect(y).toBeLessThanOrEqual(FREE.y + FREE.height);
    }
    // The margin: none along the free part's shorter side (its height here), where the sphere's picture reaches the edge.
    let reach = 0;
    for (const p of spherePoints(BOUNDS)) reach = Math.max(reach, Math.abs(pixelOf(camera, p)[1] - cy));
    expect(reach).toBeLessThanOrEqual(FREE.height / 2 + 1e-3);
    expect(reach).toBeGreaterThan(FREE.height / 2 - 0.5);
  });

  it('looks from the home angle with the chosen axis up, and that pose is home', () => {
    const camera = windowCamera();
    camera.orbit(2, -0.4);
    frameHome(camera, BOUNDS, '-y', ASPECT);
    expect([camera.yaw, camera.pitch]).toEqual([HOME_YAW, HOME_PITCH]);
    expect(Array.from(camera.up)).toEqual([0, -1, 0]);
    expectSameView(homeView(camera), viewOf(camera));
  });

  it('the render command\'s home camera file is the home view with no overlays, at its own size', () => {
    const camera = windowCamera();
    camera.fovY = Math.PI / 4;
    camera.orbit(1, 0.1);
    const before = viewOf(camera);
    const file = homeCameraFile(camera, BOUNDS, '+x', { width: 640, height: 480, background: [0, 0, 0], shDegree: 3 });
    // The camera on screen is left as it was.
    expectSameView(viewOf(camera), before);
    const bare = new OrbitCamera({ fovY: Math.PI / 4 });
    frameHome(bare, BOUNDS, '+x', 640 / 480);
    const expected = viewOf(bare);
    expect(file).toMatchObject({ width: 640, height: 480, up: [1, 0, 0], sh_degree: 3, mode: 'orbit' });
    expect(file.fovy_deg).toBeCloseTo(45, 9);
    file.eye.forEach((v, i) => expect(v).toBeCloseTo(expected.eye[i]!, 5));
    file.target.forEach((v, i) => expect(v).toBeCloseTo(expected.target[i]!, 5));
    // No scene: the camera's own pose.
    homeCameraFile(camera, null, '+y', { width: 64, height: 64, background: [0, 0, 0], shDegree: 0 }).eye.forEach((v, i) => expect(v).toBeCloseTo(before.eye[i]!, 5));
  });
});

describe('F and R', () => {
  it('F fits the scene from where the camera looks; R goes back to the home angle', () => {
    const camera = windowCamera();
    frameHome(camera, BOUNDS, '+y', ASPECT);
    const home = viewOf(camera);
    camera.orbit(-1.3, 0.5);
    camera.zoom(7);
    camera.pan(300, 100, HEIGHT);
    const [yaw, pitch] = [camera.yaw, camera.pitch];
    frameFromHere(camera, BOUNDS, ASPECT);
    expect([camera.yaw, camera.pitch]).toEqual([yaw, pitch]);
    expect(camera.yaw).not.toBeCloseTo(HOME_YAW, 3);
    // The same fit as the home's, from another angle: the same distance, centred on the bounds.
    const fitted = new OrbitCamera().copy(camera);
    goHome(fitted);
    expect(camera.distance).toBeCloseTo(fitted.distance, 9);
    viewOf(camera).target.forEach((v, i) => expect(v).toBeCloseTo(centre(BOUNDS)[i]!, 9));
    // F left the home where it was.
    expectSameView(homeView(camera), home);
    goHome(camera);
    expect([camera.yaw, camera.pitch]).toEqual([HOME_YAW, HOME_PITCH]);
    expectSameView(viewOf(camera), home);
  });

  it('F without a scene goes home, as R does', () => {
    const camera = windowCamera();
    frameHome(camera, BOUNDS, '+y', ASPECT);
    const home = viewOf(camera);
    camera.orbit(0.5, 0.5);
    frameFromHere(camera, null, ASPECT);
    expectSameView(viewOf(camera), home);
  });
});

describe('a new scene\'s first view', () => {
  it('is the home view, up as the scene says, not counted as moved', () => {
    const camera = windowCamera();
    const { up, moved } = frameArrival(camera, BOUNDS, GUESSED, ASPECT);
    expect(up).toEqual({ ...GUESSED, unsure: false });
    expect(up).not.toBe(GUESSED);
    expect(moved).toBe(false);
    const framed = windowCamera();
    frameHome(framed, BOUNDS, '+z', ASPECT);
    expectSameView(viewOf(camera), viewOf(framed));
  });

  it('a link\'s view wins over framing, which still sets the home and the zoom limits; the link says which way is up', () => {
    const camera = windowCamera();
    const linked: CameraView = { eye: [1, -2, -8], target: [0.5, -0.5, 1], up: [0, 0, 1], fovyDeg: 50 };
    const { up, moved } = frameArrival(camera, BOUNDS, GUESSED, ASPECT, linked);
    expectSameView(viewOf(camera), linked);
    expect(up).toEqual({ axis: '+z', source: 'the link', why: undefined, unsure: false });
    expect(moved).toBe(true);
    const framed = windowCamera();
    frameHome(framed, BOUNDS, '+z', ASPECT);
    expect(camera.minDistance).toBe(framed.minDistance);
    goHome(camera);
    expect([camera.yaw, camera.pitch, camera.distance]).toEqual([framed.yaw, framed.pitch, framed.distance]);
    // A slanted up is no axis: a levelled view.
    const slanted = frameArrival(windowCamera(), BOUNDS, GUESSED, ASPECT, { ...linked, up: [0, 0.6, 0.8] });
    expect(slanted.up.axis).toBe('levelled');
  });

  it('a world\'s box frames as a scene\'s bounds do, with −y up', () => {
    const bound = { min: [-40, -3, -25] as [number, number, number], max: [60, 12, 35] as [number, number, number] };
    const box = boxBounds(bound);
    expect(box).toEqual(bound);
    // A copy: framing never writes into the world's index.
    expect(box.min).not.toBe(bound.min);
    const world = windowCamera();
    const { up } = frameArrival(world, box, WORLD_UP, ASPECT);
    expect(up).toMatchObject({ axis: '-y' });
    expect(Array.from(world.up)).toEqual([0, -1, 0]);
    const scene = windowCamera();
    frameArrival(scene, { min: [...bound.min], max: [...bound.max] }, { axis: '-y', source: UP_BY_CONVENTION, why: undefined }, ASPECT);
    expectSameView(viewOf(world), viewOf(scene));
  });

  it('an up the opener knows is kept (the default scene\'s +y), a scene with a ground is guessed, one without follows the captures\' −y', () => {
    const withGround = cloudOf(placed(town(), '+z'));
    const known = { axis: '+y', source: 'the default scene', why: 'The default scene is made with +y up.' } as const;
    expect(sceneUp(withGround, known)).toEqual(known);
    expect(sceneUp(withGround)).toMatchObject({ axis: '+z', source: 'guessed (a ground)' });
    const blob = cloudOf(Array.from({ length: 500 }, (_, i) => [Math.sin(i * 12.9898) * 2, Math.sin(i * 78.233) * 2, Math.sin(i * 37.719) * 2] as [number, number, number]));
    expect(sceneUp(blob)).toMatchObject({ axis: '-y', source: UP_BY_CONVENTION, unsure: true });
    expect(sceneUp(withGround).unsure).toBeUndefined();
  });

  it('an object\'s footing confirms the convention, leaves it unsure where it disagrees, and settles an SPZ whose frame is two-way', () => {
    const upright = cloudOf(placed(figure(), '-y'));
    expect(sceneUp(upright)).toMatchObject({ axis: '-y', source: 'convention (−y), its footing agrees' });
    expect(sceneUp(upright).unsure).toBeUndefined();
    // A footing at −y does not overrule the convention (a cup is wider at its rim): −y stays, unsure, and the why says what the footing would make it.
    const over = cloudOf(placed(figure(), '+y'));
    expect(sceneUp(over)).toMatchObject({ axis: '-y', source: UP_BY_CONVENTION, unsure: true });
    expect(sceneUp(over).why).toContain('+y');
    // An SPZ that records no frame may hold either of two, a half turn apart: the footing picks.
    expect(sceneUp({ ...over, axes: 'two-way' })).toMatchObject({ axis: '+y', source: 'guessed (its footing)' });
    expect(sceneUp({ ...upright, axes: 'two-way' })).toMatchObject({ axis: '-y', source: 'guessed (its footing)' });
    const blob = cloudOf(Array.from({ length: 3000 }, (_, i) => [Math.sin(i * 12.9898) * 2, Math.sin(i * 78.233) * 2, Math.sin(i * 37.719) * 2] as [number, number, number]));
    expect(sceneUp({ ...blob, axes: 'two-way' })).toMatchObject({ axis: '-y', source: UP_BY_CONVENTION, unsure: true });
    // A file that records its frame is read into the viewer's axes: −y, settled, whatever its shape.
    expect(sceneUp({ ...over, axes: 'recorded' })).toMatchObject({ axis: '-y', source: 'the file (its axes)' });
    expect(sceneUp({ ...over, axes: 'recorded' }).unsure).toBeUndefined();
    expect(shownUp(sceneUp(blob)).unsure).toBe(true);
    expect(shownUp(sceneUp(upright)).unsure).toBe(false);
  });
});

describe('following the scene and the window', () => {
  const GROWN: Bounds = { min: [-9, -4, -3], max: [11, 3, 8] };

  it('a grown scene is framed anew while the camera was not moved; once it was, only the home follows', () => {
    const still = windowCamera();
    frameHome(still, BOUNDS, '+y', ASPECT);
    const before = still.distance;
    followGrowth(still, GROWN, '+y', ASPECT, false);
    expect(still.distance).toBeGreaterThan(2 * before);
    viewOf(still).target.forEach((v, i) => expect(v).toBeCloseTo(centre(GROWN)[i]!, 9));

    const moved = windowCamera();
    frameHome(moved, BOUNDS, '+y', ASPECT);
    moved.orbit(0.4, 0.1);
    const pose = viewOf(moved);
    followGrowth(moved, GROWN, '+y', ASPECT, true);
    expectSameView(viewOf(moved), pose);
    expectSameView(homeView(moved), viewOf(still));
  });

  it('a window whose free part shrinks refits an unmoved camera from where it looks, and keeps a moved one', () => {
    const camera = new OrbitCamera();
    frameHome(camera, BOUNDS, '+y', ASPECT);
    camera.orbit(0.7, 0);
    const whole = camera.distance;
    const yaw = camera.yaw;
    camera.setInsets(insetsOfFreeRect(WIDTH, HEIGHT, FREE));
    followWindow(camera, BOUNDS, '+y', ASPECT, false);
    expect(camera.yaw).toBe(yaw);
    expect(camera.distance).toBeGreaterThan(whole);

    const moved = new OrbitCamera();
    frameHome(moved, BOUNDS, '+y', ASPECT);
    const pose = viewOf(moved);
    moved.setInsets(insetsOfFreeRect(WIDTH, HEIGHT, FREE));
    followWindow(moved, BOUNDS, '+y', ASPECT, true);
    expectSameView(viewOf(moved), pose);
    goHome(moved);
    expect(moved.distance).toBeGreaterThan(whole);
  });

  it('the free rectangle becomes the shares of the window the overlays cover; none without one', () => {
    expect(insetsOfFreeRect(WIDTH, HEIGHT, FREE)).toEqual({ left: 0, top: 60 / 800, right: 0.25, bottom: 0 });
    expect(insetsOfFreeRect(WIDTH, HEIGHT)).toEqual({ left: 0, top: 0, right: 0, bottom: 0 });
  });

  it('frames with the chosen axis, or a levelled view\'s own axis, else −y', () => {
    expect(framingAxis('+x', [0, 1, 0])).toBe('+x');
    expect(framingAxis('levelled', [0, 0, -1])).toBe('-z');
    expect(framingAxis('levelled', [0, 0.6, 0.8])).toBe('-y');
  });
});
