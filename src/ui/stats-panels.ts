/**
 * Performance panels (stats.js): the stock FPS / frame-ms panel (click it to
 * cycle) plus the viewer's own graphs: GPU time of the projector (cull,
 * project, key the visible splats), the radix sort and the splat render
 * (timestamp queries), the CPU sort's time
 * in its worker, and the age of the CPU order on screen in frames.
 *
 * Values are averaged over ~250 ms before they are drawn, so the graphs stay
 * readable at any frame rate. stats.js prints whole numbers, and GPU passes
 * often take well under a millisecond, so timing graphs count microseconds
 * until their mean passes 10 ms, then milliseconds (software adapters).
 *
 * Below the panels, a TimingChart keeps every frame's timings of the last
 * few hundred frames, stacked per pass in the same colours, so spikes that
 * the 250 ms means smooth away stay visible.
 *
 * A toggle in the box's corner folds panels and chart into one line that
 * still gives each pass's time (the sort's first), so they cover little of
 * the scene (the page frames the scene beside them either way,
 * src/ui/page-layout.ts). Until the user folds or unfolds them, they are
 * folded on touch screens and small windows, where the graphs would take
 * much of the scene's room, and follow the window as it changes.
 *
 * Graphs no one sees are not drawn: while folded or hidden (the page's
 * `ui=0`, U), the means are still taken for the folded line but stats.js,
 * the graphs and the chart draw nothing. Drawing them took 1.2–1.9 ms a
 * frame of the main thread (canvas drawImage and fillText, stats.js's
 * memory panel) while a world streamed in headless Chromium on
 * SwiftShader, with every panel hidden.
 */

import Stats from 'stats.js';
import { el } from './overlays';
import { TimingChart } from './timing-chart';

const FLUSH_MS = 250;

/** Where the stats start folded (until the user chooses): touch screens and windows too small to give the graphs room beside the scene. */
export const FOLDED_STATS_QUERY = '(pointer: coarse), (max-width: 999px), (max-height: 699px)';

/**
 * stats.js's panel (Stats.Panel, r17) labels its graph "value NAME
 * (min-max)" in an 80 px canvas: "886 SORT ms (886-900)" is cut off there.
 * The custom graphs redraw that band, above the graph, with "value NAME
 * unit" and give the range in the tooltip. Its layout, in CSS pixels.
 */
const PANEL_LABEL = { width: 80, band: 15, x: 3, y: 2, fontPx: 9, fontFamily: 'Helvetica,Arial,sans-serif' } as const;

export interface PassTimes {
  project: number | null;
  sort: number | null;
  render: number | null;
}

/** One custom graph: accumulates samples and draws their mean every FLUSH_MS. */
class Series {
  readonly slot = el('div', { className: 'stats-slot' });
  private panel: Stats.Panel;
  /** Timings start in µs (what GPU passes take on real GPUs) and switch to ms for good past 10 ms. */
  private micro: boolean;
  private sum = 0;
  private samples = 0;
  private peak = 0;
  private low = Infinity;
  private high = 0;
  /** The unit shown: µs until the mean passes 10 ms, then ms (or the series' own unit). */
  private unit: string;
  /** The last mean drawn with its unit ("40 µs"), for the folded line; null before the first. */
  shown: string | null = null;
  private na = false;

  constructor(
    readonly name: string,
    unit: 'ms' | 'frames',
    readonly colours: readonly [string, string],
    readonly description: string,
  ) {
    this.slot.title = description;
    this.micro = unit === 'ms';
    this.unit = this.micro ? 'µs' : unit;
    this.panel = new Stats.Panel(`${name} ${this.unit}`, colours[0], colours[1]);
    this.slot.append(this.panel.dom);
  }

  add(value: number): void {
    this.sum += value;
    this.samples++;
  }

