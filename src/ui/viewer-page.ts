/**
 * The viewer page: a full-window canvas showing a SplatViewer (the
 * package's public viewer, src/lib/index.ts), its settings panel, the
 * performance panels and the overlays. The page is a view of the viewer:
 * it hands it settings, files and the overlays' boxes, and shows what the
 * viewer publishes (src/ui/viewer-bindings.ts). createViewer loads this
 * module for `ui: true` (main.ts).
 *
 * For automated checks the page sets `window.__splatsort` to the viewer's
 * state and `window.__splatsortViewer` to the viewer itself (to drive it),
 * and sets `document.body.dataset.viewer` to 'ready' once the first scene
 * has been drawn ('load-failed' if that scene could not be opened).
 */
import { CAMERA_HELP, isTypingKey, PAGE_KEY_LISTENER, SORT_MODE_LABELS, TOUCH_HELP, type CameraMode, type CameraPose, type PagePanel, type PanelMount, type SplatViewer, type ViewerSettings } from '../lib/index';
import { DropZone, FilePicker, HelpOverlay, MessageOverlay, ProgressBar } from './overlays';
import { StatsPanels } from './stats-panels';
import { ViewSharing } from './view-sharing';
import { ViewerGui, type PanelSettings } from './viewer-gui';
import { PanelFrames } from './panel-frames';
import { PageLayout } from './page-layout';
import { bindViewer } from './viewer-bindings';
import { saveSceneAs } from './save-scene';
import { openFirstScene } from './first-scene';
import type {} from './page-hooks';
import { ensurePanelStyles } from './panel-styles';
import { ViewsPanel } from './views-panel';
import { ViewsPins } from './views-pins';

/** The page's own keys, for the help (the camera's are CAMERA_HELP). */
const PAGE_KEYS: ReadonlyArray<[string, string]> = [
  ['C', 'Switch between orbit and fly mode'],
  ['P', 'Screenshot'],
  ['U', 'Hide or show the panels (the link flag ui=0 starts hidden)'],
  ['[ / ]  or  PageUp / PageDown', 'Previous / next saved view (the Views folder)'],
];

/** Saved views on a touch screen: the bar at the top. */
const TOUCH_VIEWS_HELP: ReadonlyArray<[string, string]> = [['◀ / ▶ at the top', 'Previous / next saved view; a pin: its view']];

/** The keys that step through the saved views: back, and on. */
const PREVIOUS_VIEW_KEYS = new Set(['[', 'PageUp']);
const NEXT_VIEW_KEYS = new Set([']', 'PageDown']);

/**
 * Takes over `root` (the viewer's container) with the page around
 * `viewer`, and opens the page's first scene if `mount` says so (its
 * link's, else `mount.first`).
 */
export async function mountViewerPage(root: HTMLElement, viewer: SplatViewer, mount: PanelMount): Promise<PagePanel> {
  ensurePanelStyles();
  document.body.classList.add('viewer');
  return new ViewerPage(root, viewer, mount);
}

/** The classes the page puts on <body>, taken off with the panel. */
const BODY_CLASSES = ['viewer', 'ui-hidden', 'stats-hidden', 'narrow-window'];

class ViewerPage implements PagePanel {
  private readonly messages = new MessageOverlay();
  private readonly progress: ProgressBar;
  private readonly help: HelpOverlay;
  private readonly picker = new FilePicker((files) => void this.open(files));
  private readonly settings: PanelSettings;
  private readonly gui: ViewerGui;
  private readonly sharing: ViewSharing;
  private readonly layout: PageLayout;
  private readonly stats: StatsPanels;
  private readonly views: ViewsPanel;
  private readonly pins: ViewsPins;

  private readonly drop: DropZone;
  /** Every listener on the window and observer the page adds takes its signal: destroy() ends them. */
  private readonly lifetime = new AbortController();

