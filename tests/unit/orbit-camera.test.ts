import { mat4, vec3, vec4 } from 'gl-matrix';
import { describe, expect, it } from 'vitest';
import { createCameraView, OrbitCamera } from '../../src/app/camera/orbit-camera';
import type { Bounds } from '../../src/scene/splat-cloud';

const eyeOf = (camera: OrbitCamera): number[] => Array.from(camera.eye(vec3.create()));

/** Clip-space position of a world point. */
function clip(camera: OrbitCamera, aspect: number, p: readonly number[]): vec4 {
  const view = camera.viewMatrix(mat4.create());
  const proj = camera.projectionMatrix(mat4.create(), aspect);
  const out = vec4.fromValues(p[0]!, p[1]!, p[2]!, 1);
  vec4.transformMat4(out, out, view);
  return vec4.transformMat4(out, out, proj);
}

function expectClose(actual: ArrayLike<number>, expected: number[], digits = 6): void {
  expect(actual.length).toBe(expected.length);
  expected.forEach((e, i) => expect(actual[i]).toBeCloseTo(e, digits));
}

describe('OrbitCamera', () => {
  it('places the eye from yaw, pitch and distance around the target', () => {
    const camera = new OrbitCamera({ target: [1, 2, 3], distance: 4 });
    expectClose(eyeOf(camera), [1, 2, 7]);
    camera.yaw = Math.PI / 2;
    expectClose(eyeOf(camera), [5, 2, 3]);
    camera.yaw = 0.3;
    camera.pitch = 0.4;
    const c = Math.cos(0.4);
    expectClose(eyeOf(camera), [1 + 4 * c * Math.sin(0.3), 2 + 4 * Math.sin(0.4), 3 + 4 * c * Math.cos(0.3)]);
  });

  it('view matrix maps the target to (0, 0, -distance)', () => {
    const camera = new OrbitCamera({ target: [0.5, -1, 2], distance: 7, yaw: 2.1, pitch: -0.6 });
    const view = camera.viewMatrix(mat4.create());
    const t = vec3.transformMat4(vec3.create(), camera.target, view);
    expectClose(t, [0, 0, -7], 5);
  });

  it('projection has clip z 0 at the near plane and an infinite far plane', () => {
    const camera = new OrbitCamera({ distance: 10 });
    expect(camera.near).toBeCloseTo(0.01, 9);
    const proj = camera.projectionMatrix(mat4.create(), 1.5);
    const at = (z: number): vec4 => vec4.transformMat4(vec4.create(), vec4.fromValues(0, 0, z, 1), proj);
    const near = at(-camera.near);
    expect(near[2] / near[3]).toBeCloseTo(0, 9);
    for (const z of [-1, -10, -1e4, -1e9]) {
      const p = at(z);
      expect(p[3]).toBeGreaterThan(0);
      expect(p[2] / p[3]).toBeGreaterThan(0);
      expect(p[2] / p[3]).toBeLessThanOrEqual(1);
    }
    expect(at(-1e9)[2] / at(-1e9)[3]).toBeCloseTo(1, 6);
    // The near plane follows the distance, with a floor.
    camera.distance = 1e4;
    expect(camera.near).toBeCloseTo(10, 9);
    camera.distance = 0.5;
    expect(camera.near).toBe(0.01);
  });

  it.each([0.5, 1, 2])('frame() keeps all 8 corners of the bounds in view at aspect %f', (aspect) => {
    const bounds: Bounds = { min: [-3, -1, 2], max: [5, 0.5, 2.5] };
    for (const [yaw, pitch] of [[0, 0], [0.7, 0.5], [-2.4, -1.2], [Math.PI / 2, 1.4]]) {
      const camera = new OrbitCamera({ yaw, pitch });
      camera.frame(bounds, aspect);
      expectClose(camera.target, [1, -0.25, 2.25]);
      let widest = 0;
      for (let corner = 0; corner < 8; corner++) {
        const p = [0, 1, 2].map((a) => ((corner >> a) & 1 ? bounds.max[a]! : bounds.min[a]!));
        const c = clip(camera, aspect, p);
        expect(c[3]).toBeGreaterThan(0);
        for (const a of [0, 1]) {
          expect(Math.abs(c[a]! / c[3])).toBeLessThanOrEqual(1);
          widest = Math.max(widest, Math.abs(c[a]! / c[3]));
        }
        expect(c[2] / c[3]).toBeGreaterThan(0);
      }
      // Fitted, not merely inside: the scene takes up a fair share of the view.
      expect(widest).toBeGreaterThan(0.3);
    }
  });

  it('pan moves the target perpendicular to the view and keeps the point under the cursor', () => {
    const camera = new OrbitCamera({ distance: 6, yaw: 0.9, pitch: 0.35 });
    const before = vec3.clone(camera.target);
    const forward = vec3.sub(vec3.create(), before, camera.eye(vec3.create()));
    const height = 800;
    camera.pan(120, -45, height);
    const moved = vec3.sub(vec3.create(), camera.target, before);
    expect(vec3.length(moved)).toBeGreaterThan(0);
    // Cosine of the angle to the view direction; the target is float32.
    const cos = vec3.dot(moved, forward) / (vec3.length(moved) * vec3.length(forward));
    expect(Math.abs(cos)).toBeLessThan(1e-5);
    // The old target, seen from the panned camera, sits where the cursor went:
    // 120 px right and 45 px up of the centre (NDC = 2 * pixels / height, aspect 1).
    const c = clip(camera, 1, Array.from(before));
    expect(c[0] / c[3]).toBeCloseTo((2 * 120) / height, 6);
    expect(c[1] / c[3]).toBeCloseTo((2 * 45) / height, 6);
    camera.pan(1, 1, 0); // no viewport: ignored
    expect(Number.isFinite(camera.target[0])).toBe(true);
  });

  it.each([1, 1.6, 2.5])('with a panel over the right fifth, frame() keeps the corners in the uncovered part, the target in its middle (aspect %f)', (aspect) => {
    const bounds: Bounds = { min: [-3, -1, 2], max: [5, 0.5, 2.5] };
    for (const [yaw, pitch] of [[0, 0], [0.7, 0.5], [-2.4, -1.2]]) {
      const camera = new OrbitCamera({ yaw, pitch });
      camera.setInsets({ left: 0, top: 0, right: 0.2, bottom: 0 });
      camera.frame(bounds, aspect);
      // The uncovered part is x in [−1, 0.6] in NDC; its middle is −0.2.
      const t = clip(camera, aspect, [...camera.target]);
      expect(t[0]! / t[3]!).toBeCloseTo(-0.2, 6);
      expect(t[1]! / t[3]!).toBeCloseTo(0, 6);
      for (let corner = 0; corner < 8; corner++) {
        const p = [0, 1, 2].map((a) => ((corner >> a) & 1 ? bounds.max[a]! : bounds.min[a]!));
        const c = clip(camera, aspect, p);
        expect(c[0]! / c[3]!).toBeGreaterThanOrEqual(-1);
        expect(c[0]! / c[3]!).toBeLessThanOrEqual(0.6);
        expect(Math.abs(c[1]! / c[3]!)).toBeLessThanOrEqual(1);
      }
    }
  });

  it.each([0.6, 1, 2.5])('with overlays on every side (stats at the left and top, a sheet at the bottom), frame() fits the free rectangle, the target in its middle (aspect %f)', (aspect) => {
    const bounds: Bounds = { min: [-3, -1, 2], max: [5, 0.5, 2.5] };
    const insets = { left: 0.25, top: 0.1, right: 0.05, bottom: 0.4 };
    // In NDC (y up): x from −0.5 to 0.9, y from −0.2 to 0.8.
    const free = { x: [2 * insets.left - 1, 1 - 2 * insets.right], y: [2 * insets.bottom - 1, 1 - 2 * insets.top] };
    for (const [yaw, pitch] of [[0, 0], [0.7, 0.5], [-2.4, -1.2]]) {
      const camera = new OrbitCamera({ yaw, pitch });
      camera.setInsets(insets);
      camera.frame(bounds, aspect);
      const t = clip(camera, aspect, [...camera.target]);
      expect(t[0]! / t[3]!).toBeCloseTo((free.x[0]! + free.x[1]!) / 2, 6);
      expect(t[1]! / t[3]!).toBeCloseTo((free.y[0]! + free.y[1]!) / 2, 6);
      let reach = 0;
      for (let corner = 0; corner < 8; corner++) {
        const p = [0, 1, 2].map((a) => ((corner >> a) & 1 ? bounds.max[a]! : bounds.min[a]!));
        const c = clip(camera, aspect, p);
        const [x, y] = [c[0]! / c[3]!, c[1]! / c[3]!];
        expect(x).toBeGreaterThanOrEqual(free.x[0]! - 1e-9);
        expect(x).toBeLessThanOrEqual(free.x[1]! + 1e-9);
        expect(y).toBeGreaterThanOrEqual(free.y[0]! - 1e-9);
        expect(y).toBeLessThanOrEqual(free.y[1]! + 1e-9);
        reach = Math.max(reach, Math.abs(x - (free.x[0]! + free.x[1]!) / 2) / (free.x[1]! - free.x[0]!), Math.abs(y - (free.y[0]! + free.y[1]!) / 2) / (free.y[1]! - free.y[0]!));
      }
      // Fitted, not merely inside: some corner comes near an edge of the free part (its bounding sphere touches one).
      expect(reach).toBeGreaterThan(0.1);
    }
  });

  it('zoom multiplies the distance within the limits set by frame()', () => {
    const camera = new OrbitCamera();
    camera.frame({ min: [-1, -1, -1], max: [1, 1, 1] });
    const d = camera.distance;
    camera.zoom(0.5);
    expect(camera.distance).toBeCloseTo(d / 2, 9);
    for (let i = 0; i < 100; i++) camera.zoom(0.1);
    expect(camera.distance).toBe(camera.minDistance);
    expect(camera.minDistance).toBeGreaterThan(0);
    for (let i = 0; i < 100; i++) camera.zoom(10);
    expect(camera.distance).toBe(camera.maxDistance);
    for (const bad of [0, -2, NaN, Infinity]) {
      camera.zoom(bad);
      expect(camera.distance).toBe(camera.maxDistance);
    }
  });

  it('pitch stops short of the poles and yaw wraps', () => {
    const camera = new OrbitCamera();
    camera.orbit(0, 10);
    expect(camera.pitch).toBe(OrbitCamera.pitchLimit);
    expect(camera.pitch).toBeLessThan(Math.PI / 2);
    const view = camera.viewMatrix(mat4.create());
    expect(Array.from(view).every(Number.isFinite)).toBe(true);
    camera.orbit(0, -20);
    expect(camera.pitch).toBe(-OrbitCamera.pitchLimit);
    camera.orbit(7 * Math.PI, 0);
    expect(camera.yaw).toBeCloseTo(Math.PI, 9);
    expect(Math.abs(camera.yaw)).toBeLessThanOrEqual(Math.PI);
    expect(new OrbitCamera({ pitch: -3 }).pitch).toBe(-OrbitCamera.pitchLimit);
  });

  it('reset restores the pose of the last setHome(); frame() alone leaves the home as it is', () => {
    const camera = new OrbitCamera({ yaw: 0.2, pitch: 0.3 });
    camera.frame({ min: [0, 0, 0], max: [2, 4, 6] }, 1.6);
    camera.setHome();
    const pose = [...camera.target, camera.distance, camera.yaw, camera.pitch];
    // Orbit, then frame (the F key): the camera frames from the new angle; reset goes home.
    camera.orbit(1.2, 0.1);
    camera.frame({ min: [0, 0, 0], max: [2, 4, 6] }, 1.6);
    expect(camera.yaw).not.toBeCloseTo(pose[4]!, 3);
    camera.reset();
    expect([...camera.target, camera.distance, camera.yaw, camera.pitch]).toEqual(pose);
    camera.orbit(1, -0.5);
    camera.zoom(3);
    camera.pan(50, 70, 600);
    camera.reset();
    expect([...camera.target, camera.distance, camera.yaw, camera.pitch]).toEqual(pose);
    // Without frame(), reset returns to the constructed pose.
    const fresh = new OrbitCamera({ target: [1, 1, 1], distance: 3 });
    fresh.orbit(0.4, 0.4);
    fresh.reset();
    expect([...fresh.target, fresh.distance, fresh.yaw, fresh.pitch]).toEqual([1, 1, 1, 3, 0, 0]);
  });
});

