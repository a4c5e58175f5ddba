import { vec3 } from 'gl-matrix';
import { describe, expect, it } from 'vitest';
import { DAMPING_TIME_S, followCamera } from '../../src/app/camera/camera-damping';
import { OrbitCamera } from '../../src/app/camera/orbit-camera';

function pair(): { shown: OrbitCamera; goal: OrbitCamera } {
  const goal = new OrbitCamera({ yaw: 0.3, pitch: 0.2, distance: 4, target: [1, 2, 3] });
  const shown = new OrbitCamera();
  followCamera(shown, goal, 0, 0); // start together
  return { shown, goal };
}

describe('camera damping', () => {
  it('closes 1 − e^(−t/τ) of the gap in t, whatever the steps', () => {
    const { shown, goal } = pair();
    goal.orbit(0.5, 0);
    expect(followCamera(shown, goal, DAMPING_TIME_S)).toBe(true);
    expect(shown.yaw).toBeCloseTo(0.3 + 0.5 * (1 - Math.exp(-1)), 12);
    // Ten frames of τ/10 get as far as one of τ.
    const { shown: other, goal: again } = pair();
    again.orbit(0.5, 0);
    for (let i = 0; i < 10; i++) followCamera(other, again, DAMPING_TIME_S / 10);
    expect(other.yaw).toBeCloseTo(shown.yaw, 12);
  });

  it('comes to rest on the goal exactly', () => {
    const { shown, goal } = pair();
    goal.zoom(0.5);
    goal.pan(30, -20, 600);
    goal.orbit(-0.4, 0.3);
    let frames = 0;
    while (followCamera(shown, goal, 1 / 60)) frames++;
    // About a second at 60 Hz: ln(gap / 1e-5) τ.
    expect(frames).toBeGreaterThan(30);
    expect(frames).toBeLessThan(120);
    expect(Array.from(shown.eye(vec3.create()))).toEqual(Array.from(goal.eye(vec3.create())));
    expect([shown.yaw, shown.pitch, shown.distance]).toEqual([goal.yaw, goal.pitch, goal.distance]);
  });

  it('slides the lens shift to where an overlay that opened leaves the scene, and the eye stays', () => {
    const { shown, goal } = pair();
    const eye = Array.from(shown.eye(vec3.create()));
    // A sheet over the lower 40 % of the window.
    goal.setInsets({ left: 0, top: 0, right: 0, bottom: 0.4 });
    expect(followCamera(shown, goal, DAMPING_TIME_S)).toBe(true);
    expect(shown.insets.bottom).toBeCloseTo(0.4 * (1 - Math.exp(-1)), 12);
    while (followCamera(shown, goal, 1 / 60));
    expect(shown.insets).toEqual(goal.insets);
    expect(Array.from(shown.eye(vec3.create()))).toEqual(eye);
  });

  it('zooms evenly in scale, and turns the short way across ±180°', () => {
    const { shown, goal } = pair();
    goal.zoom(1 / 16);
    followCamera(shown, goal, DAMPING_TIME_S * Math.log(2)); // half the gap, in log distance
    expect(shown.distance).toBeCloseTo(4 / 4, 9);
    const a = new OrbitCamera({ yaw: Math.PI - 0.05 });
    const b = new OrbitCamera({ yaw: -Math.PI + 0.05 });
    followCamera(a, b, DAMPING_TIME_S * Math.log(2));
    // Half of the 0.1 rad the short way: through π, not back through 0.
    expect(Math.abs(Math.abs(a.yaw) - Math.PI)).toBeCloseTo(0, 9);
  });

  it('takes a new up, a long pause or no damping at once', () => {
    const { shown, goal } = pair();
    goal.setUp([0, -1, 0]);
    goal.orbit(1, 0);
    expect(followCamera(shown, goal, 1 / 60)).toBe(false);
    expect(Array.from(shown.up)).toEqual([0, -1, 0]);
    expect(shown.yaw).toBe(goal.yaw);
    goal.orbit(1, 0);
    expect(followCamera(shown, goal, 10)).toBe(false);
    expect(shown.yaw).toBe(goal.yaw);
    goal.orbit(1, 0);
    expect(followCamera(shown, goal, 1 / 60, 0)).toBe(false);
    expect(shown.yaw).toBe(goal.yaw);
  });
});
