/**
 * Framing: how a scene's bounds become the camera's pose and zoom, written
 * once for every place that frames. A new scene opens from a little to the
 * right and above (yaw HOME_YAW, pitch HOME_PITCH), the bulk of its visible
 * mass fitted into the part of the window the overlays leave free, with
 * the scene's up axis up; that pose is the home R goes back to. F fits the
 * scene from where the camera looks now. A link's view wins over framing.
 * A world is framed on its tree's box as a scene on its bounds. The render
 * command's picture without a camera file is the home view with no
 * overlays.
 *
 * DOM-free, no GPU, no state of its own: each function writes the camera
 * it is handed, or returns a view or a camera file. What depends on the
 * viewer's state (whether the user moved the camera, the window's aspect)
 * comes in as arguments, so CameraRig keeps the state and this module the
 * geometry.
 */
import { guessUpAxis } from './up-guess';
import { guessBaseUp } from './object-base';
import { UP_AXES, upAxisOf, type UpAxis } from './up-axis';
import { createCameraView, OrbitCamera, type CameraView } from './orbit-camera';
import { cameraFileOf, type CameraFile } from './camera-file';
import { NO_INSETS, type ViewInsets } from './view-insets';
import type { Bounds, SplatCloud } from '../../scene/splat-cloud';
import { visibleMassBounds } from '../../scene/visible-mass';

export const HOME_YAW = 0.6;
export const HOME_PITCH = 0.3;

/** Which way is up in a scene, where that came from, and a sentence on why (what the panel says of it). */
export interface SceneUp {
  axis: UpAxis;
  source: string;
  why: string | undefined;
  /** Nothing the file or its splats show settles it: the scene may be upside down (the page offers to turn it over). Absent: settled. */
  unsure?: boolean;
}

/** The up a scene is shown with: a link's view may have an up that is no axis (a levelled view). */
export interface ShownUp {
  axis: UpAxis | 'levelled';
  source: string;
  why: string | undefined;
  /** As SceneUp's: the scene may be upside down. */
  unsure: boolean;
}

/**
 * What a scene is framed on: where its visible mass is, not its floaters
 * and faint strays (src/scene/visible-mass.ts).
 */
export function sceneBounds(cloud: SplatCloud): Bounds {
  return visibleMassBounds(cloud);
}

/** What a world is framed on: its tree's box (a copy, so the index stays as read). */
export function boxBounds(box: { readonly min: readonly number[]; readonly max: readonly number[] }): Bounds {
  return { min: [box.min[0]!, box.min[1]!, box.min[2]!], max: [box.max[0]!, box.max[1]!, box.max[2]!] };
}

/**
 * Where the up axis comes from when neither the file nor its splats say:
 * the page offers to turn such a scene over (it may be upside down).
 */
export const UP_BY_CONVENTION = 'convention (−y)';

/** −y, the convention of captured scenes (COLMAP, INRIA trainers), which the other formats follow. */
const CONVENTION = 'the convention of captured scenes (COLMAP, INRIA trainers)';
const CHANGE_IT = 'Change it in "up axis" (or flip it with I) if it is wrong.';

/**
 * Which way is up in a scene that opens, and what the panel says of it,
 * settled or not. No format the viewer reads records an up axis, so it is,
 * in order:
 * - the one the opener knows (the default scene's +y);
 * - a ground the splats show (app/camera/up-guess.ts);
 * - −y for a file that records its axes (an SPZ's frame record);
 * - for an SPZ whose frame is two-way (the format's RUB, or PLY's axes
 *   unturned, as most converters write them), the side its splats stand on
 *   (app/camera/object-base.ts), else −y, unsure;
 * - for the other formats −y, the convention, settled when the splats
 *   stand on their +y end and unsure otherwise. A footing that disagrees
 *   does not overrule the convention (a cup is wider at its rim): it
 *   leaves it unsure.
 */
export function sceneUp(cloud: SplatCloud, known?: SceneUp): SceneUp {
  if (known) return known;
  const ground = guessUpAxis(cloud.positions, cloud.count);
  if (ground) return { axis: ground.axis, source: 'guessed (a ground)', why: `${ground.reason} ${CHANGE_IT}` };
  if (cloud.axes === 'recorded') return { axis: '-y', source: 'the file (its axes)', why: 'The file records the axes its splats are stored in, so −y is up.' };
  const base = guessBaseUp(cloud.positions, cloud.count);
  if (cloud.axes === 'two-way') {
    const twoWay = 'The SPZ file does not record its axes, and SPZ files are written in two frames, a half turn apart (the format\'s RUB, and PLY\'s axes as most converters keep them).';
    if (base) return { axis: base.axis, source: 'guessed (its footing)', why: `${twoWay} ${base.reason} ${CHANGE_IT}` };
    return { axis: '-y', source: UP_BY_CONVENTION, why: `${twoWay} Its splats show neither a ground nor a footing: −y, as the format's RUB reads.`, unsure: true };
  }
  if (base?.axis === '-y') return { axis: '-y', source: 'convention (−y), its footing agrees', why: `The file does not say which way is up: −y, ${CONVENTION}. ${base.reason}` };
  return {
    axis: '-y',
    source: UP_BY_CONVENTION,
    why: base
      ? `The file does not say which way is up: −y, ${CONVENTION}; but ${base.reason.charAt(0).toLowerCase()}${base.reason.slice(1, -1)}, which would put up at ${base.axis}.`
      : `The file does not say which way is up and the splats show no clear ground or footing: −y, ${CONVENTION}.`,
    unsure: true,
  };
}

