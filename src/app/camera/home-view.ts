/**
 * The view a scene opens with, in the viewer and in `npm run render`
 * without a camera file: seen from a little to the right and above (yaw
 * HOME_YAW, pitch HOME_PITCH), the bulk of its visible mass
 * (visibleMassBounds) fitted to the window, with the scene's up axis up.
 * DOM-free.
 */
import { guessUpAxis } from './up-guess';
import { UP_AXES, type UpAxis } from './up-axis';
import { OrbitCamera } from './orbit-camera';
import type { CameraFile } from './camera-file';
import { cameraFileOf } from './camera-file';
import type { Bounds, SplatCloud } from '../../scene/splat-cloud';
import { visibleMassBounds } from '../../scene/visible-mass';

export const HOME_YAW = 0.6;
export const HOME_PITCH = 0.3;

/** Frames `camera` on the bounds from the home angle with `up` up; that pose becomes its home. */
export function frameHome(camera: OrbitCamera, bounds: Bounds, up: UpAxis, aspect: number): void {
  camera.setUp(UP_AXES[up]);
  camera.yaw = HOME_YAW;
  camera.pitch = HOME_PITCH;
  camera.frame(bounds, aspect);
  camera.setHome();
}

/** The camera file of a scene's home view at width × height (as the viewer opens it with the panel closed). */
export function homeCameraFile(
  cloud: SplatCloud,
  look: { width: number; height: number; up: UpAxis; background: [number, number, number]; shDegree: number },
): CameraFile {
  const camera = new OrbitCamera();
  frameHome(camera, visibleMassBounds(cloud), look.up, look.width / look.height);
  return cameraFileOf(camera.getView({ eye: [0, 0, 0], target: [0, 0, 0], up: [0, 1, 0], fovyDeg: 60 }), look);
}

/**
 * Where the up axis comes from when neither the file nor its splats say:
 * the page offers to turn such a scene over (it may be upside down).
 */
export const UP_BY_CONVENTION = 'convention (−y)';

/**
 * Which way is up in a scene that opens, and what the panel says of it. No
 * format the viewer reads records an up axis, so it is the default scene's
 * own (+y), a guess from the splats where they show a clear ground
 * (src/app/camera/up-guess.ts), or else the captured scenes' convention, −y.
 */
export function sceneUp(cloud: SplatCloud, isDefaultScene: boolean): { axis: UpAxis; source: string; why: string } {
  if (isDefaultScene) return { axis: '+y', source: 'the default scene', why: 'The default scene is made with +y up.' };
  const guess = guessUpAxis(cloud.positions, cloud.count);
  if (guess) return { axis: guess.axis, source: 'guessed (a ground)', why: `${guess.reason} Change it in "up axis" (or flip it with I) if it is wrong.` };
  return {
    axis: '-y',
    source: UP_BY_CONVENTION,
    why: 'The file does not say which way is up and the splats show no clear ground: −y, the convention of captured scenes (COLMAP, INRIA trainers).',
  };
}
