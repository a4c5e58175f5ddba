/**
 * A small stacked chart of the last frames' pass timings: one column per
 * frame, newest on the right, stacked bottom to top as projector (cull,
 * project, key), sort, render and CPU sort, in the stats panels' colours.
 * The y-axis maximum is labelled at the top left; it rises at once for a new
 * peak and eases down slowly (ChartScale), so a single spike does not leave
 * the chart flat for long.
 *
 * Cost per frame: the picture scrolls left by one column with drawImage and
 * only the new column is drawn (stats.js draws its graphs the same way); the
 * whole picture is redrawn only when the scale steps or the canvas is
 * resized. Nothing is allocated per frame: the history is a preallocated
 * ring, the DOM attributes are written at most every ATTRIBUTE_INTERVAL_MS,
 * and the label only when the scale changes.
 *
 * Which frame a GPU reading belongs to: readings come back asynchronously
 * (a mapAsync a few frames later, and no new frame is timed while one is
 * pending), so a reading is put in the column of the frame during which it
 * arrived. Frames without a reading leave their GPU part empty; the last
 * reading is not carried over. Carrying would draw times that were never
 * measured and stretch a one-frame spike over every frame until the next
 * reading; a gap shows honestly how often the GPU is sampled. The CPU sort
 * likewise shows only in frames that received a CPU order.
 */

import { el } from './overlays';
import { ChartScale, PASSES, PASS_COUNT, TimingHistory, formatMs, type PassName } from './timing-history';

/** How the chart shows one pass: the stats panel's name and colour. */
export interface ChartPass {
  label: string;
  colour: string;
  description: string;
}

export type ChartPasses = Readonly<Record<PassName, ChartPass>>;

export interface TimingChartOptions {
  /** Without timestamp-query only the CPU sort is ever measured. */
  hasTimestamps: boolean;
  /** Frames kept; more than the widest chart shows (one CSS px a column). */
  capacity?: number;
}

/** Frames kept by default: the chart's width in CSS px, with room to spare. */
export const TIMING_CHART_FRAMES = 300;

/** The test hooks (data-frames) are written at most this often, so that a frame allocates no string. */
const ATTRIBUTE_INTERVAL_MS = 250;

const BACKGROUND = '#0c0f13';
const GRID = '#262d37';

export class TimingChart {
  readonly dom = el('div', { className: 'timing-chart' });
  readonly canvas = el('canvas', { className: 'timing-chart-canvas' });
  private readonly label = el('span', { className: 'timing-chart-max' });
  private readonly history: TimingHistory;
  private readonly scale = new ChartScale();
  private readonly colours: readonly string[];
  private readonly ctx: CanvasRenderingContext2D | null;
  private sizes: ResizeObserver | null = null;
  /** Column width in device pixels: one CSS pixel, rounded so columns stay on whole device pixels. */
  private column = 1;
  /** Columns that fit the canvas (the leftmost may be cut). */
  private visible = 0;
  /** Readings that arrived since the last frame ended; NaN: none. */
  private project = NaN;
  private sort = NaN;
  private render = NaN;
  private cpu = NaN;
  private lastAttributes = -Infinity;

  constructor(passes: ChartPasses, options: TimingChartOptions) {
    this.history = new TimingHistory(options.capacity ?? TIMING_CHART_FRAMES);
    this.colours = PASSES.map((p) => passes[p].colour);
    this.canvas.dataset.testid = 'timing-chart';
    this.canvas.dataset.frames = '0';
    this.canvas.dataset.columns = '0';
    this.ctx = this.canvas.getContext('2d', { alpha: false });

    const legend = el('div', { className: 'timing-chart-legend' });
    for (const p of PASSES) {
      const pass = passes[p];
      const gpu = p !== 'cpu';
      const swatch = el('i');
      swatch.style.background = pass.colour;
      const key = el('span', { className: 'timing-chart-key', title: pass.description }, swatch, pass.label);
      if (gpu && !options.hasTimestamps) {
        key.classList.add('timing-chart-off');
        key.title = `${pass.description}: n/a (no timestamp-query)`;
      }
      legend.append(key);
    }
    if (!options.hasTimestamps) legend.append(el('span', { className: 'timing-chart-note', textContent: 'GPU n/a' }));

    this.dom.title =
      `Timings of the last ${this.history.capacity} frames, one column a frame, newest on the right, ` +
      `stacked: ${PASSES.map((p) => passes[p].label).join(', ')}. ` +
      (options.hasTimestamps
        ? 'GPU times are read back for some frames only; a frame without a reading is left empty.'
        : 'GPU times are n/a: the device has no timestamp-query.') +
      ' The label is the top of the scale.';
    this.dom.append(el('div', { className: 'timing-chart-plot' }, this.canvas, this.label), legend);
    this.showScale();
    this.observeSize();
  }

