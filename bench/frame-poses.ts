/**
 * Where the frame benchmark looks from: its built-in camera path (outside
 * the scene, then closer, then inside), or camera files (the render
 * command's and the viewer's format, src/app/camera/camera-file.ts), so that a
 * frame here and another renderer's frame (the INRIA rasterizer's
 * time-ref.sh) are timed from the same cameras.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { mat4, vec3 } from 'gl-matrix';
import { cameraMatrices, parseCameraFile, type CameraFile } from '../src/app/camera/camera-file';
import { OrbitCamera } from '../src/app/camera/orbit-camera';
import type { Bounds } from '../src/scene/splat-cloud';
import type { FrameParameters } from '../src/render/frame-uniforms';

export interface FramePose {
  name: string;
  /** The camera file it came from (none for the built-in path). */
  camera?: string;
  view: mat4;
  projection: mat4;
  eye: vec3;
  fovY: number;
  /** SH bands the camera asks for (a camera file's sh_degree); null: the scene's. */
  shDegree: number | null;
}

/** The built-in path: outside the scene, half of it off screen, closer, then inside looking level and back. */
export function pathPoses(bounds: Bounds, up: ArrayLike<number>, width: number, height: number): FramePose[] {
  const make = (name: string, edit: (c: OrbitCamera) => void): FramePose => {
    const c = new OrbitCamera({ yaw: 0.6, pitch: 0.35 });
    c.setUp(up);
    c.frame(bounds, width / height);
    edit(c);
    const pose: FramePose = { name, view: mat4.create(), projection: mat4.create(), eye: vec3.create(), fovY: c.fovY, shDegree: null };
    c.viewMatrix(pose.view);
    c.projectionMatrix(pose.projection, width / height);
    c.eye(pose.eye);
    return pose;
  };
  return [
    make('outside: whole scene', () => {}),
    make('outside: half off screen', (c) => c.pan(width / 2, 0, height)),
    make('closer (1/3 the distance)', (c) => c.zoom(1 / 3)),
    make('entering (1/8)', (c) => c.zoom(1 / 8)),
    make('inside, level', (c) => {
      c.zoom(1 / 40);
      c.pitch = 0.05;
    }),
    make('inside, turned round', (c) => {
      c.zoom(1 / 40);
      c.pitch = 0.05;
      c.orbit(Math.PI, 0);
    }),
  ];
}

export function readCameraFiles(files: readonly string[]): { file: string; camera: CameraFile }[] {
  return files.map((file) => {
    try {
      return { file, camera: parseCameraFile(readFileSync(file, 'utf8')) };
    } catch (error) {
      throw new Error(`${file}: ${(error as Error).message}`);
    }
  });
}

/**
 * The size a run draws at: --width/--height where given (camera files are
 * then drawn at it, their field of view kept), else the camera files' own
 * size (they must agree), else 1920×1080.
 */
export function runSize(width: string | undefined, height: string | undefined, cameras: readonly { file: string; camera: CameraFile }[]): { width: number; height: number } {
  if (width !== undefined || height !== undefined) {
    const size = { width: Number(width ?? 1920), height: Number(height ?? 1080) };
    for (const [name, v] of Object.entries(size)) if (!Number.isInteger(v) || v < 1 || v > 16384) throw new Error(`--${name} must be a whole number of pixels from 1 to 16384`);
    return size;
  }
  if (cameras.length === 0) return { width: 1920, height: 1080 };
  const { width: w, height: h } = cameras[0]!.camera;
  const other = cameras.find(({ camera }) => camera.width !== w || camera.height !== h);
  if (other) throw new Error(`${other.file} is ${other.camera.width}×${other.camera.height}, ${cameras[0]!.file} ${w}×${h}: give --width and --height to draw both at one size`);
  return { width: w, height: h };
}

/** A pose per camera file, named after the file, drawn at width × height. */
export function cameraPoses(cameras: readonly { file: string; camera: CameraFile }[], width: number, height: number): FramePose[] {
  return cameras.map(({ file, camera }) => {
    const pose: FramePose = {
      name: basename(file, '.json'),
      camera: file,
      view: mat4.create(),
      projection: mat4.create(),
      eye: vec3.fromValues(...camera.eye),
      fovY: (camera.fovy_deg * Math.PI) / 180,
      shDegree: camera.sh_degree,
    };
    cameraMatrices({ ...camera, width, height }, pose.view, pose.projection);
    return pose;
  });
}

/** The frame parameters of a pose for a scene of `splatCount` splats and `shDegree` bands. */
export function poseParameters(pose: FramePose, scene: { splatCount: number; shDegree: number }, size: { width: number; height: number }, keyBits: number): FrameParameters {
  return {
    view: pose.view,
    projection: pose.projection,
    eye: pose.eye,
    fovY: pose.fovY,
    width: size.width,
    height: size.height,
    splatCount: scene.splatCount,
    shDegree: Math.min(pose.shDegree ?? scene.shDegree, scene.shDegree),
    splatScale: 1,
    keyBits,
  };
}
