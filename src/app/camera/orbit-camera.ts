/**
 * An orbit camera: it circles a target point at a distance, with yaw around
 * +y and pitch above/below the horizon. DOM-free; the input handling that
 * drives it lives in src/lib/camera-input.ts.
 *
 * Conventions: the orbit happens in its own frame, where y is up; at yaw 0
 * and pitch 0 the eye sits on +z of the target looking down -z; positive
 * yaw moves the eye towards +x, positive pitch moves it up. The scene's up
 * (setUp: any direction, ±y for most scenes) is that frame's y: a rotation
 * R takes orbit coordinates to scene coordinates, the smallest that turns
 * +y onto up (a half turn about x for −y), so a view comes back exactly.
 * Matrices follow gl-matrix (column-major, right-handed view space looking
 * down -z) and WebGPU's 0..1 clip depth.
 *
 * Nothing allocates after construction: every method writes into
 * preallocated temporaries or the caller's `out`, so it can run per frame.
 */

import { mat4, vec3 } from 'gl-matrix';
import type { Bounds } from '../../scene/splat-cloud';
import { clampInsetsInto, freeShare, NO_INSETS, shiftProjection, type ViewInsets } from './view-insets';

/** Pitch stops this short of ±90°, where lookAt's up vector would degenerate. */
const PITCH_LIMIT = Math.PI / 2 - 0.01;
/** Zoom limits relative to the framed radius: close enough to inspect, far enough to lose it. */
const MIN_DISTANCE_PER_RADIUS = 0.01;
const MAX_DISTANCE_PER_RADIUS = 100;
const UP: vec3 = [0, 1, 0];

/** A view in scene coordinates: what URLs and camera files store. */
export interface CameraView {
  eye: [number, number, number];
  target: [number, number, number];
  up: [number, number, number];
  fovyDeg: number;
}

export function createCameraView(): CameraView {
  return { eye: [0, 0, 1], target: [0, 0, 0], up: [0, 1, 0], fovyDeg: 60 };
}

export interface OrbitCameraOptions {
  /** Vertical field of view in radians (default 60°). */
  fovY?: number;
  yaw?: number;
  pitch?: number;
  distance?: number;
  target?: readonly [number, number, number];
}

interface Pose {
  /** In the orbit frame of `up`. */
  target: vec3;
  distance: number;
  yaw: number;
  pitch: number;
  up: vec3;
}

export class OrbitCamera {
  /** The point orbited, in the orbit frame (scene coordinates: R · target; getView gives them). */
  readonly target: vec3;
  distance: number;
  yaw: number;
  pitch: number;
  fovY: number;
  minDistance = 1e-3;
  maxDistance = 1e6;
  /** The scene's up, a unit vector (+y for this project's scenes, −y for most captured ones). */
  readonly up = f64vec3(0, 1, 0);
  /** R, column-major: orbit coordinates → scene coordinates (R · e_y = up). */
  private readonly basis = Float64Array.of(1, 0, 0, 0, 1, 0, 0, 0, 1);
  /** Rᵀ as a 4×4 (scene → orbit), for the view matrix. */
  private readonly sceneToOrbit = mat4.create();
  /**
   * What overlays cover of the window (setInsets). The projection is
   * shifted (a lens shift: the eye and its orientation stay, the picture
   * slides in the image plane) so the target shows in the middle of the
   * free rectangle, and frame() fits the scene into it; orbiting still
   * turns about the target. The view itself (eye, target) is unchanged:
   * view links and camera files do not depend on the window's overlays.
   */
  readonly insets: ViewInsets = { ...NO_INSETS };

  private readonly home: Pose;
  // Camera state in double precision, so a view written out (URL, camera
  // file) and read back gives the same f32 matrices.
  private readonly tmpEye = f64vec3(0, 0, 0);
  private readonly tmpAxis = f64vec3(0, 0, 0);

  constructor(options: OrbitCameraOptions = {}) {
    this.fovY = options.fovY ?? (60 * Math.PI) / 180;
    this.target = f64vec3(...(options.target ?? [0, 0, 0]));
    this.distance = options.distance ?? 5;
    this.yaw = options.yaw ?? 0;
    this.pitch = clamp(options.pitch ?? 0, -PITCH_LIMIT, PITCH_LIMIT);
    this.home = { target: f64vec3(...(this.target as unknown as [number, number, number])), distance: this.distance, yaw: this.yaw, pitch: this.pitch, up: f64vec3(0, 1, 0) };
  }

