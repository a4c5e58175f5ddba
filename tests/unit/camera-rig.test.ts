/** The viewer's cameras following the part of the window the overlays leave free (src/app/camera/camera-rig.ts). */
import { describe, expect, it } from 'vitest';
import { CameraRig } from '../../src/app/camera/camera-rig';
import type { Bounds } from '../../src/scene/splat-cloud';

const BOUNDS: Bounds = { min: [-1, -2, -1], max: [1, 2, 1] };
const SHEET = { left: 0, top: 0, right: 0, bottom: 0.45 };
const NONE = { left: 0, top: 0, right: 0, bottom: 0 };

function framedRig(): CameraRig {
  const rig = new CameraRig();
  rig.setWindow(1280, 800, NONE);
  rig.frameHome(BOUNDS, '+y');
  return rig;
}

describe('a free part of the window that changes', () => {
  it('is a change only when the window\'s shape or the insets change', () => {
    const rig = framedRig();
    expect(rig.setWindow(1280, 800, NONE)).toBe(false);
    expect(rig.setWindow(1280, 800, SHEET)).toBe(true);
    expect(rig.setWindow(640, 400, SHEET)).toBe(false);
    expect(rig.setWindow(800, 1280, SHEET)).toBe(true);
  });

  it('refits a camera the user has not moved from where it looks (an auto-rotate\'s turn kept), and its home', () => {
    const rig = framedRig();
    const whole = rig.camera.distance;
    rig.camera.orbit(0.7, 0);
    const yaw = rig.camera.yaw;
    rig.setWindow(1280, 800, SHEET);
    rig.refit(BOUNDS, '+y');
    // Less room: farther back, at the same angle, the lens shifted up.
    expect(rig.camera.distance).toBeGreaterThan(1.2 * whole);
    expect(rig.camera.yaw).toBe(yaw);
    expect(rig.camera.insets).toEqual(SHEET);
    const fitted = rig.camera.distance;
    rig.camera.reset();
    expect(rig.camera.distance).toBeCloseTo(fitted, 9);
  });

  it('keeps the pose of a camera the user moved: only the lens shift and the home follow', () => {
    const rig = framedRig();
    rig.camera.zoom(0.5);
    rig.moved = true;
    const pose = [rig.camera.yaw, rig.camera.pitch, rig.camera.distance, ...rig.camera.target];
    rig.setWindow(1280, 800, SHEET);
    rig.refit(BOUNDS, '+y');
    expect([rig.camera.yaw, rig.camera.pitch, rig.camera.distance, ...rig.camera.target]).toEqual(pose);
    expect(rig.camera.insets).toEqual(SHEET);
    rig.camera.reset();
    // Home: farther back than the framing for the whole window (twice this zoomed pose's distance).
    expect(rig.camera.distance).toBeGreaterThan(1.2 * 2 * pose[2]!);
  });
});
