/**
 * The page's layout around the canvas: the canvas follows the window in
 * device pixels; the settings panel sits beside the scene on a wide window
 * and is a sheet along the bottom on a narrow one; the stats panels and
 * timing chart sit in a corner (bottom left, top left on a narrow window)
 * and fold into one line of timings. The viewer frames the scene in the largest part of
 * the window these overlays leave free (SplatViewer.setOverlays), measured
 * again whenever one of them changes size (the sheet opening, the stats
 * folding) or the window does. The panels can be hidden (U) and the page
 * can go fullscreen.
 */
import type { SplatViewer } from '../lib/index';
import type { MessageOverlay } from './overlays';
import { SIDE_PANEL_MIN_WIDTH, type ViewerGui } from './viewer-gui';

/** On a narrow window the open panel is a sheet over at most this part of the window's height. */
const SHEET_MAX_HEIGHT = 0.45;

export class PageLayout {
  constructor(
    private readonly viewer: SplatViewer,
    private readonly gui: ViewerGui,
    private readonly messages: MessageOverlay,
    /** The stats panels' box: an overlay the scene is framed beside. */
    private readonly stats: HTMLElement,
    /** Told whether the stats are on the page (not hidden with the panels, nor switched off): hidden, they draw nothing. */
    private readonly statsShown: (shown: boolean) => void = () => {},
  ) {}

  /** Follows the window's size and the panel's until `signal` aborts; the viewer frames the scene beside the panel and the stats. */
  watch(signal: AbortSignal): void {
    const sizes = new ResizeObserver(() => this.update());
    sizes.observe(this.viewer.canvas);
    signal.addEventListener('abort', () => sizes.disconnect(), { once: true });
    this.gui.onPanelToggle(() => this.update());
    this.update();
  }

  /**
   * Fits the panel to the window (on a narrow one, a phone, it is a sheet
   * along the bottom edge, styles/settings-panel.css, over less than half
   * the window, and scrolls), then has the viewer measure the part of the
   * canvas the panel and the stats leave free: the scene is framed there.
   */
  update(): void {
    const narrow = window.innerWidth < SIDE_PANEL_MIN_WIDTH;
    document.body.classList.toggle('narrow-window', narrow);
    this.gui.setMaxHeight(narrow ? window.innerHeight * SHEET_MAX_HEIGHT : null);
    // Hidden overlays (U, the stats switched off) have no box and cover nothing.
    this.viewer.setOverlays([this.gui.gui.domElement, this.stats]);
    const classes = document.body.classList;
    this.statsShown(!classes.contains('ui-hidden') && !classes.contains('stats-hidden'));
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