  /**
   * Makes `up` (normalised; any non-zero direction) the scene's up. The
   * orbit state is not converted: call setView, frame or reset after it.
   */
  setUp(up: ArrayLike<number>): void {
    const length = Math.hypot(up[0]!, up[1]!, up[2]!);
    if (!(length > 0) || !Number.isFinite(length)) return;
    const x = up[0]! / length, y = up[1]! / length, z = up[2]! / length;
    vec3.set(this.up, x, y, z);
    const b = this.basis;
    if (y < -1 + 1e-12) {
      // −y: the half turn about x.
      b.set([1, 0, 0, 0, -1, 0, 0, 0, -1]);
    } else {
      // The smallest rotation taking e_y to u (Rodrigues with v = e_y × u = (z, 0, −x), c = y):
      // R = I + [v]× + [v]×² / (1 + c). Exact for ±x, ±z, +y.
      const k = 1 / (1 + y);
      // Columns: R e_x, R e_y, R e_z.
      b.set([1 - x * x * k, -x, -x * z * k, x, y, z, -x * z * k, -z, 1 - z * z * k]);
    }
    const m = this.sceneToOrbit;
    // Rᵀ in a column-major 4×4: element (row r, column c) = R(c, r) = b[3r + c].
    mat4.set(m, b[0]!, b[3]!, b[6]!, 0, b[1]!, b[4]!, b[7]!, 0, b[2]!, b[5]!, b[8]!, 0, 0, 0, 0, 1);
  }

  /** out = R · v (orbit → scene). */
  private toScene(out: vec3, v: ArrayLike<number>): vec3 {
    const b = this.basis;
    const [x, y, z] = [v[0]!, v[1]!, v[2]!];
    return vec3.set(out, b[0]! * x + b[3]! * y + b[6]! * z, b[1]! * x + b[4]! * y + b[7]! * z, b[2]! * x + b[5]! * y + b[8]! * z);
  }

  /** out = Rᵀ · v (scene → orbit). */
  private toOrbit(out: vec3, v: ArrayLike<number>): vec3 {
    const b = this.basis;
    const [x, y, z] = [v[0]!, v[1]!, v[2]!];
    return vec3.set(out, b[0]! * x + b[1]! * y + b[2]! * z, b[3]! * x + b[4]! * y + b[5]! * z, b[6]! * x + b[7]! * y + b[8]! * z);
  }

  /** The largest |pitch| the camera allows, just short of the poles. */
  static readonly pitchLimit = PITCH_LIMIT;

  /**
   * Near plane from the distance: 1/1000 of it keeps depth precision where
   * the target is while clipping only what is almost at the eye; 0.01 at least.
   */
  get near(): number {
    return Math.max(0.01, this.distance / 1000);
  }

  orbit(dxRadians: number, dyRadians: number): void {
    this.yaw = wrapAngle(this.yaw + dxRadians);
    this.pitch = clamp(this.pitch + dyRadians, -PITCH_LIMIT, PITCH_LIMIT);
  }

  /** distance *= factor (factor < 1 moves closer), within [minDistance, maxDistance]. */
  zoom(factor: number): void {
    if (!(factor > 0) || !Number.isFinite(factor)) return;
    this.distance = clamp(this.distance * factor, this.minDistance, this.maxDistance);
  }

  /**
   * Moves the target in the view plane so that a point at the target's depth
   * stays under a cursor that moved by (dx, dy) pixels (y down): the scene
   * follows the drag.
   */
  pan(dxPixels: number, dyPixels: number, viewportHeightPixels: number): void {
    if (!(viewportHeightPixels > 0)) return;
    const worldPerPixel = (2 * this.distance * Math.tan(this.fovY / 2)) / viewportHeightPixels;
    const cy = Math.cos(this.yaw), sy = Math.sin(this.yaw);
    const cp = Math.cos(this.pitch), sp = Math.sin(this.pitch);
    // Camera right = (cos yaw, 0, -sin yaw); camera up = (-sin p sin y, cos p, -sin p cos y).
    vec3.set(this.tmpAxis, cy, 0, -sy);
    vec3.scaleAndAdd(this.target, this.target, this.tmpAxis, -dxPixels * worldPerPixel);
    vec3.set(this.tmpAxis, -sp * sy, cp, -sp * cy);
    vec3.scaleAndAdd(this.target, this.target, this.tmpAxis, dyPixels * worldPerPixel);
  }

