/**
 * The viewer page: a full-window WebGPU canvas showing the Viewer's scene
 * (src/app/viewer.ts), its settings panel, the performance panels and the
 * overlays. The page is a view of the Viewer: it hands it input, settings
 * and the window's size, and shows what the Viewer publishes
 * (src/ui/viewer-bindings.ts); the animation loop is src/lib/frame-loop.ts.
 *
 * For automated checks the page sets `window.__splatsort` to the Viewer's
 * state and `window.__splatsortViewer` to the Viewer itself (to drive it),
 * and sets `document.body.dataset.viewer` to 'ready' once the first scene
 * has been drawn ('load-failed' if that scene could not be opened).
 */
import type { Viewer } from '../app/viewer';
import { createViewerState, type ViewerState } from '../app/session/viewer-state';
import type { ViewerSettings } from '../app/session/viewer-settings';
import type { CameraMode } from '../app/camera/fly-motion';
import { openFirstScene } from '../app/first-scene';
import { flippedUpAxis } from '../app/camera/up-axis';
import { sceneName } from './scene-names';
import { readDroppedFolder, type DroppedEntry } from './dropped-files';
import { worldOfFolderInWorkers } from '../app/world/world-opening-web';
import { CAMERA_HELP, CameraInput, TOUCH_HELP } from '../lib/camera-input';
import { DropZone, FilePicker, HelpOverlay, MessageOverlay, ProgressBar, el, reportGpuErrors } from './overlays';
import { isTypingKey, PAGE_KEY_LISTENER } from '../lib/keys';
import { StatsPanels } from './stats-panels';
import { ViewSharing } from './view-sharing';
import { encodePng } from '../lib/capture';
import { SORT_LABELS, ViewerGui } from './viewer-gui';
import { FrameLoop } from '../lib/frame-loop';
import { PanelFrames } from './panel-frames';
import { PageLayout } from './page-layout';
import { bindViewer } from './viewer-bindings';
import { saveSceneAs } from './save-scene';
import './style.css';

const DEFAULT_SCENE = new URL('../../data/default-scene.ply', import.meta.url).href;
/** The page's own keys, for the help (the camera's are CAMERA_HELP). */
const PAGE_KEYS: ReadonlyArray<[string, string]> = [
  ['C', 'Switch between orbit and fly mode'],
  ['P', 'Screenshot'],
  ['U', 'Hide or show the panels (the link flag ui=0 starts hidden)'],
];
/** A touch screen is the main pointer (a phone, a tablet): its help shows the touch controls. */
const IS_TOUCH_SCREEN = matchMedia('(pointer: coarse)').matches;

/** What the page opens: dropped or picked files, or an address. */
export type PageViewer = Viewer<File[] | string>;

/** What the page shows of the GPU. */
export interface PageGpu {
  adapterName: string;
  hasTimestamps: boolean;
}

declare global {
  interface Window {
    __splatsort?: ViewerState;
    __splatsortViewer?: PageViewer;
  }
}

export class ViewerPage {
  private readonly canvas = el('canvas', { className: 'viewer-canvas', ariaLabel: 'Splat scene' });
  private readonly messages = new MessageOverlay();
  private readonly progress = new ProgressBar(() => this.viewer.cancel());
  private readonly help = IS_TOUCH_SCREEN
    ? new HelpOverlay(TOUCH_HELP, window, () => {}, { touch: true })
    : new HelpOverlay([...CAMERA_HELP, ...PAGE_KEYS], window, () => {
      this.messages.dismissAll();
      this.viewer.cancel();
    });
  private readonly picker = new FilePicker((files) => void this.openFiles(files));
  private viewer!: PageViewer;
  private gui!: ViewerGui;
  private sharing!: ViewSharing;
  private layout!: PageLayout;
  private input!: CameraInput;

  private constructor() {}

  /** Takes over the page's root element (`#app`). */
  static mount(selector = '#app'): ViewerPage {
    const root = document.querySelector<HTMLElement>(selector);
    if (!root) throw new Error(`Splatsort: the page has no ${selector} element`);
    document.body.classList.add('viewer');
    const page = new ViewerPage();
    root.replaceChildren(page.canvas, page.picker.dom, page.progress.dom, page.help.dom, page.messages.dom);
    return page;
  }