  /** A GPU reading (ms, null: pass not timed); shown in the column of the frame now running. */
  addGpuTimes(project: number | null, sort: number | null, render: number | null): void {
    this.project = project ?? NaN;
    this.sort = sort ?? NaN;
    this.render = render ?? NaN;
  }

  /** The CPU sort time of the order that arrived this frame. */
  addCpuSort(ms: number): void {
    this.cpu = ms;
  }

  /** Closes the frame's column and draws it. `now`: the frame's time in ms (requestAnimationFrame's). */
  endFrame(now: number): void {
    this.history.push(this.project, this.sort, this.render, this.cpu);
    this.project = this.sort = this.render = this.cpu = NaN;
    // The scale follows the columns on screen; before the first layout, those that will be.
    const shown = this.visible || this.history.capacity;
    if (this.scale.update(this.history.peak(shown), now)) {
      this.showScale();
      this.redraw();
    } else {
      this.scroll();
    }
    if (now - this.lastAttributes >= ATTRIBUTE_INTERVAL_MS) {
      this.lastAttributes = now;
      this.canvas.dataset.frames = String(this.history.count);
    }
  }

  /** Frames recorded so far (columns drawn, once the canvas has a size). */
  get frames(): number {
    return this.history.count;
  }

  private showScale(): void {
    const text = formatMs(this.scale.max);
    this.label.textContent = text;
    this.canvas.dataset.maxMs = String(this.scale.max);
  }

  /**
   * Sizes the canvas in device pixels from its CSS box, so columns and text
   * stay crisp on high-DPI screens and through zoom (device-pixel-content-box
   * reports the exact pixels where the browser knows them).
   */
  /** Stops following the canvas's size (the chart is taken off the page). */
  dispose(): void {
    this.sizes?.disconnect();
    this.sizes = null;
  }

  private observeSize(): void {
    if (typeof ResizeObserver === 'undefined') return;
    const observer = (this.sizes = new ResizeObserver((entries) => {
      const entry = entries[entries.length - 1]!;
      const device = entry.devicePixelContentBoxSize?.[0];
      const css = entry.contentRect;
      const ratio = window.devicePixelRatio || 1;
      const width = device ? device.inlineSize : Math.round(css.width * ratio);
      const height = device ? device.blockSize : Math.round(css.height * ratio);
      this.resize(width, height, css.width > 0 ? width / css.width : ratio);
    }));
    try {
      observer.observe(this.canvas, { box: 'device-pixel-content-box' });
    } catch {
      observer.observe(this.canvas);
    }
  }

  private resize(width: number, height: number, ratio: number): void {
    const column = Math.max(1, Math.round(ratio));
    if (width === this.canvas.width && height === this.canvas.height && column === this.column && this.visible > 0) return;
    this.canvas.width = width;
    this.canvas.height = height;
    this.column = column;
    this.visible = Math.min(this.history.capacity, Math.ceil(width / this.column));
    this.canvas.dataset.columns = String(this.visible);
    this.redraw();
  }

  /** Draws every column kept that fits. */
  private redraw(): void {
    const { ctx, canvas } = this;
    if (!ctx || canvas.width === 0 || canvas.height === 0) return;
    ctx.fillStyle = BACKGROUND;
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    for (let age = 0; age < this.visible; age++) this.drawColumn(age, canvas.width - (age + 1) * this.column);
  }

  /** Moves the picture one column left and draws the newest column. */
  private scroll(): void {
    const { ctx, canvas, column } = this;
    if (!ctx || canvas.width === 0 || canvas.height === 0) return;
    const w = canvas.width - column;
    if (w > 0) ctx.drawImage(canvas, column, 0, w, canvas.height, 0, 0, w, canvas.height);
    this.drawColumn(0, canvas.width - column);
  }

  private drawColumn(age: number, x: number): void {
    const ctx = this.ctx!;
    const h = this.canvas.height;
    const w = this.column;
    ctx.fillStyle = BACKGROUND;
    ctx.fillRect(x, 0, w, h);
    // A faint line at half the scale, so heights read without an axis.
    ctx.fillStyle = GRID;
    ctx.fillRect(x, Math.round(h / 2), w, 1);
    const max = this.scale.max;
    let sum = 0;
    let bottom = h;
    for (let p = 0; p < PASS_COUNT; p++) {
      const v = this.history.get(age, p);
      if (!(v > 0)) continue;
      sum += v;
      // Tops come from the running sum, so rounding never opens a gap
      // between passes. A measured pass gets at least one device pixel: on
      // software adapters the render can take a thousand times the CPU sort,
      // which would otherwise vanish although it was measured.
      const top = Math.max(0, Math.min(bottom - 1, Math.round(h - (sum / max) * h)));
      if (top >= bottom) continue;
      ctx.fillStyle = this.colours[p]!;
      ctx.fillRect(x, top, w, bottom - top);
      bottom = top;
    }
  }
}