  /**
   * Turns the view about the eye (fly mode's look): the eye stays, the
   * target swings round it at the same distance. Positive `rightRadians`
   * turns the view to the right, positive `upRadians` raises it.
   */
  look(rightRadians: number, upRadians: number): void {
    this.orbitEye(this.tmpEye);
    // The eye sits at target + distance · o(yaw, pitch) and looks along −o;
    // looking right turns −o towards the camera's right, which is yaw
    // decreasing, and looking up is pitch decreasing.
    this.yaw = wrapAngle(this.yaw - rightRadians);
    this.pitch = clamp(this.pitch - upRadians, -PITCH_LIMIT, PITCH_LIMIT);
    const cp = Math.cos(this.pitch);
    vec3.set(this.tmpAxis, cp * Math.sin(this.yaw), Math.sin(this.pitch), cp * Math.cos(this.yaw));
    vec3.scaleAndAdd(this.target, this.tmpEye, this.tmpAxis, -this.distance);
  }

  /**
   * Makes `point` (scene coordinates) the point orbited, the eye staying
   * where it is: the view turns to centre it. Nothing changes for a point
   * at the eye.
   */
  orbitAround(point: ArrayLike<number>): void {
    const view = this.getView(createCameraView());
    if (view.eye.every((e, i) => e === point[i])) return;
    view.target = [point[0]!, point[1]!, point[2]!];
    this.setView(view);
  }

  /**
   * Moves eye and target together (fly mode): `forward` along the view
   * direction, `right` along the camera's horizontal right, `up` along the
   * scene's up; in scene units.
   */
  move(forward: number, right: number, up: number): void {
    const cy = Math.cos(this.yaw), sy = Math.sin(this.yaw);
    const cp = Math.cos(this.pitch), sp = Math.sin(this.pitch);
    // The view direction is −o(yaw, pitch); right as pan() uses it; up is the orbit frame's y.
    vec3.set(this.tmpAxis, -cp * sy * forward + cy * right, -sp * forward + up, -cp * cy * forward - sy * right);
    vec3.add(this.target, this.target, this.tmpAxis);
  }

