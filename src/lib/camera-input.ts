/**
 * Mouse, touch and keyboard control of an OrbitCamera on a canvas, through
 * pointer events so that mouse, pen and touch share one code path. Two
 * modes (`mode`):
 *
 * - orbit: one pointer's left drag orbits; right, middle or Shift + drag
 *   pans. Two pointers (touch): pinch zooms and the midpoint pans. Wheel
 *   zooms; arrows orbit.
 * - fly: W A S D move, Q E go down and up (held; the page steps the motion
 *   each frame), Shift flies faster; a drag looks around from where the
 *   eye is; the wheel sets the speed; arrows look. Pinch and two-finger
 *   drags work as in orbit.
 *
 * In both, a double-click (a press held still, on touch) picks the point
 * under the cursor (`onPick`), which the page makes the point orbited.
 * Keys act anywhere on the page (a `keys` target, the window in the viewer)
 * from the first moment, except while typing in a field or choosing in a
 * list (isTypingKey), so the panel's controls never move the camera.
 */

import { FLY_KEYS, FLY_SPEED_STEP, FlyMotion, type CameraMode } from '../app/camera/fly-motion';
import type { OrbitCamera } from '../app/camera/orbit-camera';
import { frameFromHere, goHome } from '../app/camera/framing';
import type { Bounds } from '../scene/splat-cloud';
import { isTypingKey, PAGE_KEY_LISTENER } from './keys';
import { FLIP_UP_KEY } from './controls-help';

/** A drag across the full canvas height turns the camera by 180°. */
const ORBIT_PER_HEIGHT = Math.PI;
/** A standard wheel notch (deltaY 100) zooms by e^0.15 ≈ 16%. */
const WHEEL_NOTCH_PX = 100;
const WHEEL_ZOOM_PER_PIXEL = 0.15 / WHEEL_NOTCH_PX;
const KEY_ORBIT = (5 * Math.PI) / 180;
const KEY_ZOOM = 1.15;
/**
 * A touch counts as held for a pick after this long without moving more
 * than HOLD_SLOP_PX: the long-press time phones use for a context action.
 */
const HOLD_MS = 500;
const HOLD_SLOP_PX = 8;

export interface CameraInputOptions {
  /** Called after any change of the camera, e.g. to request a frame. */
  onChange?: () => void;
  /** The scene bounds for 'F'; without it 'F' resets like 'R'. */
  bounds?: () => Bounds | undefined;
  /** Where key presses are heard (the window, for a viewer page); the canvas by default. */
  keys?: EventTarget;
  /**
   * A double-click or a held touch at (x, y), CSS pixels from the canvas's
   * top-left corner; the page picks the point there.
   */
  onPick?: (x: number, y: number) => void;
  /** Fly mode's motion, which the keys press and the wheel speeds up (the Viewer's, which steps it every frame). */
  fly?: FlyMotion;
  /** FLIP_UP_KEY: the page turns the scene's up axis over (and frames it anew). */
  onFlipUp?: () => void;
}

type Drag = 'none' | 'orbit' | 'pan' | 'pinch';

export class CameraInput {
  onChange: (() => void) | undefined;
  mode: CameraMode = 'orbit';
  /** Fly mode's held keys and speed; whoever owns it steps it every frame. */
  readonly fly: FlyMotion;
  private readonly bounds: (() => Bounds | undefined) | undefined;
  private readonly onPick: ((x: number, y: number) => void) | undefined;
  private readonly onFlipUp: (() => void) | undefined;
  private hold: { timer: ReturnType<typeof setTimeout>; x: number; y: number } | null = null;
  private readonly abort = new AbortController();
  private readonly pointers = new Map<number, { x: number; y: number }>();
  private drag: Drag = 'none';
  private lastX = 0;
  private lastY = 0;
  private lastSpan = 0;
  private readonly previousTouchAction: string;

