/**
 * What the page shows of each frame: the stats panels' times every frame,
 * and a few times a second the settings panel's read-only rows (the rate,
 * the order, its error, the heat map's counts, the renderer, a world's
 * figures), and a world's streaming on the progress bar, from the
 * viewer's frame events. The rows are left alone while the panels are
 * hidden (U, the page's `ui=0`): lil-gui's updateDisplay of rows no one
 * sees was among the main thread's larger costs while a world streamed
 * (14 ms over a 20 s path, headless Chromium on SwiftShader).
 */
import type { FrameReport, SplatViewer } from '../lib/index';
import { FrameRate } from './scene-facts';
import type { StatsPanels } from './stats-panels';
import type { ViewerGui } from './viewer-gui';
import type { ProgressBar } from './overlays';
import { worldProgress } from './world-progress';

/** How often the read-only displays are refreshed. */
const INFO_INTERVAL_MS = 250;

export class PanelFrames {
  private lastInfo = 0;
  private readonly fps = new FrameRate();

  constructor(
    private readonly viewer: SplatViewer,
    private readonly gui: ViewerGui,
    private readonly stats: StatsPanels,
    private readonly progress: ProgressBar,
    /** The settings panel is on the page (not hidden with the other panels). */
    private readonly panelShown: () => boolean = () => true,
  ) {
    viewer.on('gputimes', (times) => stats.addGpuTimes(times));
    viewer.on('heatmapcount', (m) => {
      gui.showDifference(m, viewer.settings.view, true);
      gui.update();
    });
    viewer.on('beforeframe', () => stats.begin());
    viewer.on('frame', (report, now) => this.drawn(report, now));
  }

  private drawn(report: FrameReport, now: number): void {
    const stats = this.stats;
    if (report.cpuSortMs !== null) stats.addCpuSort(report.cpuSortMs);
    if (report.choice.source !== 'none') stats.addOrderAge(report.orderAge);
    if (now - this.lastInfo >= INFO_INTERVAL_MS) this.updateInfo(now, report);
    stats.end(now);
  }

  /** The panel's read-only rows about the frame: a few times a second, not every frame. */
  private updateInfo(now: number, report: FrameReport): void {
    const { gui, viewer } = this;
    const s = viewer.settings;
    this.lastInfo = now;
    const world = viewer.state.world;
    this.progress.showWorld(world ? worldProgress(viewer.state.scene?.name ?? 'the world', world) : null);
    if (!this.panelShown()) return;
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
    gui.showDifference(viewer.state.difference, s.view, viewer.heatMapReady);
    gui.showRenderer(viewer.state.renderer, viewer.state.orderChoice);
    gui.showWorldRows(!!world);
    if (world) gui.showWorld(world);
    // Once, after every row is set: a row set after the redraw would show
    // one refresh late (the difference view's first count did, seconds late
    // on a software adapter).
    gui.update();
  }
}