  /**
   * Centres the bounds and backs off until their bounding sphere fits both
   * the vertical and the horizontal field of view at this aspect (width /
   * height), keeping the current yaw and pitch, and sets the zoom limits
   * from the scene's size. The home pose (reset) is left as it is: setHome()
   * makes this one the home.
   */
  frame(bounds: Bounds, aspect = 1): void {
    const { min, max } = bounds;
    this.toOrbit(this.target, [(min[0] + max[0]) / 2, (min[1] + max[1]) / 2, (min[2] + max[2]) / 2]);
    const radius = Math.max(1e-3, Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]) / 2);
    // The free rectangle's half-angles: the lens shift centres it on the view axis, the sphere's image a circle about it.
    const tanY = Math.tan(this.fovY / 2);
    const halfY = Math.atan(tanY * freeShare(this.insets, 'top', 'bottom'));
    const halfX = Math.atan(tanY * (aspect > 0 ? aspect : 1) * freeShare(this.insets, 'left', 'right'));
    // A sphere of radius r at distance d subtends a half-angle asin(r / d).
    this.distance = radius / Math.sin(Math.min(halfY, halfX));
    this.minDistance = radius * MIN_DISTANCE_PER_RADIUS;
    this.maxDistance = Math.max(this.distance, radius * MAX_DISTANCE_PER_RADIUS);
  }

  /** Takes what overlays cover of the window (clamped so part of each side stays free; in place). */
  setInsets(insets: Readonly<ViewInsets>): void {
    clampInsetsInto(this.insets, insets);
  }

  /** Takes every setting of `from`: pose, up, field of view, zoom limits, insets and home. */
  copy(from: OrbitCamera): this {
    this.setUp(from.up);
    vec3.copy(this.target, from.target);
    this.distance = from.distance;
    this.yaw = from.yaw;
    this.pitch = from.pitch;
    this.fovY = from.fovY;
    this.minDistance = from.minDistance;
    this.maxDistance = from.maxDistance;
    this.setInsets(from.insets);
    vec3.copy(this.home.target, from.home.target);
    vec3.copy(this.home.up, from.home.up);
    this.home.distance = from.home.distance;
    this.home.yaw = from.home.yaw;
    this.home.pitch = from.home.pitch;
    return this;
  }

  /**
   * Makes `framed`'s pose the one reset() returns to, and takes its zoom
   * limits, leaving this camera's own pose as it is (a scene that finished
   * loading: framed anew, without moving the view).
   */
  takeHome(framed: OrbitCamera): void {
    this.minDistance = framed.minDistance;
    this.maxDistance = framed.maxDistance;
    vec3.copy(this.home.up, framed.up);
    vec3.copy(this.home.target, framed.target);
    this.home.distance = framed.distance;
    this.home.yaw = framed.yaw;
    this.home.pitch = framed.pitch;
  }

  /** Makes the current pose the one reset() returns to (a new scene's framed view). */
  setHome(): void {
    vec3.copy(this.home.target, this.target);
    this.home.distance = this.distance;
    this.home.yaw = this.yaw;
    this.home.pitch = this.pitch;
    vec3.copy(this.home.up, this.up);
  }

  /** Back to the pose of the last setHome() (or of construction). */
  reset(): void {
    this.setUp(this.home.up);
    vec3.copy(this.target, this.home.target);
    this.distance = this.home.distance;
    this.yaw = this.home.yaw;
    this.pitch = this.home.pitch;
  }

  /** The camera position in scene coordinates. */
  eye(out: vec3): vec3 {
    return this.toScene(out, this.orbitEye(out));
  }

  viewMatrix(out: mat4): mat4 {
    mat4.lookAt(out, this.orbitEye(this.tmpEye), this.target, UP);
    // Scene → orbit frame → view. Rᵀ's entries are 0 and ±1 for ±x, ±y, ±z: exact.
    return mat4.multiply(out, out, this.sceneToOrbit);
  }

  /**
   * Makes the direction that is up on screen now the scene's up, keeping
   * the eye and the target where they are: the view is unchanged and
   * becomes level (pitch 0), and orbiting turns about the new up.
   */
  level(): void {
    const cy = Math.cos(this.yaw), sy = Math.sin(this.yaw);
    const cp = Math.cos(this.pitch), sp = Math.sin(this.pitch);
    const view = createCameraView();
    this.getView(view);
    // The camera's up in the orbit frame (as pan uses), then in the scene.
    this.toScene(this.tmpAxis, [-sp * sy, cp, -sp * cy]);
    view.up = [this.tmpAxis[0]!, this.tmpAxis[1]!, this.tmpAxis[2]!];
    this.setView(view);
  }

  /** The current view as eye, target, up and vertical field of view (degrees), in scene coordinates. */
  getView(out: CameraView): CameraView {
    this.eye(this.tmpEye);
    out.eye[0] = this.tmpEye[0];
    out.eye[1] = this.tmpEye[1];
    out.eye[2] = this.tmpEye[2];
    this.toScene(this.tmpEye, this.target);
    out.target[0] = this.tmpEye[0];
    out.target[1] = this.tmpEye[1];
    out.target[2] = this.tmpEye[2];
    out.up[0] = this.up[0];
    out.up[1] = this.up[1];
    out.up[2] = this.up[2];
    out.fovyDeg = (this.fovY * 180) / Math.PI;
    return out;
  }

  /**
   * Takes a view given as eye, target and up; up becomes the scene's up.
   * The orbit camera has no roll, so views saved from this camera come back
   * exactly and others lose only their roll.
   */
  setView(view: CameraView): void {
    this.setUp(view.up);
    this.toOrbit(this.target, view.target);
    this.toOrbit(this.tmpAxis, [view.eye[0] - view.target[0], view.eye[1] - view.target[1], view.eye[2] - view.target[2]]);
    const [dx, dy, dz] = [this.tmpAxis[0]!, this.tmpAxis[1]!, this.tmpAxis[2]!];
    this.distance = Math.max(Math.hypot(dx, dy, dz), 1e-9);
    this.pitch = clamp(Math.asin(clamp(dy / this.distance, -1, 1)), -PITCH_LIMIT, PITCH_LIMIT);
    this.yaw = Math.atan2(dx, dz);
    this.fovY = (view.fovyDeg * Math.PI) / 180;
  }

  /** The eye in the orbit frame (up = +y). */
  private orbitEye(out: vec3): vec3 {
    const cp = Math.cos(this.pitch);
    vec3.set(out, cp * Math.sin(this.yaw), Math.sin(this.pitch), cp * Math.cos(this.yaw));
    return vec3.scaleAndAdd(out, this.target, out, this.distance);
  }

  /** Infinite far plane: z/w runs from 0 at the near plane towards 1 at infinity. */
  projectionMatrix(out: mat4, aspect: number): mat4 {
    mat4.perspectiveZO(out, this.fovY, aspect, this.near, Infinity);
    return shiftProjection(out, this.insets);
  }
}

function f64vec3(x: number, y: number, z: number): vec3 {
  return Float64Array.of(x, y, z) as unknown as vec3;
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}

/** An angle in (-π, π]: yaw kept there does not lose precision after many turns. */
export function wrapAngle(a: number): number {
  return a - 2 * Math.PI * Math.ceil((a - Math.PI) / (2 * Math.PI));
}