/** A scene's up as it is shown (an absent `unsure` is settled). */
export function shownUp(up: Readonly<SceneUp>): ShownUp {
  return { axis: up.axis, source: up.source, why: up.why, unsure: up.unsure === true };
}

/** A world's up: its chunks are captures, whose convention is −y (no guess: the splats arrive a chunk at a time). */
export const WORLD_UP: Readonly<SceneUp> = { axis: '-y', source: 'a world (captured: y down)', why: undefined };

/** The axis a scene is framed with: the chosen one, or for a levelled view the axis the camera's up is, else −y. */
export function framingAxis(chosen: UpAxis | 'levelled', cameraUp: ArrayLike<number>): UpAxis {
  return chosen === 'levelled' ? upAxisOf(cameraUp) ?? '-y' : chosen;
}

/**
 * What the overlays cover of a width × height window whose free part is
 * `free` (CSS pixels from its top left corner), as shares of its sides;
 * none without one.
 */
export function insetsOfFreeRect(width: number, height: number, free?: { x: number; y: number; width: number; height: number }): ViewInsets {
  if (!free) return { ...NO_INSETS };
  return { left: free.x / width, top: free.y / height, right: 1 - (free.x + free.width) / width, bottom: 1 - (free.y + free.height) / height };
}

/**
 * Frames `bounds` from the home angle with `up` up, in the free part of a
 * window of this aspect (width / height; the camera's insets say what is
 * covered); that pose becomes the camera's home (R).
 */
export function frameHome(camera: OrbitCamera, bounds: Bounds, up: UpAxis, aspect: number): void {
  camera.setUp(UP_AXES[up]);
  camera.yaw = HOME_YAW;
  camera.pitch = HOME_PITCH;
  camera.frame(bounds, aspect);
  camera.setHome();
}

/**
 * F: fits `bounds` from where the camera looks now (its yaw, pitch and up
 * kept); the home stays. Without a scene there is nothing to fit, and F
 * goes home as R does.
 */
export function frameFromHere(camera: OrbitCamera, bounds: Bounds | null | undefined, aspect: number): void {
  if (bounds) camera.frame(bounds, aspect);
  else goHome(camera);
}

/** R: back to the home pose, which frameHome wrote and the refits below keep fitted to the window and the scene. */
export function goHome(camera: OrbitCamera): void {
  camera.reset();
}

/** The view R goes to now, the camera left as it is. */
export function homeView(camera: OrbitCamera): CameraView {
  const home = new OrbitCamera().copy(camera);
  home.reset();
  return home.getView(createCameraView());
}

/**
 * Fits the home pose (and the zoom limits) to `bounds` and the window
 * anew, leaving the camera's own pose where it is.
 */
export function refitHome(camera: OrbitCamera, bounds: Bounds, up: UpAxis, aspect: number): void {
  const framed = new OrbitCamera().copy(camera);
  frameHome(framed, bounds, up, aspect);
  camera.takeHome(framed);
}

/**
 * The window or its free part changed (an overlay opened, closed or moved;
 * a resize): the home is fitted to it anew, and so is a camera the user
 * has not `moved`, from where it looks now (an auto-rotate's turn is
 * kept). A camera the user moved keeps its pose: only its lens shift
 * follows the free part (its insets, set by the caller).
 */
export function followWindow(camera: OrbitCamera, bounds: Bounds, up: UpAxis, aspect: number, moved: boolean): void {
  refitHome(camera, bounds, up, aspect);
  if (!moved) camera.frame(bounds, aspect);
}

/**
 * A scene that grew (more of it arrived): framed anew from the home angle
 * while the user has not `moved` the camera, so the view glides out as the
 * scene fills in; once they have, the view stays and only the home and the
 * zoom limits follow.
 */
export function followGrowth(camera: OrbitCamera, bounds: Bounds, up: UpAxis, aspect: number, moved: boolean): void {
  if (moved) refitHome(camera, bounds, up, aspect);
  else frameHome(camera, bounds, up, aspect);
}

/**
 * The first view of a new scene or world: framed from the home angle with
 * `up` up, or, where it arrived with a view (a shared link's), that exact
 * view (the framing still sets the home and the zoom limits), which then
 * counts as moved so the scene growing leaves it alone. Returns the up the
 * scene is shown with and whether the camera counts as moved.
 */
export function frameArrival(
  camera: OrbitCamera,
  bounds: Bounds,
  up: Readonly<SceneUp>,
  aspect: number,
  view?: CameraView | null,
): { up: ShownUp; moved: boolean } {
  frameHome(camera, bounds, up.axis, aspect);
  if (!view) return { up: shownUp(up), moved: false };
  camera.setView(view);
  return { up: { axis: upAxisOf(camera.up) ?? 'levelled', source: 'the link', why: undefined, unsure: false }, moved: true };
}

/**
 * The camera file of the home view at width × height with no overlays (as
 * the viewer opens the scene with the panel closed): what the render
 * command draws without a camera file. `from` gives the lens (field of
 * view); without bounds (no scene) its pose is kept.
 */
export function homeCameraFile(from: OrbitCamera, bounds: Bounds | null | undefined, up: UpAxis, look: Parameters<typeof cameraFileOf>[1]): CameraFile {
  const camera = new OrbitCamera().copy(from);
  camera.setInsets(NO_INSETS);
  if (bounds) frameHome(camera, bounds, up, look.width / look.height);
  return cameraFileOf(camera.getView(createCameraView()), look);
}