  /** Takes the mean of the samples since the last flush; draws it where `draw`. */
  flush(draw: boolean): void {
    if (this.samples === 0) return;
    const mean = this.sum / this.samples;
    this.sum = 0;
    this.samples = 0;
    if (this.micro && mean >= 10) {
      this.micro = false;
      this.unit = 'ms';
      this.peak = 0;
      this.low = Infinity;
      this.high = 0;
      this.panel = new Stats.Panel(`${this.name} ms`, this.colours[0], this.colours[1]);
      this.slot.replaceChildren(this.panel.dom);
    }
    const shown = this.micro ? mean * 1000 : mean;
    this.peak = Math.max(this.peak, shown);
    this.low = Math.min(this.low, shown);
    this.high = Math.max(this.high, shown);
    this.shown = `${Math.round(shown)} ${this.unit}`;
    if (!draw) return;
    this.panel.update(shown, Math.max(this.peak * 1.25, 1));
    this.relabel(`${Math.round(shown)} ${this.name} ${this.unit}`);
    this.slot.title = `${this.description}: ${Math.round(shown)} ${this.unit} (${Math.round(this.low)}–${Math.round(this.high)} so far)`;
  }

  /** Redraws the panel's label band with `label` (PANEL_LABEL says why). */
  private relabel(label: string): void {
    const canvas = this.panel.dom as HTMLCanvasElement;
    const context = canvas.getContext('2d');
    if (!context) return;
    const scale = canvas.width / PANEL_LABEL.width;
    context.save();
    context.globalAlpha = 1;
    context.fillStyle = this.colours[1];
    context.fillRect(0, 0, canvas.width, PANEL_LABEL.band * scale);
    context.font = `bold ${PANEL_LABEL.fontPx * scale}px ${PANEL_LABEL.fontFamily}`;
    context.textBaseline = 'top';
    context.fillStyle = this.colours[0];
    context.fillText(label, PANEL_LABEL.x * scale, PANEL_LABEL.y * scale);
    context.restore();
    this.slot.dataset.label = label;
  }

  get unavailable(): boolean {
    return this.na;
  }

  set unavailable(on: boolean) {
    this.na = on;
    this.slot.classList.toggle('stats-na', on);
    this.slot.title = on ? `${this.description}: n/a (no timestamp-query)` : this.description;
  }
}

export class StatsPanels {
  readonly dom = el('div', { className: 'stats' });
  private readonly toggle = el('button', { className: 'stats-toggle', type: 'button' });
  /** The folded line: each pass's time, the sort's first (the graphs' means, as often as they are drawn). */
  private readonly strip = el('span', { className: 'stats-strip' });
  /** Folded on small windows and touch screens until the user folds or unfolds them (FOLDED_STATS_QUERY). */
  private readonly smallWindow = matchMedia(FOLDED_STATS_QUERY);
  private readonly followWindow = () => {
    if (!this.chosen) this.collapsed = this.smallWindow.matches;
  };
  /** The user folded or unfolded them: the window no longer decides. */
  private chosen = false;
  private readonly body = el('div', { className: 'stats-body', ariaHidden: 'true' });
  private readonly stats = new Stats();
  private readonly project = new Series('PROJ', 'ms', ['#7cf', '#012'], 'GPU time of the projector: cull, project and key the visible splats');
  private readonly sort = new Series('SORT', 'ms', ['#fc6', '#210'], 'GPU time of the radix sort');
  private readonly render = new Series('DRAW', 'ms', ['#f8c', '#201'], 'GPU time of the splat render pass');
  private readonly cpuSort = new Series('CPU', 'ms', ['#8f8', '#020'], 'CPU sort time in its worker (keys excluded)');
  private readonly orderAge = new Series('AGE', 'frames', ['#ccc', '#111'], 'Age of the order on screen, in frames');
  private readonly all = [this.project, this.sort, this.render, this.cpuSort, this.orderAge];
  /** The folded line's passes, in its order. */
  private readonly timed = [this.sort, this.project, this.render, this.cpuSort];
  private readonly chart: TimingChart;
  private lastFlush = 0;
  /** The page shows the stats (not hidden with the panels, nor switched off). */
  private onPage = true;

