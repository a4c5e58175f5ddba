/**
 * The viewer's settings panel (lil-gui): what the user asks for lives in
 * `ViewerSettings`, what the viewer actually does (the active sort mode, the
 * key bits in use, the CPU order's age) in `ViewerInfo`, shown read-only.
 * The two differ, e.g. while the first CPU order is still being sorted.
 *
 * Viewing comes first: the Scene and View folders are open; the sort and
 * render controls (with the heat-map views) and saving wait in closed
 * folders one click away, and each of those stays as the user left it
 * (remembered.ts). Read-only rows show their whole text, wrapping.
 */

import GUI, { type Controller } from 'lil-gui';
import {
  FLIP_UP_KEY, PER_PIXEL_MAX_COST, RENDERER_SETTINGS, SAVE_FORMATS, SORT_MODE_LABELS,
  type Bounds, type CaptureFraming, type FrameView, type HeatMapCount, type OrderError, type OrderSetting, type RendererChoice, type ScreenFilterInUse, type SortMode, type SplatOrderChoice, type ViewerSettings, type WorldState,
} from '../lib/index';
import { el } from './overlays';
import { recall, remember } from './remembered';
import { describeOrder, describeRenderer, formatBytes } from './scene-facts';
import { boxText, defaultSaveChoice, type SaveChoice } from './save-scene';

/**
 * Windows narrower than this (phones, narrow tabs) start with the panel
 * closed, and an open panel there is a sheet along the bottom: the scene
 * is framed above it (src/ui/page-layout.ts).
 */
export const SIDE_PANEL_MIN_WIDTH = 720;

/** What the panel edits: the viewer's settings, and the page's own (the screenshot's size, the stats panels shown and folded). */
export interface PanelSettings extends ViewerSettings {
  /** Screenshot size as a multiple of the canvas size. */
  screenshotScale: number;
  /** Show the stats panels and the timing chart. */
  showStats: boolean;
  /** The stats panels and the timing chart folded to one line of timings (their toggle), leaving the scene more room. */
  statsCollapsed: boolean;
}

/** Read-only displays; strings so they show exactly what the viewer decided. */
export interface ViewerInfo {
  scene: string;
  splats: string;
  requestedSort: string;
  activeSort: string;
  keyBitsActive: string;
  orderAge: string;
  /** The last measured ordering error, or why there is none. */
  orderError: string;
  /** What the heat map view on screen (the sort difference, the per-pixel order) counts, or why it shows nothing. */
  difference: string;
  /** The screen filter drawn with, and why. */
  screenFilter: string;
  /** The renderer drawing, for auto the times behind its choice (or that it is measuring), and the per-pixel order where it drew. */
  renderer: string;
  /** The order the pixels were blended in, and why (auto: the times behind its choice, or that it is measuring). */
  orderDrawn: string;
  /** The scene file's SH degree, size, load time and extent; the frame rate. */
  sceneSh: string;
  fileSize: string;
  loadTime: string;
  extent: string;
  fps: string;
  /** Where the up axis came from: the scene's own convention, a guess from its splats, a link or by hand. */
  upSource: string;
  adapter: string;
}

export interface ViewerGuiActions {
  openFile(): void;
  resetCamera(): void;
  copyViewLink(): void;
  saveCamera(): void;
  loadCamera(): void;
  /** Save a PNG of the view: framed on the scene, or as the canvas shows it beside the panels. */
  screenshot(framing: CaptureFraming): void;
  fullscreen(): void;
  /** Make what is up on screen the scene's up. */
  level(): void;
  /** Turn the scene upside down: the up axis to its opposite (FLIP_UP_KEY). */
  flipUp(): void;
  /** Hide the panel, the stats and the help hint (U; the page's `ui=0`). */
  hideUi(): void;
  /** Save the scene on screen as the Save folder says (`ViewerGui.saving`). */
  saveScene(): void;
  /** A setting changed in the panel (`ViewerGui.settings`). */
  changed(name: keyof PanelSettings): void;
}

