/**
 * The viewer's cameras: the one the controls move (links and camera files
 * keep it), the one drawn, which follows it smoothly
 * (src/app/camera/camera-damping.ts), and fly mode's motion; what framing
 * needs to know of them (the window's aspect and free part, whether the
 * user moved the camera), handed to the framing (src/app/camera/framing.ts)
 * each time it frames. DOM-free.
 */
import { OrbitCamera, type CameraView } from './orbit-camera';
import type { ViewInsets } from './view-insets';
import { FlyMotion, type FlySpeed } from './fly-motion';
import { followCamera } from './camera-damping';
import * as framing from './framing';
import type { UpAxis } from './up-axis';
import type { Bounds } from '../../scene/splat-cloud';

/** Auto-rotate's speed: a turn in 36 s, slow enough to look at the scene as it turns. */
export const AUTO_ROTATE_DEG_PER_S = 10;

/** What a preview puts aside and a cancelled load brings back. */
export interface RigSnapshot {
  camera: OrbitCamera;
  flySpeed: FlySpeed;
  moved: boolean;
}

export class CameraRig {
  /** The camera the controls move, links and camera files keep. */
  readonly camera = new OrbitCamera({ yaw: framing.HOME_YAW, pitch: framing.HOME_PITCH });
  /** The camera drawn: it follows `camera` smoothly, or at once. */
  readonly shown = new OrbitCamera({ yaw: framing.HOME_YAW, pitch: framing.HOME_PITCH });
  /** Fly mode's held keys and speed. */
  readonly fly = new FlyMotion();
  /** The user (or a link) moved the camera since the scene on screen was framed: a scene that grows leaves it alone. */
  moved = false;
  /** The next frame takes the camera at once (a new scene, a shared view): no glide from the last one. */
  private snap = true;
  /** Width over height of the window the scene is framed in. */
  private aspect = 1;

  /**
   * The window's shape, and what its overlays cover (framing leaves it
   * out). Returns whether either changed.
   */
  setWindow(width: number, height: number, insets: Readonly<ViewInsets>): boolean {
    const aspect = width > 0 && height > 0 ? width / height : 1;
    const before = { ...this.camera.insets };
    this.camera.setInsets(insets);
    const changed = aspect !== this.aspect || (Object.keys(before) as (keyof ViewInsets)[]).some((side) => before[side] !== this.camera.insets[side]);
    this.aspect = aspect;
    return changed;
  }

  /**
   * The window or its free part changed: the home, and the camera unless
   * the user moved it, fitted to it anew (framing.followWindow). The drawn
   * camera glides to either (camera damping): no jump.
   */
  refit(bounds: Bounds, up: UpAxis): void {
    framing.followWindow(this.camera, bounds, up, this.aspect, this.moved);
  }

  /** Frames `bounds` from the home angle with `up` up; that pose becomes the home pose (R). */
  frameHome(bounds: Bounds, up: UpAxis): void {
    framing.frameHome(this.camera, bounds, up, this.aspect);
  }

  /** Fits `bounds` into the window from where the camera looks now (F); the home pose stays. Without bounds, home. */
  frameFromHere(bounds: Bounds | null | undefined): void {
    framing.frameFromHere(this.camera, bounds, this.aspect);
  }

  /** A scene that grew: framed anew unless the user moved the camera, the home following either way (framing.followGrowth). */
  reframe(bounds: Bounds, up: UpAxis): void {
    framing.followGrowth(this.camera, bounds, up, this.aspect, this.moved);
  }

  /**
   * A new scene or world on screen: framed from the home angle with `up`
   * up, or shown from the view it arrived with (framing.frameArrival), at
   * once, without gliding from the last scene's view. Returns the up it is
   * shown with.
   */
  arrive(bounds: Bounds, up: Readonly<framing.SceneUp>, view?: CameraView | null): framing.ShownUp {
    const arrived = framing.frameArrival(this.camera, bounds, up, this.aspect, view);
    this.moved = arrived.moved;
    this.jump();
    return arrived.up;
  }

  /** The next frame shows the camera as it is, without gliding there. */
  jump(): void {
    this.snap = true;
  }

  /**
   * Advances time by `seconds` (at most 0.1 s a step, so a stalled frame
   * does not jump): auto-rotate and fly mode move the camera, and the drawn
   * camera follows it (smoothly unless `smooth` is off or it must jump).
   * Returns whether the controls' camera moved.
   */
  advance(seconds: number, options: { autoRotate: boolean; fly: boolean; smooth: boolean }): boolean {
    const step = Math.min(0.1, seconds);
    let moved = false;
    if (options.autoRotate && step > 0) {
      this.camera.orbit((AUTO_ROTATE_DEG_PER_S * Math.PI / 180) * step, 0);
      moved = true;
    }
    if (options.fly && this.fly.step(this.camera, step)) {
      // Flying is moving the camera by hand: a scene that grows leaves the view alone.
      this.moved = true;
      moved = true;
    }
    // A slow frame catches up more, never less.
    followCamera(this.shown, this.camera, options.smooth && !this.snap ? seconds : Infinity);
    this.snap = false;
    return moved;
  }

  save(): RigSnapshot {
    return { camera: new OrbitCamera().copy(this.camera), flySpeed: this.fly.saveSpeed(), moved: this.moved };
  }

  restore(saved: RigSnapshot): void {
    const insets = { ...this.camera.insets };
    this.camera.copy(saved.camera);
    // The overlays are where they are now, not where they were.
    this.camera.setInsets(insets);
    this.fly.restoreSpeed(saved.flySpeed);
    this.moved = saved.moved;
    this.snap = true;
  }
}