  constructor(private readonly root: HTMLElement, private readonly viewer: SplatViewer, mount: PanelMount) {
    const signal = this.lifetime.signal;
    window.__splatsort = viewer.state;
    window.__splatsortViewer = viewer;
    const canvas = viewer.canvas;
    canvas.classList.add('viewer-canvas');
    this.progress = new ProgressBar(() => viewer.cancel());
    // A touch screen is the main pointer (a phone, a tablet): its help shows the touch controls.
    this.help = matchMedia('(pointer: coarse)').matches
      ? new HelpOverlay([...TOUCH_HELP, ...TOUCH_VIEWS_HELP], window, () => {}, { touch: true, signal })
      : new HelpOverlay([...CAMERA_HELP, ...PAGE_KEYS], window, () => {
        this.messages.dismissAll();
        viewer.cancel();
      }, { signal });
    root.replaceChildren(canvas, this.picker.dom, this.progress.dom, this.help.dom, this.messages.dom);
    this.settings = { ...viewer.settings, screenshotScale: 1, showStats: true, statsCollapsed: false };
    this.stats = new StatsPanels(viewer.gpu.timestamps, 'auto', (collapsed) => {
      this.settings.statsCollapsed = collapsed;
    });
    this.gui = new ViewerGui(this.settings, viewer.gpu.adapter, {
      openFile: () => this.picker.open(),
      resetCamera: () => viewer.resetCamera(),
      copyViewLink: () => void this.sharing.copyLink(),
      saveCamera: () => this.sharing.saveCamera(),
      loadCamera: () => this.sharing.cameraPicker.open(),
      screenshot: (framing) => void this.sharing.screenshot(this.settings.screenshotScale, framing),
      fullscreen: () => this.layout.toggleFullscreen(),
      level: () => viewer.level(),
      flipUp: () => viewer.flipUp(),
      hideUi: () => this.layout.setUiHidden(true),
      saveScene: () => void saveSceneAs(viewer, this.gui.saving, this.messages),
      changed: (name) => this.panelChanged(name),
    });
    this.sharing = new ViewSharing(viewer, {
      showMessage: (title, text, tone) => this.messages.show(title, text, { tone }),
      showNotice: (title, text) => this.messages.notify(title, text),
    });
    // The link's renderer, order and camera mode, shown in the panel (the address stays as the link gave it).
    // (A panel shown on a viewer already in use takes the page's address as it is: it opens nothing and sets nothing from it.)
    const link = this.sharing.linkOfPage();
    if (mount.openFirst) viewer.setSettings({ renderer: link.renderer, order: link.order, cameraMode: link.camera === null && link.cameraMode === 'orbit' ? viewer.settings.cameraMode : link.cameraMode });
    this.gui.showSettings(viewer.settings, ['renderer', 'order', 'cameraMode']);
    this.views = new ViewsPanel(this.gui.gui, viewer, { showError: (title, text) => this.messages.show(title, text) });
    this.pins = new ViewsPins(viewer, () => this.views.toggleTour());
    viewer.on('viewschange', () => this.sharing.scheduleUrlUpdate());
    this.layout = new PageLayout(viewer, this.gui, this.messages, this.stats.dom, (shown) => (this.stats.shown = shown));
    const showLoadError = bindViewer(viewer, { gui: this.gui, messages: this.messages, progress: this.progress, sharing: this.sharing });
    new PanelFrames(viewer, this.gui, this.stats, this.progress, () => !this.layout.uiHidden);
    viewer.on('settingschange', (changed) => this.viewerChanged(changed));
    canvas.after(this.sharing.cameraPicker.dom);
    window.addEventListener('keydown', (event) => {
      if (isTypingKey(event) || event.ctrlKey || event.metaKey || event.altKey) return;
      const key = event.key.toLowerCase();
      if (key === 'p') void this.sharing.screenshot(this.settings.screenshotScale, 'scene');
      else if (key === 'u') this.layout.setUiHidden(!this.layout.uiHidden);
      else if (key === 'c') this.setCameraMode(viewer.settings.cameraMode === 'fly' ? 'orbit' : 'fly');
      else if (PREVIOUS_VIEW_KEYS.has(event.key)) void viewer.views.previous();
      else if (NEXT_VIEW_KEYS.has(event.key)) void viewer.views.next();
    }, { ...PAGE_KEY_LISTENER, signal });
    for (const name of ['background', 'sortMode', 'keyBits'] as const) this.viewerChanged([name]);
    // A link for embedding: ui=0 starts with the panels hidden (U shows them).
    if (new URLSearchParams(location.search).get('ui') === '0') this.layout.setUiHidden(true);
    const drop = (this.drop = new DropZone(window, (transfer) => void this.open(transfer), signal));
    canvas.after(this.pins.dom, this.pins.bar, this.views.picker.dom, this.stats.dom, this.help.hint, drop.dom);
    this.layout.watch(signal);
    if (mount.openFirst) void this.openFirst(link.camera, showLoadError, mount.first);
  }

