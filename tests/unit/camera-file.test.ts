import { describe, expect, it } from 'vitest';
import { mat4, vec3, vec4 } from 'gl-matrix';
import { CameraFileError, cameraFileOf, cameraMatrices, parseCameraFile, type CameraFile } from '../../src/app/camera/camera-file';
import { createCameraView, OrbitCamera } from '../../src/app/camera/orbit-camera';
import { lensShiftOf } from '../../src/app/camera/view-insets';
import { allocateSplatCloud, computeBounds } from '../../src/scene/splat-cloud';
import { renderReferenceCamera } from '../../cli/reference-camera';
import { toRgba8 } from '../../cli/picture-compare';
import { drawnBoxCentre } from '../support/test-view';

const VALID = { width: 640, height: 480, fovy_deg: 50, eye: [0, 1, 4], target: [0, 0, 0], up: [0, 1, 0], background: [0, 0, 0.2], sh_degree: 3 };

describe('camera file', () => {
  it('reads the documented format and ignores extra keys', () => {
    const camera = parseCameraFile(JSON.stringify({ ...VALID, comment: 'kept out' }));
    // A file without "mode" (older files, the render command's) is an orbit view, one without "lens_shift" centred.
    expect(camera).toEqual({ ...VALID, mode: 'orbit', lens_shift: [0, 0] });
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
    ['a lens shift of one number', JSON.stringify({ ...VALID, lens_shift: [0.2] }), /"lens_shift" must be an array of two numbers, got \[0.2\]/],
    ['a lens shift past the picture', JSON.stringify({ ...VALID, lens_shift: [0, -1.5] }), /"lens_shift" values must be between -1 and 1, got \[0,-1.5\]/],
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

  describe('lens shift', () => {
    /** Where `point` lands in the picture of `camera`, in NDC. */
    const ndcOf = (camera: CameraFile, point: readonly number[]) => {
      const [view, projection] = [mat4.create(), mat4.create()];
      cameraMatrices(camera, view, projection);
      const clip = vec4.transformMat4(vec4.create(), vec4.transformMat4(vec4.create(), [point[0]!, point[1]!, point[2]!, 1], view), projection);
      return [clip[0] / clip[3], clip[1] / clip[3]];
    };

    it('leaves an older file without one centred: the target in the middle, the projection unshifted', () => {
      const camera = parseCameraFile(JSON.stringify(VALID));
      const [x, y] = ndcOf(camera, VALID.target);
      expect(Math.abs(x!)).toBeLessThan(1e-7);
      expect(Math.abs(y!)).toBeLessThan(1e-7);
      const projection = mat4.create();
      cameraMatrices(camera, mat4.create(), projection);
      expect(Object.is(projection[8], 0) && Object.is(projection[9], 0)).toBe(true);
    });

    it('puts the target where the file says, in halves of the picture from its centre', () => {
      const camera = parseCameraFile(JSON.stringify({ ...VALID, lens_shift: [-0.35, 0.2] }));
      expect(camera.lens_shift).toEqual([-0.35, 0.2]);
      const [x, y] = ndcOf(camera, VALID.target);
      expect(x).toBeCloseTo(-0.35, 6);
      expect(y).toBeCloseTo(0.2, 6);
    });

    it('keeps the shift of an orbit camera framing beside overlays: the file gives the projection the screen had', () => {
      const camera = new OrbitCamera({ yaw: 0.4, pitch: -0.3, distance: 6, target: [1, 0.5, -2] });
      // A panel over the right 35 % and the stats over the top 10 %.
      camera.setInsets({ left: 0, top: 0.1, right: 0.35, bottom: 0 });
      const onScreen = camera.projectionMatrix(mat4.create(), 640 / 480);
      // The target left of the middle and below it: in the middle of what the panel and the stats leave free.
      const shift = lensShiftOf(camera.insets);
      expect(shift).toEqual([-0.35, -0.1]);
      const file = parseCameraFile(JSON.stringify(cameraFileOf(camera.getView(createCameraView()), { width: 640, height: 480, background: [0, 0, 0], shDegree: 0, lensShift: shift })));
      expect(file.lens_shift).toEqual([-0.35, -0.1]);
      const projection = mat4.create();
      cameraMatrices(file, mat4.create(), projection, camera.near);
      for (let i = 0; i < 16; i++) expect(projection[i]).toBeCloseTo(onScreen[i]!, 6);
      // A file written without one says so: [0, 0], not a missing field.
      expect(cameraFileOf(camera.getView(createCameraView()), { width: 64, height: 48, background: [0, 0, 0], shDegree: 0 }).lens_shift).toEqual([0, 0]);
    });

    it('moves the reference rasterizer\'s picture (the render command\'s --reference) as it moves the GPU\'s', () => {
      // One small opaque splat at the target, drawn on a black background.
      const cloud = allocateSplatCloud(1, 0);
      cloud.scales.fill(0.05);
      cloud.rotations[0] = 1;
      cloud.opacities[0] = 5;
      cloud.dc.fill(2);
      cloud.bounds = computeBounds(cloud.positions, 1);
      const camera = parseCameraFile(JSON.stringify({ ...VALID, width: 64, height: 48, background: [0, 0, 0], sh_degree: 0, lens_shift: [-0.5, 0.25] }));
      const picture = renderReferenceCamera(cloud, camera);
      const [x, y] = drawnBoxCentre({ rgba: toRgba8(picture.rgb), width: 64, height: 48 }, [0, 0, 0])!;
      // Half a half-width left of the middle, a quarter of a half-height above it.
      expect(x).toBeCloseTo(0.25, 1);
      expect(y).toBeCloseTo(0.375, 1);
    });
  });
});
