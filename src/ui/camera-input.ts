/**
 * Mouse, touch and keyboard control of an OrbitCamera on a canvas, through
 * pointer events so that mouse, pen and touch share one code path.
 *
 * One pointer: left drag orbits; right, middle or Shift + drag pans. Two
 * pointers (touch): pinch zooms and the midpoint pans. Wheel zooms. Keys
 * act anywhere on the page (a `keys` target, the window in the viewer) from
 * the first moment, except while typing in a field or choosing in a list
 * (isTypingKey), so the panel's controls never move the camera.
 */

import type { OrbitCamera } from '../app/orbit-camera';
import type { Bounds } from '../scene/splat-cloud';
import { isTypingKey } from './overlays';

/** The controls, for a keyboard-help overlay. */
export const CAMERA_HELP: ReadonlyArray<[string, string]> = [
  ['Left drag', 'Orbit'],
  ['Right / middle / Shift + drag', 'Pan'],
  ['Wheel, pinch', 'Zoom'],
  ['Two-finger drag', 'Pan'],
  ['Arrow keys', 'Orbit step by step (Shift: larger steps)'],
  ['+ / −', 'Zoom in / out'],
  ['R, double-click', 'Reset the view'],
  ['F', 'Frame the whole scene'],
];

/** A drag across the full canvas height turns the camera by 180°. */
const ORBIT_PER_HEIGHT = Math.PI;
/** A standard wheel notch (deltaY 100) zooms by e^0.15 ≈ 16%. */
const WHEEL_ZOOM_PER_PIXEL = 0.0015;
const KEY_ORBIT = (5 * Math.PI) / 180;
const KEY_ZOOM = 1.15;

export interface CameraInputOptions {
  /** Called after any change of the camera, e.g. to request a frame. */
  onChange?: () => void;
  /** The scene bounds for 'F'; without it 'F' resets like 'R'. */
  bounds?: () => Bounds | undefined;
  /** Where key presses are heard (the window, for a viewer page); the canvas by default. */
  keys?: EventTarget;
}

type Mode = 'none' | 'orbit' | 'pan' | 'pinch';

export class CameraInput {
  onChange: (() => void) | undefined;
  private readonly bounds: (() => Bounds | undefined) | undefined;
  private readonly abort = new AbortController();
  private readonly pointers = new Map<number, { x: number; y: number }>();
  private mode: Mode = 'none';
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
    this.bounds = options.bounds;
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
    on('dblclick', () => {
      this.camera.reset();
      this.changed();
    });
    on('contextmenu', (e) => e.preventDefault(), false);
    (options.keys ?? canvas).addEventListener('keydown', (e) => this.keyDown(e as KeyboardEvent), { signal: this.abort.signal });
  }

  dispose(): void {
    this.abort.abort();
    this.pointers.clear();
    this.canvas.style.touchAction = this.previousTouchAction;
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
      this.mode = e.button === 1 || e.button === 2 || e.shiftKey ? 'pan' : 'orbit';
    }
    this.restart();
  }

  private pointerMove(e: PointerEvent): void {
    const p = this.pointers.get(e.pointerId);
    if (!p || this.mode === 'none') return;
    p.x = e.clientX;
    p.y = e.clientY;
    const [x, y, span] = this.centroid();
    const dx = x - this.lastX, dy = y - this.lastY;
    const h = this.height();
    if (this.mode === 'orbit') {
      // Dragging right swings the eye left so the object turns with the hand.
      this.camera.orbit((-dx * ORBIT_PER_HEIGHT) / h, (dy * ORBIT_PER_HEIGHT) / h);
    } else {
      this.camera.pan(dx, dy, h);
      if (this.mode === 'pinch' && span > 0 && this.lastSpan > 0) this.camera.zoom(this.lastSpan / span);
    }
    this.lastX = x;
    this.lastY = y;
    this.lastSpan = span;
    this.changed();
  }

  private pointerUp(e: PointerEvent): void {
    if (!this.pointers.delete(e.pointerId)) return;
    if (this.canvas.hasPointerCapture(e.pointerId)) this.canvas.releasePointerCapture(e.pointerId);
    // One finger left after a pinch keeps going as an orbit, from where it is now.
    if (this.pointers.size === 0) this.mode = 'none';
    else if (this.pointers.size === 1) this.mode = 'orbit';
    this.restart();
  }

  /** Re-anchors the drag so that adding or lifting a pointer causes no jump. */
  private restart(): void {
    if (this.pointers.size >= 2) this.mode = 'pinch';
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
    this.camera.zoom(Math.exp(e.deltaY * scale * WHEEL_ZOOM_PER_PIXEL));
    this.changed();
  }

  private keyDown(e: KeyboardEvent): void {
    if (e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented || isTypingKey(e)) return;
    const step = e.shiftKey ? 3 * KEY_ORBIT : KEY_ORBIT;
    switch (e.key) {
      // Arrows move the eye: left swings it to its left around the target, up raises it.
      case 'ArrowLeft': this.camera.orbit(-step, 0); break;
      case 'ArrowRight': this.camera.orbit(step, 0); break;
      case 'ArrowUp': this.camera.orbit(0, step); break;
      case 'ArrowDown': this.camera.orbit(0, -step); break;
      case '+': case '=': this.camera.zoom(1 / KEY_ZOOM); break;
      case '-': case '_': this.camera.zoom(KEY_ZOOM); break;
      case 'r': case 'R': this.camera.reset(); break;
      case 'f': case 'F': {
        // Frames the scene from where the camera looks now; the home view (R) stays.
        const bounds = this.bounds?.();
        const aspect = this.canvas.clientWidth / this.height();
        if (bounds) this.camera.frame(bounds, aspect);
        else this.camera.reset();
        break;
      }
      default: return;
    }
    e.preventDefault();
    this.changed();
  }
}
