/**
 * The page's layout around the canvas: the canvas follows the window in
 * device pixels; the settings panel sits beside the scene on a wide window
 * and is a sheet along the bottom on a narrow one; the stats panels and
 * timing chart sit in a corner (bottom left, top left on a narrow window)
 * and fold into a tab. The Viewer frames the scene in the largest part of
 * the window these overlays leave free (src/app/camera/free-rect.ts), measured
 * again whenever one of them changes size (the sheet opening, the stats
 * folding) or the window does. The panels can be hidden (U) and the page
 * can go fullscreen.
 */
import type { AnyViewer } from '../app/viewer';
import { largestFreeRect } from '../app/camera/free-rect';
import type { FrameLoop } from '../lib/frame-loop';
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
    /** The stats panels' box: an overlay the scene is framed beside. */
    private readonly stats: HTMLElement,
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
    // The overlays' boxes: the sheet grows as it opens, the stats fold, the panel's folders open.
    const overlays = new ResizeObserver(() => this.update());
    overlays.observe(this.gui.gui.domElement);
    overlays.observe(this.stats);
    this.update();
  }

  /**
   * Fits the panel to the window (on a narrow one, a phone, it is a sheet
   * along the bottom edge, styles/settings-panel.css, over less than half the window, and
   * scrolls), then tells the Viewer the window's size and the part of it
   * the panel and the stats leave free: the scene is framed there.
   */
  update(): void {
    const narrow = window.innerWidth < SIDE_PANEL_MIN_WIDTH;
    document.body.classList.toggle('narrow-window', narrow);
    this.gui.setMaxHeight(narrow ? window.innerHeight * SHEET_MAX_HEIGHT : null);
    const width = this.canvas.clientWidth, height = this.canvas.clientHeight;
    const canvas = this.canvas.getBoundingClientRect();
    // Hidden overlays (U, the stats switched off) have no box and cover nothing.
    const covered = [this.gui.gui.domElement, this.stats].map((overlay) => {
      const box = overlay.getBoundingClientRect();
      return { x: box.x - canvas.x, y: box.y - canvas.y, width: box.width, height: box.height };
    });
    this.viewer.setWindow(width, height, largestFreeRect(width, height, covered));
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
    this.update();
  }

  toggleFullscreen(): void {
    const request = document.fullscreenElement ? document.exitFullscreen() : document.documentElement.requestFullscreen();
    request.catch((error: unknown) => this.messages.show('Fullscreen is not available', error instanceof Error ? error.message : String(error), { tone: 'info' }));
  }
}
