/**
 * The page's layout around the canvas: the canvas follows the window in
 * device pixels; the settings panel sits beside the scene on a wide window
 * (the Viewer frames the scene in the part it leaves free) and is a sheet
 * along the bottom on a narrow one; the panels can be hidden (U) and the
 * page can go fullscreen.
 */
import type { AnyViewer } from '../app/viewer';
import type { FrameLoop } from './frame-loop';
import type { MessageOverlay } from './overlays';
import { SIDE_PANEL_MIN_WIDTH, type ViewerGui } from './viewer-gui';

/** On a narrow window the open panel is a sheet over at most this part of the window's height. */
const SHEET_MAX_HEIGHT = 0.45;

export class PageLayout {
  constructor(
    private readonly canvas: HTMLCanvasElement,
    private readonly viewer: AnyViewer,
    private readonly gui: ViewerGui,
    private readonly messages: MessageOverlay,
  ) {}

  /** Follows the canvas's size from now on, into `loop` (device pixels) and the Viewer's framing (CSS pixels). */
  watch(loop: FrameLoop): void {
    new ResizeObserver(([entry]) => {
      if (!entry) return;
      const box = entry.devicePixelContentBoxSize?.[0];
      const dpr = window.devicePixelRatio || 1;
      loop.resize(box ? box.inlineSize : Math.round(entry.contentRect.width * dpr), box ? box.blockSize : Math.round(entry.contentRect.height * dpr));
      this.update();
    }).observe(this.canvas);
    this.gui.onPanelToggle(() => this.update());
    this.update();
  }

  /**
   * Fits the panel to the window: on a wide one the picture shifts so the
   * camera's target shows in the middle of what the open panel leaves
   * uncovered; on a narrow one (a phone) it is a sheet along the bottom
   * edge (style.css) over less than half the window, and scrolls.
   */
  update(): void {
    const width = this.canvas.clientWidth;
    const covered = width > 0 ? this.gui.coveredRight(width) / width : 0;
    this.viewer.setWindow(width, this.canvas.clientHeight, covered);
    const narrow = window.innerWidth < SIDE_PANEL_MIN_WIDTH;
    document.body.classList.toggle('narrow-window', narrow);
    this.gui.setMaxHeight(narrow ? window.innerHeight * SHEET_MAX_HEIGHT : null);
  }

  get uiHidden(): boolean {
    return document.body.classList.contains('ui-hidden');
  }

  /** Hides the panel, the stats and the help hint (messages stay), or shows them again. */
  setUiHidden(hidden: boolean): void {
    document.body.classList.toggle('ui-hidden', hidden);
    this.update();
  }

  /** Shows or hides the stats panels and the timing chart. */
  setStatsShown(shown: boolean): void {
    document.body.classList.toggle('stats-hidden', !shown);
  }

  toggleFullscreen(): void {
    const request = document.fullscreenElement ? document.exitFullscreen() : document.documentElement.requestFullscreen();
    request.catch((error: unknown) => this.messages.show('Fullscreen is not available', error instanceof Error ? error.message : String(error), { tone: 'info' }));
  }
}