  /** Shows why the viewer could not start (console and page). */
  showFatal(error: unknown): void {
    console.error(error);
    const reason = error instanceof Error ? error.message : String(error);
    const state = createViewerState(() => 0);
    state.lastError = `Splatsort could not start: ${reason}`;
    window.__splatsort = state;
    this.messages.show('Splatsort could not start', reason, { dismissible: false });
    document.body.dataset.viewer = 'failed';
  }

  async start(viewer: PageViewer, gpu: PageGpu): Promise<void> {
    this.viewer = viewer;
    window.__splatsort = viewer.state;
    window.__splatsortViewer = viewer;
    const context = this.canvas.getContext('webgpu');
    if (!context) throw new Error('The canvas has no WebGPU context');
    context.configure({ device: viewer.core.device, format: viewer.format, alphaMode: 'opaque' });
    const stats = new StatsPanels(gpu.hasTimestamps, viewer.settings.statsCollapsed, (collapsed) => {
      viewer.settings.statsCollapsed = collapsed;
    });
    this.gui = new ViewerGui(viewer.settings, gpu.adapterName, {
      openFile: () => this.picker.open(),
      resetCamera: () => viewer.resetCamera(),
      copyViewLink: () => void this.sharing.copyLink(),
      saveCamera: () => this.sharing.saveCamera(),
      loadCamera: () => this.sharing.cameraPicker.open(),
      screenshot: () => void this.sharing.screenshot(viewer.settings.screenshotScale),
      fullscreen: () => this.layout.toggleFullscreen(),
      level: () => viewer.level(),
      flipUp: () => this.flipUp(),
      hideUi: () => this.layout.setUiHidden(true),
      saveScene: () => void saveSceneAs(viewer, this.gui.saving, this.messages),
      changed: (name) => this.settingChanged(name),
    });
    this.sharing = this.createSharing();
    // The link's renderer and order, shown in the panel.
    viewer.settings.renderer = this.sharing.rendererFromPage();
    viewer.settings.order = this.sharing.orderFromPage();
    this.gui.gui.controllersRecursive().forEach((c) => c.updateDisplay());
    this.layout = new PageLayout(this.canvas, viewer, this.gui, this.messages, stats.dom);
    bindViewer(viewer, { gui: this.gui, messages: this.messages, progress: this.progress, sharing: this.sharing });
    const loop = new FrameLoop(viewer, this.canvas, context, new PanelFrames(viewer, this.gui, stats));
    reportGpuErrors(viewer.core.device, this.messages, (text, lost) => {
      viewer.state.lastError = text;
      if (lost) loop.stop();
    });
    const initialView = this.sharing.viewFromPage();
    this.canvas.after(this.sharing.cameraPicker.dom);
    this.input = new CameraInput(this.canvas, viewer.camera, {
      fly: viewer.rig.fly,
      bounds: () => viewer.state.scene?.bounds,
      keys: window,
      onChange: () => {
        viewer.cameraMoved();
        this.sharing.scheduleUrlUpdate();
      },
      onPick: (x, y) => void viewer.pick(x, y),
      onFlipUp: () => this.flipUp(),
    });
    window.addEventListener('keydown', (event) => {
      if (isTypingKey(event) || event.ctrlKey || event.metaKey || event.altKey) return;
      const key = event.key.toLowerCase();
      if (key === 'p') void this.sharing.screenshot(viewer.settings.screenshotScale);
      else if (key === 'u') this.layout.setUiHidden(!this.layout.uiHidden);
      else if (key === 'c') this.setCameraMode(viewer.settings.cameraMode === 'fly' ? 'orbit' : 'fly');
    }, PAGE_KEY_LISTENER);
    for (const name of ['background', 'sortMode', 'keyBits'] as const) this.settingChanged(name);
    // A link for embedding: ui=0 starts with the panels hidden (U shows them).
    if (new URLSearchParams(location.search).get('ui') === '0') this.layout.setUiHidden(true);
    const drop = new DropZone(window, (files) => void this.openFiles(files), (entries) => void this.openFolder(entries));
    this.canvas.after(stats.dom, this.help.hint, drop.dom);
    this.layout.watch(loop);
    // The controls exist from here on: the link's camera mode reaches them (the address stays as the link gave it).
    this.setCameraMode(this.sharing.modeFromPage(), false);

    // Any ?url= value gives a scene to look at: a link that cannot be
    // opened leaves its message up over the default scene.
    const first = await openFirstScene(viewer, {
      link: new URLSearchParams(location.search).get('url'),
      pageUrl: location.href,
      view: initialView,
      defaultUrl: DEFAULT_SCENE,
      defaultName: 'default-scene.ply',
    });
    if (first.outcome === 'opened') this.sharing.setSceneUrl(first.failedLink ?? first.sceneUrl);
    if (first.outcome === 'failed' && !viewer.state.scene) document.body.dataset.viewer = 'load-failed';
  }