export class ViewerGui {
  readonly gui: GUI;
  readonly info: ViewerInfo;
  private readonly infoControllers: Controller[] = [];
  /** Longer texts than a read-only row shows, for its tooltip (else the tooltip is the value). */
  private readonly tooltips: Partial<Record<keyof ViewerInfo, string>> = {};
  private readonly keyBitsController: Controller;
  private readonly shDegreeController: Controller;
  /** Under the file's name while its up axis is only the convention: it may be upside down. */
  private readonly upHint: HTMLButtonElement;
  /** Each read-only row's text as shown: it wraps (an input would cut it). */
  private readonly texts = new Map<Controller, HTMLElement>();
  /** Shown only while a world is open (it means nothing for one scene). */
  private readonly budgetController: Controller;
  /** What "save scene as" writes: the format, which splats, the box. */
  readonly saving: SaveChoice = defaultSaveChoice();
  private readonly boxController: Controller;
  private dirty = true;

  constructor(
    readonly settings: PanelSettings,
    adapter: string,
    actions: ViewerGuiActions,
  ) {
    this.info = { scene: '—', splats: '—', requestedSort: '', activeSort: '', keyBitsActive: '', orderAge: '—', orderError: 'off', difference: 'off', screenFilter: '—', renderer: '—', orderDrawn: '—', sceneSh: '—', fileSize: '—', loadTime: '—', extent: '—', fps: '—', upSource: '—', adapter };
    const gui = new GUI({ title: 'Splatsort' });
    this.gui = gui;
    const changed = (name: keyof PanelSettings) => () => actions.changed(name);
    const readOnly = (folder: GUI, key: keyof ViewerInfo, label: string) => {
      const c = folder.add(this.info, key).name(label).disable();
      c.domElement.classList.add('read-only');
      // The input keeps the value (lil-gui writes it there); the text beside it shows it whole.
      const text = el('span', { className: 'read-only-text' });
      c.$widget.append(text);
      this.texts.set(c, text);
      this.infoControllers.push(c);
      return c;
    };

    const scene = gui.addFolder('Scene');
    scene.add({ open: () => actions.openFile() }, 'open').name('open scene…');
    scene.add({ reset: () => actions.resetCamera() }, 'reset').name('reset camera');
    const upAxis = scene
      .add(settings, 'upAxis', { '+y': '+y', '−y': '-y', '+z': '+z', '−z': '-z', '+x': '+x', '−x': '-x', levelled: 'levelled' })
      .name('up axis')
      .onChange(changed('upAxis'));
    // Short labels fit the row; what they mean is in the tooltip.
    upAxis.domElement.title =
      `The scene's up: +y for the default scene, −y for captured scenes (COLMAP, INRIA trainers), levelled after "level". ${FLIP_UP_KEY} turns it over.`;
    scene.add({ level: () => actions.level() }, 'level').name('level (up = screen up)');
    const view = gui.addFolder('View');
    view.add({ copy: () => actions.copyViewLink() }, 'copy').name('copy view link');
    view.add({ save: () => actions.saveCamera() }, 'save').name('save camera');
    view.add({ load: () => actions.loadCamera() }, 'load').name('load camera…');
    view.add(settings, 'screenshotScale', { '1× canvas': 1, '2× canvas': 2, '4× canvas': 4 }).name('screenshot size');
    view.add({ shot: () => actions.screenshot('scene') }, 'shot').name('screenshot (P)');
    view.add({ shot: () => actions.screenshot('screen') }, 'shot').name('screenshot as on screen');
    view.add(settings, 'cameraMode', { orbit: 'orbit', fly: 'fly' }).name('camera (C)').onChange(changed('cameraMode'));
    view.add(settings, 'smoothCamera').name('smooth camera').onChange(changed('smoothCamera'));
    view.add(settings, 'autoRotate').name('auto-rotate').onChange(changed('autoRotate'));
    view.add({ fullscreen: () => actions.fullscreen() }, 'fullscreen').name('fullscreen');
    view.add(settings, 'showStats').name('stats panels').onChange(changed('showStats'));
    view.add({ hide: () => actions.hideUi() }, 'hide').name('hide panels (U)');
    const file = readOnly(scene, 'scene', 'file');
    // A touch screen has no key to press: the hint itself is the button to tap.
    const touch = matchMedia('(pointer: coarse)').matches;
    this.upHint = el('button', { type: 'button', className: 'up-hint', hidden: true, textContent: touch ? 'upside down? tap to turn it over' : `upside down? press ${FLIP_UP_KEY}` });
    this.upHint.title = 'The file does not say which way is up and its splats show no clear ground: it opened with −y up, the convention of captured scenes. ' +
      (touch ? 'Tap to turn it over.' : `Click or press ${FLIP_UP_KEY} to turn it over.`);
    this.upHint.addEventListener('click', () => actions.flipUp());
    file.domElement.after(this.upHint);
    readOnly(scene, 'splats', 'splats');
    const budgets = { auto: 'auto', '1M': 1_000_000, '2M': 2_000_000, '4M': 4_000_000, '8M': 8_000_000, '16M': 16_000_000 };
    const budget = (this.budgetController = scene.add(settings, 'worldBudget', budgets).name('world budget').onChange(changed('worldBudget')).hide());
    budget.domElement.title = 'a Streamed SOG world (lod-meta.json): the most splats a frame draws; auto: 4M, 1M on small GPUs. Far regions draw coarser levels to stay under it';
    readOnly(scene, 'sceneSh', 'SH in file');
    readOnly(scene, 'fileSize', 'file size');
    readOnly(scene, 'loadTime', 'load time');
    readOnly(scene, 'extent', 'extent');
    readOnly(scene, 'fps', 'FPS');
    readOnly(scene, 'upSource', 'up axis from');

    // Sort, render and their heat maps: for looking into the sort, not for viewing.
    const advanced = rememberOpen(gui.addFolder('Sort & render'), 'sort-render-open');
    const sort = advanced.addFolder('Sort');
    const modes = Object.fromEntries(Object.entries(SORT_MODE_LABELS).map(([mode, label]) => [label, mode]));
    sort.add(settings, 'sortMode', modes).name('sort mode').onChange(changed('sortMode'));
    this.keyBitsController = sort.add(settings, 'keyBits', { auto: 'auto', '16 bits': 16, '24 bits': 24, '32 bits': 32 }).name('key bits').onChange(changed('keyBits'));
    sort.add(settings, 'freezeOrder').name('freeze order').onChange(changed('freezeOrder'));
    sort.add(settings, 'measureOrder').name('measure ordering error').onChange(changed('measureOrder'));
    readOnly(sort, 'requestedSort', 'requested');
    readOnly(sort, 'activeSort', 'active');
    readOnly(sort, 'keyBitsActive', 'key bits active');
    readOnly(sort, 'orderAge', 'CPU order age');
    readOnly(sort, 'orderError', 'ordering error');
    const views: Record<string, FrameView> = { picture: 'picture', 'sort difference (heat map)': 'difference', 'per-pixel order (heat map)': 'pixel-order' };
    const show = sort.add(settings, 'view', views).name('show').onChange(changed('view'));
    show.domElement.title = 'sort difference: where the order on screen changes the picture against the exact order; per-pixel order: where ordering each pixel\'s splats by their own depth changes it against their centres\' depths (drawn with tiles)';
    readOnly(sort, 'difference', 'pixels off');

    const render = advanced.addFolder('Render');
    this.shDegreeController = render.add(settings, 'shDegree', 0, 3, 1).name('SH degree').onChange(changed('shDegree'));
    render.add(settings, 'splatScale', 0.1, 2, 0.01).name('splat scale').onChange(changed('splatScale'));
    render.addColor(settings, 'background').name('background').onChange(changed('background'));
    render.add(settings, 'antiAliasing', { auto: 'auto', off: 'off', on: 'on' }).name('anti-aliasing').onChange(changed('antiAliasing'));
    readOnly(render, 'screenFilter', 'filter');
    const renderer = render.add(settings, 'renderer', Object.fromEntries(RENDERER_SETTINGS.map((r) => [r, r]))).name('renderer').onChange(changed('renderer'));
    renderer.domElement.title = 'quads: every splat a blended quad, back to front; tiles: a compute pass per 16×16 tile, front to back; auto: both timed on each new scene and window size, the faster kept';
    const orders: Record<string, OrderSetting> = { auto: 'auto', 'centre depth': 'centre-depth', 'per pixel': 'per-pixel' };
    const order = render.add(settings, 'order', orders).name('order').onChange(changed('order'));
    order.domElement.title = 'centre depth: every splat ordered by its centre\'s depth, one order for the whole frame (overlapping splats can swap at once as the camera turns: a pop); ' +
      'per pixel: each pixel blends its splats by their own depth along its ray; only tiles draw it, so it draws with tiles whatever the renderer; ' +
      `auto: where auto's renderer chose tiles, both orders timed and per pixel kept where its frame takes at most ${PER_PIXEL_MAX_COST.toFixed(2)}× the centre-depth one`;
    readOnly(render, 'renderer', 'drawing with');
    readOnly(render, 'orderDrawn', 'order drawn');

    const save = rememberOpen(gui.addFolder('Save scene as'), 'save-open');
    const formats = Object.fromEntries(SAVE_FORMATS.map((f) => [f.label === f.extension ? f.label : `${f.extension} (${f.label})`, f.id]));
    const format = save.add(this.saving, 'format', formats).name('format');
    const keeps = () => SAVE_FORMATS.find((f) => f.id === this.saving.format)?.keeps ?? '';
    format.domElement.title = keeps();
    format.onChange(() => (format.domElement.title = keeps()));
    save.add(this.saving, 'keep', { 'all splats': 'all', 'only what is in view': 'in-view', 'only inside the box': 'box' })
      .name('keep')
      .onChange(() => this.boxController.enable(this.saving.keep === 'box'));
    this.boxController = save.add(this.saving, 'box').name('box (min, max)').disable();
    this.boxController.domElement.title = 'minx, miny, minz, maxx, maxy, maxz in scene coordinates: the splats whose centre is inside';
    save.add({ save: () => actions.saveScene() }, 'save').name('save');

    readOnly(render, 'adapter', 'adapter');
    // On a phone-sized window the open panel would hide most of the scene.
    if (window.innerWidth < SIDE_PANEL_MIN_WIDTH) gui.close();
    this.update();
  }

