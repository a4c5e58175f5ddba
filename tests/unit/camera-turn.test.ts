import { describe, expect, it } from 'vitest';
import { cropAtPixelScale, turnCameras, yawCamera, TURN_DEGREES_PER_FRAME, TURN_FRAMES } from '../../bench/camera-turn';
import type { CameraFile } from '../../src/app/camera/camera-file';

const CAMERA: CameraFile = { width: 64, height: 48, fovy_deg: 50, eye: [1, 2, 3], target: [1, 2, -2], up: [0, 1, 0], background: [0, 0, 0], sh_degree: 0 };

/** The unit direction the camera looks in. */
function look(c: CameraFile): number[] {
  const d = c.target.map((t, i) => t - c.eye[i]!);
  const n = Math.hypot(...d);
  return d.map((v) => v / n);
}

describe('yawCamera', () => {
  it('turns the target about the eye, around up, to the left for positive degrees', () => {
    const turned = yawCamera(CAMERA, 90);
    // Looking down −z, a quarter turn to the left (counter-clockwise seen from above) looks down −x.
    const d = look(turned);
    expect(d[0]).toBeCloseTo(-1, 6);
    expect(d[1]).toBeCloseTo(0, 6);
    expect(d[2]).toBeCloseTo(0, 6);
    // The eye, the distance to the target and everything else stay.
    expect(turned.eye).toEqual(CAMERA.eye);
    expect(Math.hypot(...turned.target.map((t, i) => t - turned.eye[i]!))).toBeCloseTo(5, 6);
    expect({ ...turned, target: CAMERA.target }).toEqual(CAMERA);
  });

  it('turns about the camera\'s own up vector', () => {
    const tilted: CameraFile = { ...CAMERA, target: [1, 2, 8], up: [1, 0, 0] };
    const d = look(yawCamera(tilted, 90));
    // Looking down +z with +x up, a quarter turn about +x looks down −y.
    expect(d[0]).toBeCloseTo(0, 6);
    expect(d[1]).toBeCloseTo(-1, 6);
    expect(d[2]).toBeCloseTo(0, 6);
  });

  it('refuses an up vector with no direction', () => {
    expect(() => yawCamera({ ...CAMERA, up: [0, 0, 0] }, 1)).toThrow(/up vector \[0,0,0\] has no direction/);
  });
});

describe('turnCameras', () => {
  it('gives the camera itself first, then each frame turned by the step more', () => {
    const cameras = turnCameras(CAMERA, 4, 0.5);
    expect(cameras).toHaveLength(4);
    expect(cameras[0]).toBe(CAMERA);
    for (let i = 1; i < 4; i++) {
      const [a, b] = [look(cameras[i - 1]!), look(cameras[i]!)];
      const angle = (Math.acos(Math.min(1, a.reduce((s, v, k) => s + v * b[k]!, 0))) * 180) / Math.PI;
      expect(angle).toBeCloseTo(0.5, 6);
    }
  });

  it('defaults to the popping measure\'s slow turn', () => {
    const cameras = turnCameras(CAMERA);
    expect(cameras).toHaveLength(TURN_FRAMES);
    const last = look(cameras[TURN_FRAMES - 1]!);
    const total = (Math.acos(-last[2]!) * 180) / Math.PI;
    expect(total).toBeCloseTo((TURN_FRAMES - 1) * TURN_DEGREES_PER_FRAME, 5);
  });
});

describe('cropAtPixelScale', () => {
  /** Focal length in pixels, from the vertical field of view and height. */
  const focal = (c: CameraFile) => c.height / 2 / Math.tan((c.fovy_deg * Math.PI) / 360);

  it('keeps the full picture\'s focal length in pixels and everything but the size', () => {
    const crop = cropAtPixelScale(CAMERA, 16, 12, 'camera.json');
    expect(crop.width).toBe(16);
    expect(crop.height).toBe(12);
    expect(crop.fovy_deg).toBeLessThan(CAMERA.fovy_deg);
    expect(focal(crop)).toBeCloseTo(focal(CAMERA), 9);
    expect({ ...crop, width: CAMERA.width, height: CAMERA.height, fovy_deg: CAMERA.fovy_deg }).toEqual(CAMERA);
  });

  it('refuses a lens-shifted camera by name, whose centre is not its picture\'s', () => {
    expect(() => cropAtPixelScale({ ...CAMERA, lens_shift: [0.1, 0] }, 16, 12, 'shifted.json')).toThrow(/shifted\.json: a lens-shifted camera/);
    expect(cropAtPixelScale({ ...CAMERA, lens_shift: [0, 0] }, 16, 12, 'centred.json').height).toBe(12);
  });
});
