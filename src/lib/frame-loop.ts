/**
 * A viewer's animation loop: each animation frame sizes the canvas to what
 * its box asks for, has the Viewer draw into it, and tells an observer (the
 * page's stats and panel). A viewer draws only while its canvas is seen: a
 * hidden page or a canvas scrolled out of view submits nothing. Nothing in
 * the loop allocates beyond what WebGPU itself returns.
 */
import type { AnyViewer } from '../app/viewer';
import type { FrameReport } from '../app/frame/frame-engine';

/**
 * Frames submitted whose GPU work has not finished, at most. An animation
 * frame that finds this many in flight draws nothing: on a GPU slower than
 * the display (a software adapter, a busy integrated GPU) frames would
 * otherwise queue up, each showing a camera older than the last input, and
 * the queue would starve everything else the GPU process does for the page
 * (a screenshot, a scene upload, another tab). Two keep the GPU busy while
 * the CPU records the next frame.
 */
const MAX_FRAMES_IN_FLIGHT = 2;

/** What hears of each frame the loop draws (the page's stats panels and settings panel). */
export interface FrameObserver {
  /** Before the frame is recorded. */
  begin?(): void;
  /** The frame was submitted: what it did, at `now` (the animation frame's time, ms). */
  drawn?(report: FrameReport, now: number): void;
}

export class FrameLoop {
  /** The canvas size asked for, in device pixels (applied at the next frame). */
  private readonly pending: [number, number] = [1, 1];
  private framesInFlight = 0;
  private lastTick = -1;
  private running = true;
  private request = 0;
  /** Whether any of the canvas is in view (IntersectionObserver). */
  private inView = true;
  private readonly sight: IntersectionObserver | null;

  constructor(
    private readonly viewer: AnyViewer,
    private readonly canvas: HTMLCanvasElement,
    private readonly context: GPUCanvasContext,
    private readonly observer: FrameObserver = {},
  ) {
    this.sight = typeof IntersectionObserver === 'function'
      ? new IntersectionObserver((entries) => {
        for (const entry of entries) this.inView = entry.isIntersecting;
      })
      : null;
    this.sight?.observe(canvas);
    this.request = requestAnimationFrame(this.tick);
  }

  /** The size to draw at from the next frame, in device pixels (capped by the device). */
  resize(width: number, height: number): void {
    const max = this.viewer.core.device.limits.maxTextureDimension2D;
    this.pending[0] = Math.max(1, Math.min(max, width));
    this.pending[1] = Math.max(1, Math.min(max, height));
  }

  /** Stops drawing for good (the viewer is destroyed, or the device was lost). */
  stop(): void {
    this.running = false;
    cancelAnimationFrame(this.request);
    this.sight?.disconnect();
  }

  private readonly tick = (now: number): void => {
    if (!this.running) return;
    this.request = requestAnimationFrame(this.tick);
    const seconds = this.lastTick < 0 ? 0 : (now - this.lastTick) / 1000;
    this.lastTick = now;
    if (this.framesInFlight >= MAX_FRAMES_IN_FLIGHT || !this.inView || document.hidden) return;
    this.observer.begin?.();
    const { canvas } = this;
    if (canvas.width !== this.pending[0] || canvas.height !== this.pending[1]) [canvas.width, canvas.height] = this.pending;
    const report = this.viewer.drawFrame(this.context.getCurrentTexture().createView(), canvas.width, canvas.height, seconds);
    this.framesInFlight++;
    this.viewer.core.device.queue.onSubmittedWorkDone().then(this.frameDone, this.frameDone);
    this.observer.drawn?.(report, now);
  };

  private readonly frameDone = (): void => {
    this.framesInFlight--;
  };
}