  /** Calls `listener` whenever the whole panel opens or closes (not its folders). */
  onPanelToggle(listener: () => void): void {
    this.gui.onOpenClose((changed) => {
      if (changed === this.gui) listener();
    });
  }

  /** Caps the panel's height (its folders scroll inside it); null: the whole window's. */
  setMaxHeight(pixels: number | null): void {
    this.gui.domElement.style.maxHeight = pixels === null ? '' : `${Math.max(120, pixels)}px`;
  }

  /** Shows settings the viewer changed (in the panel, by a key, a link, a camera file, a scene opened). */
  showSettings(settings: Readonly<ViewerSettings>, changed: readonly (keyof ViewerSettings)[]): void {
    for (const key of changed) (this.settings as unknown as Record<string, unknown>)[key] = settings[key];
    for (const c of this.gui.controllersRecursive()) if (c.object === this.settings) c.updateDisplay();
  }

  /** Shows or hides the offer to turn the scene over (its up is only the convention). */
  showUpHint(show: boolean): void {
    this.upHint.hidden = !show;
  }

  /**
   * A new scene: the SH slider runs up to its degree and starts there (the
   * scene as trained); an SH-0 scene has nothing to choose.
   */
  setSceneShDegree(degree: number): void {
    this.shDegreeController.max(Math.max(degree, 1)).enable(degree > 0).updateDisplay();
  }

