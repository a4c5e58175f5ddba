/**
 * The page's animation loop: each animation frame sizes the canvas to the
 * window, has the Viewer draw into it, feeds the stats panels and now and
 * then refreshes the panel's read-only rows. Nothing in the loop allocates
 * beyond what WebGPU itself returns.
 */
import type { AnyViewer } from '../app/viewer';
import type { FrameReport } from '../app/frame/frame-engine';
import { FrameRate } from './scene-facts';
import type { StatsPanels } from './stats-panels';
import type { ViewerGui } from './viewer-gui';

/** How often the read-only displays are refreshed. */
const INFO_INTERVAL_MS = 250;
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

export class FrameLoop {
  /** The canvas size the window asks for, in device pixels (applied at the next frame). */
  private readonly pending: [number, number] = [1, 1];
  private framesInFlight = 0;
  private lastTick = -1;
  private lastInfo = 0;
  private running = true;
  private readonly fps = new FrameRate();

  constructor(
    private readonly viewer: AnyViewer,
    private readonly canvas: HTMLCanvasElement,
    private readonly context: GPUCanvasContext,
    private readonly gui: ViewerGui,
    private readonly stats: StatsPanels,
  ) {
    viewer.on('timings', (times) => stats.addGpuTimes(times));
    viewer.on('difference', (m) => {
      gui.showDifference(m, viewer.settings.view, true);
      gui.update();
    });
    requestAnimationFrame(this.tick);
  }

  /** The size to draw at from the next frame, in device pixels (capped by the device). */
  resize(width: number, height: number): void {
    const max = this.viewer.core.device.limits.maxTextureDimension2D;
    this.pending[0] = Math.max(1, Math.min(max, width));
    this.pending[1] = Math.max(1, Math.min(max, height));
  }

  /** Stops drawing for good (the device was lost). */
  stop(): void {
    this.running = false;
  }

  private readonly tick = (now: number): void => {
    if (!this.running) return;
    requestAnimationFrame(this.tick);
    const seconds = this.lastTick < 0 ? 0 : (now - this.lastTick) / 1000;
    this.lastTick = now;
    if (this.framesInFlight >= MAX_FRAMES_IN_FLIGHT) return;
    this.stats.begin();
    const { canvas } = this;
    if (canvas.width !== this.pending[0] || canvas.height !== this.pending[1]) [canvas.width, canvas.height] = this.pending;
    const report = this.viewer.drawFrame(this.context.getCurrentTexture().createView(), canvas.width, canvas.height, seconds);
    this.framesInFlight++;
    this.viewer.core.device.queue.onSubmittedWorkDone().then(this.frameDone, this.frameDone);
    if (report.cpuSortMs !== null) this.stats.addCpuSort(report.cpuSortMs);
    if (report.choice.source !== 'none') this.stats.addOrderAge(report.orderAge);
    if (now - this.lastInfo >= INFO_INTERVAL_MS) this.updateInfo(now, report);
    this.stats.end(now);
  };

  private readonly frameDone = (): void => {
    this.framesInFlight--;
  };

  /** The panel's read-only rows about the frame: a few times a second, not every frame. */
  private updateInfo(now: number, report: FrameReport): void {
    const { gui, viewer } = this;
    const s = viewer.settings;
    this.lastInfo = now;
    this.fps.sample(now, viewer.state.frames);
    gui.set('fps', this.fps.text);
    const source = report.choice.source;
    gui.showOrder({
      requested: s.sortMode,
      waiting: report.choice.waiting,
      active: report.choice.label,
      keyBits: report.keyBits,
      auto: s.keyBits === 'auto' && source === 'gpu-sort',
      frozen: source === 'frozen',
      age: source === 'uploaded' ? report.orderAge : null,
    });
    if (s.measureOrder || s.keyBits === 'auto') gui.showOrderError(viewer.state.orderError);
    const frame = viewer.core.frame;
    gui.showDifference(viewer.state.difference, s.view, s.view === 'pixel-order' ? frame.canShowPixelOrder : frame.canShowDifference);
    gui.showRenderer(viewer.state.renderer, viewer.state.order);
    const world = viewer.state.world;
    if (world) gui.showWorld(world);
    // Once, after every row is set: a row set after the redraw would show
    // one refresh late (the difference view's first count did, seconds late
    // on a software adapter).
    gui.update();
  }
}