describe('scenes with -y up', () => {
  it('keeps the target centred and the eye on the scene side of -y', () => {
    const camera = new OrbitCamera({ pitch: 0.3 });
    camera.setUp([0, -1, 0]);
    camera.frame({ min: [-1, -3, -1], max: [1, -1, 1] }, 1);
    const view = camera.viewMatrix(mat4.create());
    const centre = vec3.transformMat4(vec3.create(), vec3.fromValues(0, -2, 0), view);
    expect(centre[0]).toBeCloseTo(0, 5);
    expect(centre[1]).toBeCloseTo(0, 5);
    expect(centre[2]).toBeCloseTo(-camera.distance, 5);
    const eye = camera.eye(vec3.create());
    const eyeInView = vec3.transformMat4(vec3.create(), eye, view);
    expect(vec3.length(eyeInView)).toBeCloseTo(0, 4);
    // Positive pitch looks down on the scene: with -y up the eye is at smaller y.
    expect(eye[1]).toBeLessThan(-2);
    // Scene "up" (-y) appears as screen up (+y in view space).
    const above = vec3.transformMat4(vec3.create(), vec3.fromValues(0, -2.5, 0), view);
    expect(above[1]).toBeGreaterThan(centre[1]);
  });
});

describe('any up axis', () => {
  const axes: [string, [number, number, number]][] = [['+y', [0, 1, 0]], ['-y', [0, -1, 0]], ['+z', [0, 0, 1]], ['-z', [0, 0, -1]], ['+x', [1, 0, 0]], ['-x', [-1, 0, 0]], ['tilted', [0.3, 0.8, -0.52]]];

  it.each(axes)('up %s: framed, the scene centre is straight ahead and its up is up on screen', (_, up) => {
    const camera = new OrbitCamera({ yaw: 0.6, pitch: 0.3 });
    camera.setUp(up);
    const bounds: Bounds = { min: [-1, 2, -3], max: [3, 4, 1] };
    camera.frame(bounds, 1.5);
    const view = camera.viewMatrix(mat4.create());
    const centre = vec3.transformMat4(vec3.create(), [1, 3, -1], view);
    expect(centre[0]).toBeCloseTo(0, 5);
    expect(centre[1]).toBeCloseTo(0, 5);
    expect(centre[2]).toBeCloseTo(-camera.distance, 5);
    // A point above the centre (along up) shows above it on screen, not beside it.
    const length = Math.hypot(...up);
    const above = vec3.transformMat4(vec3.create(), [1 + up[0] / length, 3 + up[1] / length, -1 + up[2] / length], view);
    expect(above[1]).toBeGreaterThan(centre[1] + 0.5);
    expect(above[0]).toBeCloseTo(0, 5);
    // The view comes back exactly through getView / setView.
    const restored = new OrbitCamera();
    restored.setView(camera.getView(createCameraView()));
    const again = restored.viewMatrix(mat4.create());
    for (let i = 0; i < 16; i++) expect(again[i]).toBeCloseTo(view[i]!, 6);
  });

  it('level() makes the screen up the scene up and leaves the view as it is', () => {
    const camera = new OrbitCamera({ yaw: -0.8, pitch: 0.9, distance: 7, target: [1, 2, 3] });
    camera.setUp([0, -1, 0]);
    const before = camera.viewMatrix(mat4.create());
    camera.level();
    const after = camera.viewMatrix(mat4.create());
    for (let i = 0; i < 16; i++) expect(after[i]).toBeCloseTo(before[i]!, 9);
    expect(camera.pitch).toBeCloseTo(0, 9);
    // Up is now the view's y axis in the scene: the second row of the view's rotation.
    expect([before[1], before[5], before[9]].map((v, i) => v! - camera.up[i]!).every((d) => Math.abs(d) < 1e-6)).toBe(true);
    // Reset goes back to the home up and pose.
    camera.reset();
    expect(Array.from(camera.up)).toEqual([0, 1, 0]);
  });
});