  get hidden(): boolean {
    return this.layout.uiHidden;
  }

  setHidden(hidden: boolean): void {
    this.layout.setUiHidden(hidden);
  }

  /** Takes the page off `root` and <body>, with its listeners, observers and timers; the viewer's canvas stays the viewer's. */
  destroy(): void {
    this.lifetime.abort();
    this.sharing.dispose();
    this.stats.dispose();
    this.gui.gui.destroy();
    for (const node of [...this.root.children]) if (node !== this.viewer.canvas) node.remove();
    for (const node of [this.stats.dom, this.help.hint, this.drop.dom, this.sharing.cameraPicker.dom, this.pins.dom, this.pins.bar, this.views.picker.dom]) node.remove();
    document.body.classList.remove(...BODY_CLASSES);
    document.body.style.backgroundColor = '';
    this.viewer.canvas.classList.remove('viewer-canvas');
    if (window.__splatsortViewer === this.viewer) {
      delete window.__splatsortViewer;
      delete window.__splatsort;
    }
  }

  /**
   * The link's views (`views=`) and its scene, from the link's camera, or
   * where the link names none, from the first view (the scene waits for
   * the views then): a views file sets the scene's first view.
   */
  private async openFirst(camera: CameraPose | null, showLoadError: (name: string, reason: string) => void, first: PanelMount['first']): Promise<void> {
    const views = this.viewer.views.openLink(new URLSearchParams(location.search)).catch((error: unknown) => {
      this.messages.show('Could not open the link\'s views', error instanceof Error ? error.message : String(error));
    });
    if (camera === null) await views;
    await openFirstScene(this.viewer, this.sharing, camera ?? this.viewer.views.list()[0]?.camera ?? null, showLoadError, first);
  }

  /** Opens picked files or a drop (a scene's files, or a folder); a local file has no address a link could name. */
  private async open(source: File[] | DataTransfer): Promise<void> {
    if ((await this.viewer.load(source)) === 'opened') this.sharing.setSceneUrl(null);
  }

  /** A setting changed in the panel: the viewer's go to the viewer (which says what changed), the page's are the page's. */
  private panelChanged(name: keyof PanelSettings): void {
    if (name === 'showStats') this.layout.setStatsShown(this.settings.showStats);
    else if (name !== 'screenshotScale' && name !== 'statsCollapsed') this.viewer.setSettings({ [name]: this.settings[name] } as Partial<ViewerSettings>);
  }

  /** Settings the viewer changed (from the panel, a key, a link, a camera file, a scene opened): the panel and the page follow. */
  private viewerChanged(changed: readonly (keyof ViewerSettings)[]): void {
    const { viewer, gui } = this;
    const s = viewer.settings;
    gui.showSettings(s, changed);
    for (const name of changed) {
      if (name === 'upAxis' || name === 'cameraMode' || name === 'renderer' || name === 'order') {
        this.sharing.scheduleUrlUpdate();
      } else if (name === 'background') {
        document.body.style.backgroundColor = s.background;
      } else if (name === 'sortMode') {
        gui.setKeyBitsEnabled(s.sortMode !== 'cpu-counting16');
        gui.set('requestedSort', SORT_MODE_LABELS[s.sortMode]);
      } else if (name === 'antiAliasing') {
        gui.showScreenFilter(viewer.screenFilter);
      } else if (name === 'measureOrder' || name === 'keyBits') {
        // Auto measures on its own every few frames; without either, nothing is measured.
        if (!s.measureOrder && s.keyBits !== 'auto') gui.showOrderError(null);
      }
    }
  }

  /** Orbit or fly (the C key). */
  private setCameraMode(mode: CameraMode): void {
    this.viewer.setSettings({ cameraMode: mode });
  }
}