  constructor(
    private readonly canvas: HTMLElement,
    private readonly camera: OrbitCamera,
    options: CameraInputOptions = {},
  ) {
    this.onChange = options.onChange;
    this.onFlipUp = options.onFlipUp;
    this.fly = options.fly ?? new FlyMotion();
    this.bounds = options.bounds;
    this.onPick = options.onPick;
    // Without this the browser scrolls or zooms the page on touch drags and pinches.
    this.previousTouchAction = canvas.style.touchAction;
    canvas.style.touchAction = 'none';
    if (canvas.tabIndex < 0) canvas.tabIndex = 0;
    const on = <K extends keyof HTMLElementEventMap>(
      type: K,
      listener: (event: HTMLElementEventMap[K]) => void,
      passive = true,
    ): void => canvas.addEventListener(type, listener, { signal: this.abort.signal, passive });
    on('pointerdown', (e) => this.pointerDown(e), false);
    on('pointermove', (e) => this.pointerMove(e));
    on('pointerup', (e) => this.pointerUp(e));
    on('pointercancel', (e) => this.pointerUp(e));
    on('wheel', (e) => this.wheel(e), false);
    on('dblclick', (e) => this.pick(e.clientX, e.clientY));
    on('contextmenu', (e) => e.preventDefault(), false);
    const keys = options.keys ?? canvas;
    const listen = { ...PAGE_KEY_LISTENER, signal: this.abort.signal };
    keys.addEventListener('keydown', (e) => this.keyDown(e as KeyboardEvent), listen);
    keys.addEventListener('keyup', (e) => this.keyUp(e as KeyboardEvent), listen);
    // Key-ups that happen while the page has no focus never arrive.
    window.addEventListener('blur', () => this.fly.releaseAll(), { signal: this.abort.signal });
  }

  dispose(): void {
    this.abort.abort();
    this.pointers.clear();
    this.cancelHold();
    this.canvas.style.touchAction = this.previousTouchAction;
  }

  private pick(clientX: number, clientY: number): void {
    const box = this.canvas.getBoundingClientRect();
    this.onPick?.(clientX - box.left, clientY - box.top);
  }

  private cancelHold(): void {
    if (this.hold) clearTimeout(this.hold.timer);
    this.hold = null;
  }

  private changed(): void {
    this.onChange?.();
  }

  private height(): number {
    return Math.max(1, this.canvas.clientHeight);
  }

  private pointerDown(e: PointerEvent): void {
    this.canvas.focus({ preventScroll: true });
    this.canvas.setPointerCapture(e.pointerId);
    this.pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
    e.preventDefault();
    if (this.pointers.size === 1) {
      this.drag = e.button === 1 || e.button === 2 || e.shiftKey ? 'pan' : 'orbit';
    }
    this.cancelHold();
    if (e.pointerType === 'touch' && this.pointers.size === 1) {
      const { clientX: x, clientY: y } = e;
      this.hold = { x, y, timer: setTimeout(() => {
        this.hold = null;
        this.pick(x, y);
      }, HOLD_MS) };
    }
    this.restart();
  }

  private pointerMove(e: PointerEvent): void {
    const p = this.pointers.get(e.pointerId);
    if (!p || this.drag === 'none') return;
    p.x = e.clientX;
    p.y = e.clientY;
    if (this.hold && Math.hypot(p.x - this.hold.x, p.y - this.hold.y) > HOLD_SLOP_PX) this.cancelHold();
    const [x, y, span] = this.centroid();
    const dx = x - this.lastX, dy = y - this.lastY;
    const h = this.height();
    if (this.drag === 'orbit' && this.mode === 'fly') {
      // Mouse look: the view turns the way the hand moves.
      this.camera.look((dx * ORBIT_PER_HEIGHT) / h, (-dy * ORBIT_PER_HEIGHT) / h);
    } else if (this.drag === 'orbit') {
      // Dragging right swings the eye left so the object turns with the hand.
      this.camera.orbit((-dx * ORBIT_PER_HEIGHT) / h, (dy * ORBIT_PER_HEIGHT) / h);
    } else {
      this.camera.pan(dx, dy, h);
      if (this.drag === 'pinch' && span > 0 && this.lastSpan > 0) this.camera.zoom(this.lastSpan / span);
    }
    this.lastX = x;
    this.lastY = y;
    this.lastSpan = span;
    this.changed();
  }

