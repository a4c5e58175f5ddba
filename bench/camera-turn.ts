/**
 * A slow turn of a camera file in place: the eye stays, the target turns
 * about the eye around the camera's up vector (a yaw). The popping measure
 * (bench/popping.ts) draws frames along it: 0.05° a frame, a turn a
 * user makes by dragging a few pixels, is where an order's jumps show
 * alone, the picture itself moving a fraction of a pixel a frame.
 */
import { mat4, vec3 } from 'gl-matrix';
import type { CameraFile } from '../src/app/camera/camera-file';

/** The popping measure's turn: degrees of yaw a frame, and frames. */
export const TURN_DEGREES_PER_FRAME = 0.05;
export const TURN_FRAMES = 60;

/** `camera` turned by `degrees` of yaw about its eye (positive: to the left, counter-clockwise about up). */
export function yawCamera(camera: CameraFile, degrees: number): CameraFile {
  const eye = vec3.fromValues(...camera.eye);
  const look = vec3.sub(vec3.create(), vec3.fromValues(...camera.target), eye);
  const turn = mat4.fromRotation(mat4.create(), (degrees * Math.PI) / 180, vec3.fromValues(...camera.up));
  if (!turn) throw new Error(`yawCamera: the camera's up vector ${JSON.stringify(camera.up)} has no direction`);
  vec3.transformMat4(look, look, turn);
  const target = vec3.add(vec3.create(), eye, look);
  return { ...camera, target: [target[0]!, target[1]!, target[2]!] };
}

/** The cameras of a turn: `frames` of them, `degreesPerFrame` apart, the first `camera` itself. */
export function turnCameras(camera: CameraFile, frames = TURN_FRAMES, degreesPerFrame = TURN_DEGREES_PER_FRAME): CameraFile[] {
  return Array.from({ length: frames }, (_, i) => (i === 0 ? camera : yawCamera(camera, i * degreesPerFrame)));
}

/**
 * The centre `width` × `height` pixels of `camera`'s picture, at its own
 * pixel scale: the crop's focal length in pixels is the full picture's, so
 * a splat covers the same pixels in both. `name` names the camera in the
 * error for a lens-shifted camera, whose centre is not its picture's.
 */
export function cropAtPixelScale(camera: CameraFile, width: number, height: number, name: string): CameraFile {
  if (camera.lens_shift && (camera.lens_shift[0] !== 0 || camera.lens_shift[1] !== 0)) throw new Error(`${name}: a lens-shifted camera is not cropped about its centre`);
  const fovy = (2 * Math.atan((Math.tan((camera.fovy_deg * Math.PI) / 360) * height) / camera.height) * 180) / Math.PI;
  return { ...camera, width, height, fovy_deg: fovy };
}
