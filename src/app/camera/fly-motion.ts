/**
 * Fly mode's movement: which movement keys are held, how fast the camera
 * flies, and the step that moves it over the time a frame took. DOM-free;
 * src/lib/camera-input.ts feeds it key presses and the page steps it once an
 * animation frame.
 *
 * Movement keys go by their place on the keyboard (KeyboardEvent.code), so
 * W A S D Q E sit where the hand expects them on any layout (Z Q S D on a
 * French keyboard).
 */
import type { OrbitCamera } from './orbit-camera';
import type { Bounds } from '../../scene/splat-cloud';

/** How the camera moves: around a point (orbit) or through the scene (fly). */
export type CameraMode = 'orbit' | 'fly';
export const CAMERA_MODES: readonly CameraMode[] = ['orbit', 'fly'];

export type FlyDirection = 'forward' | 'back' | 'left' | 'right' | 'up' | 'down';

/** KeyboardEvent.code → direction. */
export const FLY_KEYS: Readonly<Record<string, FlyDirection>> = {
  KeyW: 'forward',
  KeyS: 'back',
  KeyA: 'left',
  KeyD: 'right',
  KeyE: 'up',
  KeyQ: 'down',
};

/**
 * The default speed crosses the bulk of a scene (its framing bounds'
 * diagonal) in this many seconds: the 4-unit biker at 0.5 units/s, a
 * 1,500-unit street capture at about 190.
 */
const SECONDS_ACROSS_SCENE = 8;
/** Shift held: this many times faster. */
export const FLY_BOOST = 4;
/** Wheel and +/− change the speed by this factor a step, within [1/1000, 1000]× the scene's default. */
export const FLY_SPEED_STEP = 1.25;
const SPEED_RANGE = 1000;

/** Fly mode's speed and the scene default its range is measured from. */
export interface FlySpeed {
  speed: number;
  sceneSpeed: number;
}

export class FlyMotion {
  /** Scene units per second, without boost. */
  speed = 1;
  /** Shift held: FLY_BOOST times faster. */
  boost = false;
  private sceneSpeed = 1;
  private readonly held = new Set<FlyDirection>();

  /** The default speed for a scene whose bulk spans `bounds`. */
  setScene(bounds: Bounds): void {
    const diagonal = Math.hypot(bounds.max[0] - bounds.min[0], bounds.max[1] - bounds.min[1], bounds.max[2] - bounds.min[2]);
    this.sceneSpeed = Math.max(1e-6, diagonal / SECONDS_ACROSS_SCENE);
    this.speed = this.sceneSpeed;
  }

  /** The speed and the scene default it is bounded by, to come back to (restoreSpeed). */
  saveSpeed(): FlySpeed {
    return { speed: this.speed, sceneSpeed: this.sceneSpeed };
  }

  /** Puts back what saveSpeed() returned: a preview's scene gave way to the one before it. */
  restoreSpeed(saved: FlySpeed): void {
    this.speed = saved.speed;
    this.sceneSpeed = saved.sceneSpeed;
  }

  /** speed ×= factor, within [1/1000, 1000]× the scene's default. */
  scaleSpeed(factor: number): void {
    if (!(factor > 0) || !Number.isFinite(factor)) return;
    this.speed = Math.min(this.sceneSpeed * SPEED_RANGE, Math.max(this.sceneSpeed / SPEED_RANGE, this.speed * factor));
  }

  press(direction: FlyDirection): void {
    this.held.add(direction);
  }

  release(direction: FlyDirection): void {
    this.held.delete(direction);
  }

  /** Lets go of every key (the window lost focus: its key-ups will not come). */
  releaseAll(): void {
    this.held.clear();
    this.boost = false;
  }

  /**
   * Moves `camera` for `seconds` at the current speed along the held
   * directions (opposite keys cancel; two at right angles move at the same
   * speed as one, not √2 faster). Returns whether it moved.
   */
  step(camera: OrbitCamera, seconds: number): boolean {
    const axis = (plus: FlyDirection, minus: FlyDirection) => (this.held.has(plus) ? 1 : 0) - (this.held.has(minus) ? 1 : 0);
    const forward = axis('forward', 'back');
    const right = axis('right', 'left');
    const up = axis('up', 'down');
    const length = Math.hypot(forward, right, up);
    if (length === 0 || !(seconds > 0)) return false;
    const distance = (this.speed * (this.boost ? FLY_BOOST : 1) * seconds) / length;
    camera.move(forward * distance, right * distance, up * distance);
    return true;
  }
}