  /** A new scene: the box to save starts as the bulk of its splats (its framing bounds). */
  setSaveBox(bounds: Bounds): void {
    this.saving.box = boxText(bounds);
    this.boxController.updateDisplay();
  }

  /** The counting sort has a fixed 16-bit key: the key-bit choice does not apply to it. */
  setKeyBitsEnabled(enabled: boolean): void {
    this.keyBitsController.enable(enabled);
  }

  /** Shows what the sort is doing (a few times a second, not every frame). */
  showOrder(o: { requested: SortMode; waiting: boolean; active: string; keyBits: number; auto: boolean; frozen: boolean; age: number | null }): void {
    this.set('requestedSort', SORT_MODE_LABELS[o.requested] + (o.waiting ? ' (waiting for first order)' : ''));
    this.set('activeSort', o.active);
    this.set('keyBitsActive', `${o.keyBits}${o.frozen ? ' (frozen)' : o.auto ? ' (auto)' : ''}`);
    this.set('orderAge', o.age === null ? '—' : `${o.age} frame${o.age === 1 ? '' : 's'}`);
  }

  /**
   * Shows the last ordering error measured: the share of adjacent drawn
   * pairs inverted, and the largest inversion as a fraction of the visible
   * depth range ('off' when none is measured).
   */
  showOrderError(m: Readonly<OrderError> | null): void {
    if (!m) {
      this.set('orderError', 'off');
      return;
    }
    const share = m.invertedFraction === 0 ? '0' : `${(100 * m.invertedFraction).toPrecision(2)} %`;
    this.set('orderError', `${share} · max ${m.largest === 0 ? '0' : m.largest.toExponential(1)} of range (${m.keyBits} bits)`);
  }

