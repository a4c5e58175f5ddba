import { mat4, vec3 } from 'gl-matrix';
import { describe, expect, it } from 'vitest';
import { FLY_BOOST, FlyMotion } from '../../src/app/camera/fly-motion';
import { OrbitCamera } from '../../src/app/camera/orbit-camera';

const eyeOf = (camera: OrbitCamera) => Array.from(camera.eye(vec3.create()));
const targetOf = (camera: OrbitCamera) => camera.getView({ eye: [0, 0, 0], target: [0, 0, 0], up: [0, 1, 0], fovyDeg: 60 }).target;
/** The view direction in scene coordinates: minus the view matrix's third row (f32: compare to 6 digits). */
const forwardOf = (camera: OrbitCamera) => {
  const v = camera.viewMatrix(mat4.create());
  return [-v[2]!, -v[6]!, -v[10]!];
};
const rightOf = (camera: OrbitCamera) => {
  const v = camera.viewMatrix(mat4.create());
  return [v[0]!, v[4]!, v[8]!];
};

function expectClose(actual: ArrayLike<number>, expected: ArrayLike<number>, digits = 6): void {
  for (let i = 0; i < 3; i++) expect(actual[i]).toBeCloseTo(expected[i]!, digits);
}

/** A camera looking somewhere that is not along an axis, in a −y-up scene, as captures are. */
function tiltedCamera(): OrbitCamera {
  const camera = new OrbitCamera({ yaw: 0.7, pitch: -0.4, distance: 3, target: [1, 2, 3] });
  camera.setUp([0, -1, 0]);
  return camera;
}

describe('fly mode', () => {
  it('moves the eye speed × time along the view for a held W, and the target with it', () => {
    const camera = tiltedCamera();
    const motion = new FlyMotion();
    motion.setScene({ min: [0, 0, 0], max: [6, 8, 0] }); // diagonal 10: 10/8 units a second
    expect(motion.speed).toBeCloseTo(1.25, 12);
    const before = eyeOf(camera);
    const forward = forwardOf(camera);
    motion.press('forward');
    expect(motion.step(camera, 0.4)).toBe(true);
    const after = eyeOf(camera);
    expectClose(after, before.map((b, i) => b + 0.5 * forward[i]!));
    // Held over several frames, it goes on at the same speed; the view does not turn.
    motion.step(camera, 0.6);
    expectClose(eyeOf(camera), before.map((b, i) => b + 1.25 * forward[i]!));
    expectClose(forwardOf(camera), forward);
    expect(camera.distance).toBe(3);
  });

  it('strafes right with D, rises along the scene up with E, and goes as fast diagonally as straight', () => {
    const camera = tiltedCamera();
    const motion = new FlyMotion();
    motion.speed = 2;
    const before = eyeOf(camera);
    const right = rightOf(camera);
    motion.press('right');
    motion.step(camera, 1);
    expectClose(eyeOf(camera), before.map((b, i) => b + 2 * right[i]!));
    motion.release('right');
    motion.press('up');
    motion.step(camera, 0.5);
    // The scene's up is −y.
    expectClose(eyeOf(camera), before.map((b, i) => b + 2 * right[i]! + (i === 1 ? -1 : 0)));
    motion.release('up');
    motion.press('right');
    motion.press('forward');
    const start = eyeOf(camera);
    motion.step(camera, 1);
    const moved = eyeOf(camera).map((v, i) => v - start[i]!);
    expect(Math.hypot(...moved)).toBeCloseTo(2, 6);
  });

  it('cancels opposite keys, stops when released, and boosts with Shift', () => {
    const camera = tiltedCamera();
    const motion = new FlyMotion();
    motion.speed = 1;
    const before = eyeOf(camera);
    motion.press('left');
    motion.press('right');
    expect(motion.step(camera, 1)).toBe(false);
    expectClose(eyeOf(camera), before);
    motion.releaseAll();
    expect(motion.step(camera, 1)).toBe(false);
    motion.press('back');
    motion.boost = true;
    const forward = forwardOf(camera);
    motion.step(camera, 0.5);
    expectClose(eyeOf(camera), before.map((b, i) => b - FLY_BOOST * 0.5 * forward[i]!));
  });

  it('keeps the speed within a thousand times the scene default either way', () => {
    const motion = new FlyMotion();
    motion.setScene({ min: [0, 0, 0], max: [8, 0, 0] });
    for (let i = 0; i < 100; i++) motion.scaleSpeed(2);
    expect(motion.speed).toBeCloseTo(1000, 9);
    for (let i = 0; i < 100; i++) motion.scaleSpeed(0.5);
    expect(motion.speed).toBeCloseTo(0.001, 12);
  });

  it('comes back to a saved speed and its range when another scene gives way', () => {
    const motion = new FlyMotion();
    motion.setScene({ min: [0, 0, 0], max: [8, 0, 0] });
    motion.scaleSpeed(4);
    const saved = motion.saveSpeed();
    motion.setScene({ min: [0, 0, 0], max: [800, 0, 0] });
    expect(motion.speed).toBeCloseTo(100, 9);
    motion.restoreSpeed(saved);
    expect(motion.speed).toBeCloseTo(4, 9);
    // The range is the first scene's again: at most 1000 × its default of 1.
    for (let i = 0; i < 100; i++) motion.scaleSpeed(2);
    expect(motion.speed).toBeCloseTo(1000, 9);
  });
});

describe('OrbitCamera.look', () => {
  it('turns the view about the eye: the eye stays, right turns right and up turns up', () => {
    const camera = tiltedCamera();
    const eye = eyeOf(camera);
    const forward = forwardOf(camera);
    const right = rightOf(camera);
    camera.look(0.1, 0);
    expectClose(eyeOf(camera), eye);
    const turned = forwardOf(camera);
    // Turned towards the old right, by 0.1 rad.
    expect(turned.reduce((s, v, i) => s + v * right[i]!, 0)).toBeGreaterThan(0.09);
    expect(turned.reduce((s, v, i) => s + v * forward[i]!, 0)).toBeCloseTo(Math.cos(0.1) * 1, 1);
    // The target is still `distance` ahead.
    const target = targetOf(camera);
    expectClose(target, eye.map((e, i) => e + 3 * turned[i]!));
    // Up: the view direction climbs along the scene's up (−y).
    const pitchBefore = -turned[1]!;
    camera.look(0, 0.2);
    expectClose(eyeOf(camera), eye);
    expect(-forwardOf(camera)[1]!).toBeGreaterThan(pitchBefore + 0.15);
  });
});
