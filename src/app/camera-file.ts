/**
 * The camera file: one view, reproducible exactly, shared by the headless
 * render command and the viewer's "save camera" / "load camera".
 *
 *   {"width": W, "height": H, "fovy_deg": F, "eye": [x,y,z], "target": [x,y,z],
 *    "up": [x,y,z], "background": [r,g,b], "sh_degree": D}
 *
 * Extra keys are ignored; background is in 0..1; the vertical field of view
 * is in degrees and the aspect is width / height.
 */
import { mat4, vec3 } from 'gl-matrix';

export interface CameraFile {
  width: number;
  height: number;
  fovy_deg: number;
  eye: [number, number, number];
  target: [number, number, number];
  up: [number, number, number];
  background: [number, number, number];
  sh_degree: number;
}

export class CameraFileError extends Error {
  override name = 'CameraFileError';
}

/** Reads and checks a camera file's JSON text; the error says which field is wrong. */
export function parseCameraFile(text: string): CameraFile {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CameraFileError(`the camera file is not JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new CameraFileError('the camera file must hold a JSON object');
  const o = value as Record<string, unknown>;
  const camera: CameraFile = {
    width: integer(o, 'width', 1, 16384),
    height: integer(o, 'height', 1, 16384),
    fovy_deg: number(o, 'fovy_deg', 1e-3, 179.9),
    eye: vector(o, 'eye'),
    target: vector(o, 'target'),
    up: vector(o, 'up'),
    background: vector(o, 'background', 0, 1),
    sh_degree: integer(o, 'sh_degree', 0, 3),
  };
  const forward = vec3.sub(vec3.create(), camera.target, camera.eye);
  if (vec3.length(forward) === 0) throw new CameraFileError('"eye" and "target" are the same point');
  if (vec3.length(vec3.cross(vec3.create(), forward, camera.up)) === 0) throw new CameraFileError('"up" is zero or parallel to the view direction');
  return camera;
}

/** View and projection matrices of a camera file (WebGPU clip space, infinite far plane). */
export function cameraMatrices(camera: CameraFile, view: mat4, projection: mat4, near = 0.01): void {
  mat4.lookAt(view, camera.eye, camera.target, camera.up);
  mat4.perspectiveZO(projection, (camera.fovy_deg * Math.PI) / 180, camera.width / camera.height, near, Infinity);
}

function number(o: Record<string, unknown>, key: string, min: number, max: number): number {
  const v = o[key];
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new CameraFileError(`"${key}" must be a number, got ${JSON.stringify(v)}`);
  if (v < min || v > max) throw new CameraFileError(`"${key}" must be between ${min} and ${max}, got ${v}`);
  return v;
}

function integer(o: Record<string, unknown>, key: string, min: number, max: number): number {
  const v = number(o, key, min, max);
  if (!Number.isInteger(v)) throw new CameraFileError(`"${key}" must be a whole number, got ${v}`);
  return v;
}

function vector(o: Record<string, unknown>, key: string, min = -Infinity, max = Infinity): [number, number, number] {
  const v = o[key];
  if (!Array.isArray(v) || v.length !== 3 || !v.every((x) => typeof x === 'number' && Number.isFinite(x))) {
    throw new CameraFileError(`"${key}" must be an array of three numbers, got ${JSON.stringify(v)}`);
  }
  if (v.some((x: number) => x < min || x > max)) throw new CameraFileError(`"${key}" values must be between ${min} and ${max}`);
  return [v[0], v[1], v[2]];
}