  /**
   * Shows what the heat map `view` counted: the share of pixels the order
   * on screen changes by at least one 8-bit level against the exact order
   * (or the per-pixel order against the centre-depth order), and the
   * largest change ('off' for the picture). Before the first count it says
   * which step it waits for: the exact order's sort or the tile renderer
   * being made (`prepared`), then the first frame drawn both ways being
   * counted (on a software adapter each takes a few frames, seconds apart).
   */
  showDifference(m: HeatMapCount | null, view: FrameView, prepared: boolean): void {
    if (view === 'picture') this.set('difference', 'off');
    else if (!prepared) this.set('difference', view === 'difference' ? 'preparing the exact order…' : 'preparing the tile renderer…');
    else if (!m) this.set('difference', 'counting…');
    else if (m.pixels === 0) this.set('difference', view === 'difference' ? 'none (exact order)' : 'none (the orders agree)');
    else this.set('difference', `${(100 * m.fraction).toPrecision(2)} % · max ${m.largest}/255 · mean ${m.mean.toFixed(1)}`);
  }

  /** Shows the screen filter the frames are drawn with, and where it comes from. */
  showScreenFilter(filter: ScreenFilterInUse): void {
    // Short in the row (the panel is narrow); in full in its tooltip.
    const from = filter.chosenBy === 'file' ? ', from file' : filter.chosenBy === 'world' ? ', for a world' : '';
    this.set('screenFilter', `${filter.variance} px²${filter.compensate ? ', compensated' : ''}${from}`, `${filter.description} (${filter.why})`);
  }

  /** Shows the world budget row while a world is open, and hides it otherwise. */
  showWorldRows(world: boolean): void {
    if (this.budgetController._hidden === world) this.budgetController.show(world);
  }

  /** A world's rows: the splats drawn against the budget, and its chunks and bytes loaded (the scene's file size row). */
  showWorld(world: Readonly<WorldState>): void {
    const count = (n: number) => n.toLocaleString('en-US');
    this.set('splats', `${count(world.drawnSplats)} drawn`, `at most ${count(world.budget)} a frame (the world budget); far regions draw coarser levels, up to ${world.thresholdPx.toFixed(2)} px of error now (more where the budget needs it)`);
    const way = world.inFlight > 0 ? `, ${world.inFlight} on the way` : world.settled ? '' : ', waiting';
    this.set('fileSize', `${formatBytes(world.bytesLoaded)}: ${count(world.chunksLoaded)} of ${count(world.chunks)} chunks${way}`, `chunks loaded since the world opened (a chunk evicted and loaded again counts again); ${formatBytes(world.gpuBytes)} of GPU memory hold its splats`);
  }

  /** Shows the renderer drawing, for auto where its choice stands, and the order the pixels were blended in and why. */
  showRenderer(choice: Readonly<RendererChoice>, order: Readonly<SplatOrderChoice>): void {
    const renderer = describeRenderer(choice, order.order);
    this.set('renderer', renderer.text, renderer.why);
    const drawn = describeOrder(order);
    this.set('orderDrawn', drawn.text, drawn.why);
  }

  /** A read-only display's text and tooltip. */
  get(key: keyof ViewerInfo): { value: string; tooltip: string | undefined } {
    return { value: this.info[key], tooltip: this.tooltips[key] };
  }

  /** Sets a read-only display; it is redrawn on the next `update()`. */
  set(key: keyof ViewerInfo, value: string, tooltip?: string): void {
    if (this.info[key] === value && this.tooltips[key] === tooltip) return;
    this.info[key] = value;
    this.tooltips[key] = tooltip;
    this.dirty = true;
  }

  /** Redraws the read-only displays when one of them changed: whole texts, their tooltips the longer story where there is one. */
  update(): void {
    if (!this.dirty) return;
    this.dirty = false;
    for (const c of this.infoControllers) {
      c.updateDisplay();
      const text = String(c.getValue());
      const shown = this.texts.get(c)!;
      if (shown.textContent !== text) shown.textContent = text;
      c.domElement.title = this.tooltips[c.property as keyof ViewerInfo] ?? text;
    }
  }
}

/** `folder` opened or closed as the user last left it (closed the first time), and remembered whenever it changes. */
function rememberOpen(folder: GUI, key: string): GUI {
  folder.open(recall(key) === 'open');
  folder.onOpenClose((changed) => {
    if (changed === folder) remember(key, folder._closed ? 'closed' : 'open');
  });
  return folder;
}