  private pointerUp(e: PointerEvent): void {
    if (!this.pointers.delete(e.pointerId)) return;
    this.cancelHold();
    if (this.canvas.hasPointerCapture(e.pointerId)) this.canvas.releasePointerCapture(e.pointerId);
    // One finger left after a pinch keeps going as an orbit, from where it is now.
    if (this.pointers.size === 0) this.drag = 'none';
    else if (this.pointers.size === 1) this.drag = 'orbit';
    this.restart();
  }

  /** Re-anchors the drag so that adding or lifting a pointer causes no jump. */
  private restart(): void {
    if (this.pointers.size >= 2) this.drag = 'pinch';
    [this.lastX, this.lastY, this.lastSpan] = this.centroid();
  }

  /** Mean position of the first two pointers, and their distance apart (0 for one). */
  private centroid(): [number, number, number] {
    const it = this.pointers.values();
    const a = it.next().value;
    if (!a) return [0, 0, 0];
    const b = it.next().value;
    if (!b) return [a.x, a.y, 0];
    return [(a.x + b.x) / 2, (a.y + b.y) / 2, Math.hypot(a.x - b.x, a.y - b.y)];
  }

  private wheel(e: WheelEvent): void {
    e.preventDefault();
    // Normalise line and page deltas (Firefox) to pixels.
    const scale = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? this.height() : 1;
    if (this.mode === 'fly') {
      // Wheel up (deltaY < 0) flies faster: FLY_SPEED_STEP a notch (deltaY 100).
      this.fly.scaleSpeed(FLY_SPEED_STEP ** ((-e.deltaY * scale) / WHEEL_NOTCH_PX));
      return;
    }
    this.camera.zoom(Math.exp(e.deltaY * scale * WHEEL_ZOOM_PER_PIXEL));
    this.changed();
  }

  private keyUp(e: KeyboardEvent): void {
    const direction = FLY_KEYS[e.code];
    if (direction) this.fly.release(direction);
    if (e.key === 'Shift') this.fly.boost = false;
  }

  private keyDown(e: KeyboardEvent): void {
    if (e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented || isTypingKey(e)) return;
    this.fly.boost = e.shiftKey;
    const direction = FLY_KEYS[e.code];
    if (direction && this.mode === 'fly') {
      this.fly.press(direction);
      e.preventDefault();
      return;
    }
    const step = e.shiftKey ? 3 * KEY_ORBIT : KEY_ORBIT;
    // Orbit: arrows move the eye (left swings it to its left around the target, up raises it); fly: they turn the view.
    const turn = this.mode === 'fly' ? (right: number, up: number) => this.camera.look(right, up) : (right: number, up: number) => this.camera.orbit(right, up);
    switch (e.key) {
      case 'ArrowLeft': turn(-step, 0); break;
      case 'ArrowRight': turn(step, 0); break;
      case 'ArrowUp': turn(0, step); break;
      case 'ArrowDown': turn(0, -step); break;
      case '+': case '=': this.camera.zoom(1 / KEY_ZOOM); break;
      case '-': case '_': this.camera.zoom(KEY_ZOOM); break;
      case 'r': case 'R': goHome(this.camera); break;
      // Frames the scene from where the camera looks now; the home view (R) stays.
      case 'f': case 'F': frameFromHere(this.camera, this.bounds?.(), this.canvas.clientWidth / this.height()); break;
      case FLIP_UP_KEY.toLowerCase(): case FLIP_UP_KEY:
        // The page changes the up axis and frames the scene; no camera change of ours to report.
        this.onFlipUp?.();
        e.preventDefault();
        return;
      default: return;
    }
    e.preventDefault();
    this.changed();
  }
}