  /** `collapsed`: folded at first, or 'auto' to follow the window until the user chooses; `onCollapse` hears of every fold and unfold the user makes. */
  constructor(hasTimestamps: boolean, collapsed: boolean | 'auto' = false, private readonly onCollapse: (collapsed: boolean) => void = () => {}) {
    // stats.js positions its element itself; the stylesheet places it in the grid instead.
    this.stats.dom.style.cssText = '';
    this.stats.dom.className = 'stats-slot stats-fps';
    this.stats.dom.title = 'Click to cycle FPS / frame ms';
    const chartPass = (s: Series) => ({ label: s.name, colour: s.colours[0], description: s.description });
    this.chart = new TimingChart(
      {
        project: chartPass(this.project),
        sort: chartPass(this.sort),
        render: chartPass(this.render),
        cpu: chartPass(this.cpuSort),
      },
      { hasTimestamps },
    );
    // In the grid, spanning all its columns: it takes the grid's width at three columns and at two.
    const panels = el('div', { className: 'stats-grid' }, this.stats.dom, ...this.all.map((s) => s.slot), this.chart.dom);
    this.body.append(panels);
    if (!hasTimestamps) {
      for (const s of [this.project, this.sort, this.render]) s.unavailable = true;
      this.body.append(el('p', { className: 'stats-note', textContent: 'GPU timings n/a: no timestamp-query' }));
    }
    this.toggle.addEventListener('click', () => {
      this.chosen = true;
      this.collapsed = !this.collapsed;
      this.onCollapse(this.collapsed);
    });
    this.dom.append(this.toggle, this.body);
    if (collapsed === 'auto') {
      this.smallWindow.addEventListener('change', this.followWindow);
      this.followWindow();
    } else {
      this.collapsed = collapsed;
    }
  }

  get collapsed(): boolean {
    return this.dom.classList.contains('stats-collapsed');
  }

  /** Whether the page shows the stats at all (the panels hidden, or the stats switched off: not). */
  set shown(on: boolean) {
    this.onPage = on;
  }

  /** The graphs and the chart are on screen: unfolded, and on the page. */
  private get drawing(): boolean {
    return this.onPage && !this.collapsed;
  }

  /** Takes the panels off the page: the chart stops following its size. */
  dispose(): void {
    this.smallWindow.removeEventListener('change', this.followWindow);
    this.chart.dispose();
    this.dom.remove();
  }

  /** Folds the panels and the chart into the tab, or unfolds them. */
  set collapsed(on: boolean) {
    this.dom.classList.toggle('stats-collapsed', on);
    if (on) {
      this.showStrip();
      this.toggle.replaceChildren('▸ ', this.strip);
    } else {
      this.toggle.textContent = '▾';
    }
    this.toggle.title = on ? 'Show the stats panels and the timing chart' : 'Fold the stats panels and the timing chart into one line of timings';
    this.toggle.ariaExpanded = String(!on);
  }

  /** The folded line: "SORT 40 µs · PROJ 19 µs · DRAW 57 µs" (passes not measured left out), "stats" before any time. */
  private showStrip(): void {
    const parts = this.timed.filter((s) => s.shown !== null && !s.unavailable).map((s) => `${s.name} ${s.shown}`);
    const text = parts.length > 0 ? parts.join(' · ') : 'stats';
    if (this.strip.textContent !== text) this.strip.textContent = text;
  }

  begin(): void {
    if (this.drawing) this.stats.begin();
  }

  /** Ends the frame: adds its column to the chart; draws the custom graphs when their averaging window is over (only those on screen). */
  end(now: number): void {
    const drawing = this.drawing;
    if (drawing) {
      this.stats.end();
      this.chart.endFrame(now);
    }
    if (now - this.lastFlush < FLUSH_MS) return;
    this.lastFlush = now;
    for (const s of this.all) s.flush(drawing);
    if (this.collapsed && this.onPage) this.showStrip();
  }

  addGpuTimes(times: PassTimes): void {
    if (times.project !== null) this.project.add(times.project);
    if (times.sort !== null) this.sort.add(times.sort);
    if (times.render !== null) this.render.add(times.render);
    this.chart.addGpuTimes(times.project, times.sort, times.render);
  }

  addCpuSort(ms: number): void {
    this.cpuSort.add(ms);
    this.chart.addCpuSort(ms);
  }

  /** Frames between the camera an order was sorted for and the frame drawing it (0: sorted this frame). */
  addOrderAge(frames: number): void {
    this.orderAge.add(frames);
  }
}
