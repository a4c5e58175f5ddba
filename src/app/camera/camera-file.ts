/**
 * The camera file: one view, reproducible exactly, shared by the headless
 * render command and the viewer's "save camera" / "load camera".
 *
 *   {"width": W, "height": H, "fovy_deg": F, "eye": [x,y,z], "target": [x,y,z],
 *    "up": [x,y,z], "background": [r,g,b], "sh_degree": D, "mode": "orbit",
 *    "lens_shift": [x, y]}
 *
 * Extra keys are ignored; background is in 0..1; the vertical field of view
 * is in degrees and the aspect is width / height. "mode" (the viewer's
 * orbit or fly mode) may be left out: orbit. "lens_shift" is where the view
 * axis (the line from eye to target) meets the picture, from its centre in
 * halves of its width (x, rightwards) and height (y, upwards): the viewer
 * frames the scene in the part of the window its panels leave free by
 * sliding the picture so (a lens shift; the eye and its direction stay),
 * and a camera file saved there keeps that, so the render command draws
 * the picture that was on screen. Left out (older files): [0, 0], centred.
 */
import { mat4, vec3 } from 'gl-matrix';
import { CAMERA_MODES, type CameraMode } from './fly-motion';
import type { CameraView } from './orbit-camera';
import { shareableNumber } from './view-url';
import { CENTRED, shiftProjectionTo } from './view-insets';

export interface CameraFile {
  width: number;
  height: number;
  fovy_deg: number;
  eye: [number, number, number];
  target: [number, number, number];
  up: [number, number, number];
  background: [number, number, number];
  sh_degree: number;
  /** The viewer's camera mode; absent: orbit. */
  mode?: CameraMode;
  /** Where the view axis meets the picture, in halves of its width and height from its centre (x right, y up); absent: [0, 0]. */
  lens_shift?: [number, number];
}

/** The furthest a lens shift may put the view axis from the picture's centre: its edge (the viewer keeps it well inside). */
const MAX_LENS_SHIFT = 1;

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
  // Every field is checked, and every problem named: one typo must not hide behind another.
  const problems: string[] = [];
  const read = <T>(field: () => T): T => {
    try {
      return field();
    } catch (error) {
      if (!(error instanceof CameraFileError)) throw error;
      problems.push(error.message);
      return undefined as T;
    }
  };
  const camera: CameraFile = {
    width: read(() => integer(o, 'width', 1, 16384)),
    height: read(() => integer(o, 'height', 1, 16384)),
    fovy_deg: read(() => number(o, 'fovy_deg', 1e-3, 179.9)),
    eye: read(() => vector(o, 'eye')),
    target: read(() => vector(o, 'target')),
    up: read(() => vector(o, 'up')),
    background: read(() => vector(o, 'background', 0, 1)),
    sh_degree: read(() => integer(o, 'sh_degree', 0, 3)),
    mode: read(() => cameraMode(o)),
    lens_shift: read(() => lensShift(o)),
  };
  if (problems.length > 0) throw new CameraFileError(problems.join('; '));
  const forward = vec3.sub(vec3.create(), camera.target, camera.eye);
  if (vec3.length(forward) === 0) throw new CameraFileError('"eye" and "target" are the same point');
  if (vec3.length(vec3.cross(vec3.create(), forward, camera.up)) === 0) throw new CameraFileError('"up" is zero or parallel to the view direction');
  return camera;
}

/** The camera file of a view, its numbers as readable as view links' (shareableNumber). */
export function cameraFileOf(
  view: CameraView,
  look: { width: number; height: number; background: [number, number, number]; shDegree: number; mode?: CameraMode; lensShift?: readonly [number, number] },
): CameraFile {
  const v3 = (v: readonly number[]): [number, number, number] => [shareableNumber(v[0]!), shareableNumber(v[1]!), shareableNumber(v[2]!)];
  return {
    width: look.width,
    height: look.height,
    fovy_deg: shareableNumber(view.fovyDeg),
    eye: v3(view.eye),
    target: v3(view.target),
    up: v3(view.up),
    background: v3(look.background),
    sh_degree: look.shDegree,
    mode: look.mode ?? 'orbit',
    // Written when centred too: a file says whether its picture was shifted.
    lens_shift: [shareableNumber(look.lensShift?.[0] ?? 0), shareableNumber(look.lensShift?.[1] ?? 0)],
  };
}

/** View and projection matrices of a camera file (WebGPU clip space, infinite far plane, the lens shift applied). */
export function cameraMatrices(camera: CameraFile, view: mat4, projection: mat4, near = 0.01): void {
  mat4.lookAt(view, camera.eye, camera.target, camera.up);
  mat4.perspectiveZO(projection, (camera.fovy_deg * Math.PI) / 180, camera.width / camera.height, near, Infinity);
  shiftProjectionTo(projection, camera.lens_shift ?? CENTRED);
}

function number(o: Record<string, unknown>, key: string, min: number, max: number): number {
  const v = o[key];
  if (v === undefined) throw new CameraFileError(`"${key}" is missing`);
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new CameraFileError(`"${key}" must be a number, got ${JSON.stringify(v)}`);
  if (v < min || v > max) throw new CameraFileError(`"${key}" must be between ${min} and ${max}, got ${v}`);
  return v;
}

function integer(o: Record<string, unknown>, key: string, min: number, max: number): number {
  const v = number(o, key, min, max);
  if (!Number.isInteger(v)) throw new CameraFileError(`"${key}" must be a whole number, got ${v}`);
  return v;
}

function lensShift(o: Record<string, unknown>): [number, number] {
  const v = o.lens_shift;
  if (v === undefined) return [0, 0];
  if (!Array.isArray(v) || v.length !== 2 || !v.every((x) => typeof x === 'number' && Number.isFinite(x))) {
    throw new CameraFileError(`"lens_shift" must be an array of two numbers, got ${JSON.stringify(v)}`);
  }
  if (v.some((x: number) => Math.abs(x) > MAX_LENS_SHIFT)) throw new CameraFileError(`"lens_shift" values must be between ${-MAX_LENS_SHIFT} and ${MAX_LENS_SHIFT}, got ${JSON.stringify(v)}`);
  return [v[0], v[1]];
}

function cameraMode(o: Record<string, unknown>): CameraMode {
  const v = o.mode;
  if (v === undefined) return 'orbit';
  if (typeof v !== 'string' || !(CAMERA_MODES as readonly string[]).includes(v)) {
    throw new CameraFileError(`"mode" must be ${CAMERA_MODES.map((m) => `"${m}"`).join(' or ')}, got ${JSON.stringify(v)}`);
  }
  return v as CameraMode;
}

function vector(o: Record<string, unknown>, key: string, min = -Infinity, max = Infinity): [number, number, number] {
  const v = o[key];
  if (v === undefined) throw new CameraFileError(`"${key}" is missing`);
  if (!Array.isArray(v) || v.length !== 3 || !v.every((x) => typeof x === 'number' && Number.isFinite(x))) {
    throw new CameraFileError(`"${key}" must be an array of three numbers, got ${JSON.stringify(v)}`);
  }
  if (v.some((x: number) => x < min || x > max)) throw new CameraFileError(`"${key}" values must be between ${min} and ${max}`);
  return [v[0], v[1], v[2]];
}