describe('orbitAround', () => {
  it('makes a picked point the point orbited, the eye staying where it is', () => {
    const camera = new OrbitCamera({ yaw: 0.4, pitch: 0.2, distance: 6, target: [1, 0, -2] });
    camera.setUp([0, -1, 0]);
    const eye = eyeOf(camera);
    camera.orbitAround([2, -1, 0.5]);
    const view = camera.getView(createCameraView());
    view.eye.forEach((v, i) => expect(v).toBeCloseTo(eye[i]!, 5));
    view.target.forEach((v, i) => expect(v).toBeCloseTo([2, -1, 0.5][i]!, 9));
    expect(camera.distance).toBeCloseTo(Math.hypot(eye[0]! - 2, eye[1]! + 1, eye[2]! - 0.5), 5);
    // The point is straight ahead, in the middle of the picture.
    const centre = vec3.transformMat4(vec3.create(), [2, -1, 0.5], camera.viewMatrix(mat4.create()));
    expect(Math.hypot(centre[0], centre[1])).toBeLessThan(1e-5);
    // Orbiting now turns about it.
    camera.orbit(0.5, 0);
    expect(Array.from(camera.getView(createCameraView()).target).every((v, i) => Math.abs(v - [2, -1, 0.5][i]!) < 1e-9)).toBe(true);
    // A point at the eye changes nothing.
    const before = camera.getView(createCameraView());
    camera.orbitAround(before.eye);
    expect(camera.getView(createCameraView())).toEqual(before);
  });
});

describe('takeHome and copy', () => {
  it('takes another camera\'s pose as home without moving, and copy() takes everything', () => {
    const camera = new OrbitCamera({ yaw: 0.2, pitch: 0.1, distance: 3, target: [0, 0, 0] });
    const view = camera.getView(createCameraView());
    const framed = new OrbitCamera().copy(camera);
    framed.frame({ min: [-10, -10, -10], max: [10, 10, 10] }, 1);
    framed.orbit(1, 0.2);
    camera.takeHome(framed);
    expect(camera.getView(createCameraView())).toEqual(view);
    expect(camera.maxDistance).toBe(framed.maxDistance);
    camera.reset();
    expect(camera.getView(createCameraView())).toEqual(framed.getView(createCameraView()));
    const copied = new OrbitCamera().copy(camera);
    camera.orbit(0.5, 0);
    copied.orbit(0.5, 0);
    expect(copied.getView(createCameraView())).toEqual(camera.getView(createCameraView()));
  });
});