  /** Opens a dropped folder: a Streamed SOG world, else its files as if dropped one by one. */
  private async openFolder(roots: DroppedEntry[]): Promise<void> {
    try {
      const dropped = await readDroppedFolder(roots);
      if ('files' in dropped) {
        await this.openFiles(dropped.files);
        return;
      }
      const outcome = await this.viewer.openWorld(worldOfFolderInWorkers(dropped.entries), { name: dropped.world.name });
      // A local folder has no address a link could name.
      if (outcome === 'opened') this.sharing.setSceneUrl(null);
    } catch (error) {
      this.messages.show('Could not open the folder', error instanceof Error ? error.message : String(error));
    }
  }

  /** Opens dropped or picked files: a scene file, or a SOG meta.json with its images. */
  private async openFiles(files: File[]): Promise<void> {
    const outcome = await this.viewer.open(files, { name: sceneName(files) });
    // A local file has no address a link could name.
    if (outcome === 'opened') this.sharing.setSceneUrl(null);
  }

  private createSharing(): ViewSharing {
    const viewer = this.viewer;
    return new ViewSharing({
      camera: viewer.camera,
      size: () => [this.canvas.width, this.canvas.height],
      settings: viewer.settings,
      setView: (view) => viewer.setView(view),
      applyMode: (mode) => this.setCameraMode(mode),
      applyLook: (background, shDegree) => {
        this.gui.setShDegree(shDegree);
        viewer.settings.background = background;
        this.gui.gui.controllersRecursive().forEach((c) => c.updateDisplay());
        this.settingChanged('background');
      },
      capture: async (width, height) => encodePng(await viewer.capture(width, height), width, height),
      showMessage: (title, text, tone) => this.messages.show(title, text, { tone }),
      showNotice: (title, text) => this.messages.notify(title, text),
    });
  }

  private settingChanged(name: keyof ViewerSettings): void {
    const { viewer, gui } = this;
    const s = viewer.settings;
    if (name === 'upAxis') {
      viewer.upAxisChosen();
      this.sharing.scheduleUrlUpdate();
    } else if (name === 'cameraMode') {
      this.input.mode = s.cameraMode;
      this.sharing.scheduleUrlUpdate();
    } else if (name === 'renderer' || name === 'order') {
      this.sharing.scheduleUrlUpdate();
    } else if (name === 'showStats') {
      this.layout.setStatsShown(s.showStats);
    } else if (name === 'background') {
      document.body.style.backgroundColor = s.background;
    } else if (name === 'sortMode') {
      gui.setKeyBitsEnabled(s.sortMode !== 'cpu-counting16');
      gui.set('requestedSort', SORT_LABELS[s.sortMode]);
    } else if (name === 'worldBudget') {
      viewer.worldBudgetChanged();
    } else if (name === 'antiAliasing') {
      gui.showScreenFilter(s.antiAliasing, viewer.state.scene?.antiAliasing);
    } else if (name === 'view') {
      // The counts shown are of the view now on screen only.
      viewer.core.reads.difference = null;
    } else if (name === 'measureOrder' || name === 'keyBits') {
      // Auto measures on its own every few frames; without either, nothing is measured.
      if (!s.measureOrder && s.keyBits !== 'auto') gui.showOrderError(null);
    }
  }

  /** Turns the scene upside down (the I key, the panel's hint): the opposite up axis, the scene framed anew. */
  private flipUp(): void {
    this.viewer.settings.upAxis = flippedUpAxis(this.viewer.settings.upAxis, this.viewer.camera.up);
    this.gui.refreshUpAxis();
    this.settingChanged('upAxis');
  }

  /** Orbit or fly (the C key, a link, a camera file), shown in the panel; `link`: the view link follows. */
  private setCameraMode(mode: CameraMode, link = true): void {
    this.viewer.settings.cameraMode = mode;
    this.input.mode = mode;
    this.gui.refreshCameraMode();
    if (link) this.sharing.scheduleUrlUpdate();
  }
}
