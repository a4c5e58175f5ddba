import { describe, expect, it } from 'vitest';
import { mat4, vec3 } from 'gl-matrix';
import { CameraFileError, cameraFileOf, cameraMatrices, parseCameraFile } from '../../src/app/camera/camera-file';

const VALID = { width: 640, height: 480, fovy_deg: 50, eye: [0, 1, 4], target: [0, 0, 0], up: [0, 1, 0], background: [0, 0, 0.2], sh_degree: 3 };

describe('camera file', () => {
  it('reads the documented format and ignores extra keys', () => {
    const camera = parseCameraFile(JSON.stringify({ ...VALID, comment: 'kept out' }));
    // A file without "mode" (older files, the render command's) is an orbit view.
    expect(camera).toEqual({ ...VALID, mode: 'orbit' });
  });

  it('keeps the viewer\'s camera mode', () => {
    expect(parseCameraFile(JSON.stringify({ ...VALID, mode: 'fly' })).mode).toBe('fly');
    const file = cameraFileOf({ eye: [0, 1, 4], target: [0, 0, 0], up: [0, 1, 0], fovyDeg: 50 }, { width: 64, height: 48, background: [0, 0, 0], shDegree: 0, mode: 'fly' });
    expect(parseCameraFile(JSON.stringify(file)).mode).toBe('fly');
    expect(() => parseCameraFile(JSON.stringify({ ...VALID, mode: 'walk' }))).toThrow(/"mode" must be "orbit" or "fly", got "walk"/);
  });

  it('gives matrices that look from eye to target with the vertical fov and aspect', () => {
    const camera = parseCameraFile(JSON.stringify(VALID));
    const view = mat4.create();
    const projection = mat4.create();
    cameraMatrices(camera, view, projection);
    const target = vec3.transformMat4(vec3.create(), [0, 0, 0], view);
    expect(target[0]).toBeCloseTo(0, 6);
    expect(target[1]).toBeCloseTo(0, 6);
    expect(target[2]).toBeCloseTo(-Math.hypot(1, 4), 6);
    // A point on the top edge of the vertical field of view lands at clip y = w.
    const d = 5;
    const half = (50 * Math.PI) / 360;
    const top = vec3.transformMat4(vec3.create(), [0, d * Math.tan(half), -d], projection);
    expect(top[1]).toBeCloseTo(1, 5);
    const right = vec3.transformMat4(vec3.create(), [d * Math.tan(half) * (640 / 480), 0, -d], projection);
    expect(right[0]).toBeCloseTo(1, 5);
  });

  it.each([
    ['not JSON', '{', /not JSON/],
    ['an array', '[]', /JSON object/],
    ['a missing field', JSON.stringify({ ...VALID, width: undefined }), /^"width" is missing$/],
    ['a field that is not a number', JSON.stringify({ ...VALID, width: '640' }), /"width" must be a number, got "640"/],
    ['a fractional size', JSON.stringify({ ...VALID, height: 10.5 }), /"height" must be a whole number/],
    ['a bad vector', JSON.stringify({ ...VALID, eye: [0, 1] }), /"eye" must be an array of three numbers/],
    ['a background above 1', JSON.stringify({ ...VALID, background: [0, 2, 0] }), /"background" values must be between 0 and 1/],
    ['an SH degree of 4', JSON.stringify({ ...VALID, sh_degree: 4 }), /"sh_degree" must be between 0 and 3/],
    ['eye on target', JSON.stringify({ ...VALID, eye: [0, 0, 0] }), /same point/],
    ['up along the view', JSON.stringify({ ...VALID, up: [0, 1, 4] }), /parallel/],
  ])('refuses %s with a message naming the field', (_, text, message) => {
    expect(() => parseCameraFile(text)).toThrow(CameraFileError);
    expect(() => parseCameraFile(text)).toThrow(message);
  });

  it('names every bad field, not only the first: a bad eye in a file without a size is reported as a bad eye', () => {
    const { width: _w, height: _h, ...view } = VALID;
    expect(() => parseCameraFile(JSON.stringify({ ...view, eye: 'here' }))).toThrow(
      '"width" is missing; "height" is missing; "eye" must be an array of three numbers, got "here"',
    );
  });

  it('writes a saved view with readable numbers that read back to the same matrices', () => {
    const fovY = (60 * Math.PI) / 180;
    const view = { eye: [0.1 + 0.2, 1, 4] as [number, number, number], target: [0, 0, 0] as [number, number, number], up: [0, 1, 0] as [number, number, number], fovyDeg: (fovY * 180) / Math.PI };
    expect(view.fovyDeg).not.toBe(60);
    const file = cameraFileOf(view, { width: 640, height: 480, background: [0, 0, 0.2], shDegree: 3 });
    expect(file.fovy_deg).toBe(60);
    expect(file.eye[0]).toBe(0.3);
    const read = parseCameraFile(JSON.stringify(file));
    const [a, b] = [mat4.create(), mat4.create()];
    const [pa, pb] = [mat4.create(), mat4.create()];
    cameraMatrices(read, a, pa);
    cameraMatrices({ ...read, eye: view.eye, fovy_deg: view.fovyDeg }, b, pb);
    expect(Array.from(a)).toEqual(Array.from(b));
    expect(Array.from(pa)).toEqual(Array.from(pb));
  });
});
