/**
 * The page as a view of the viewer: what each of its events changes on the
 * page (the progress bar, the messages, the panel's scene rows, the up
 * axis, the view link, the page's ready flag). The viewer never calls the
 * page; this is the one place that listens.
 */
import type { SceneFacts, SplatViewer } from '../lib/index';
import type { MessageOverlay, ProgressBar } from './overlays';
import type { ViewerGui } from './viewer-gui';
import type { ViewSharing } from './view-sharing';
import { formatBytes, formatDuration, formatExtent } from './scene-facts';

export interface PageViews {
  gui: ViewerGui;
  messages: MessageOverlay;
  progress: ProgressBar;
  sharing: ViewSharing;
}

const count = (n: number) => n.toLocaleString('en-US');

/** Wires `viewer`'s events to the page's views; returns what shows a load's failure, for one the page refuses itself. */
export function bindViewer(viewer: SplatViewer, { gui, messages, progress, sharing }: PageViews): (name: string, reason: string) => void {
  /** Removes the message of the last load that failed, if it still shows. */
  let clearLoadError = () => {};
  /** Removes the warnings about the scene on screen, if they still show. */
  let clearWarnings = () => {};
  const showWarnings = (name: string, warnings: readonly string[]) => {
    clearWarnings();
    const removers = warnings.map((text) => messages.show(`${name} opened with a warning`, text, { tone: 'warn' }));
    clearWarnings = () => removers.forEach((remove) => remove());
  };
  const showLoadError = (name: string, reason: string) => {
    clearLoadError();
    clearLoadError = messages.show(`Could not open ${name}`, reason);
  };

  viewer.on('loadstart', (name) => progress.start(name));
  viewer.on('loadprogress', (p) => progress.update(p.stage, p.fraction));
  viewer.on('loadend', () => progress.finish());
  viewer.on('error', ({ name, reason }) => showLoadError(name, reason));
  viewer.on('loaded', (name, { warnings, keepError }) => {
    // A scene that opened makes the messages about the one before stale.
    if (!keepError) clearLoadError();
    showWarnings(name, warnings);
    gui.setSceneShDegree(viewer.settings.shDegree);
  });
  viewer.on('scenechange', (facts) => {
    showSceneRows(gui, facts);
    if (facts && !facts.partial) gui.setSaveBox(facts.bounds);
    gui.showScreenFilter(viewer.screenFilter);
  });
  viewer.on('upchange', (choice) => {
    gui.set('upSource', choice.source, choice.why);
    // Only a scene whose up nothing settles may be upside down; any other choice (a guess, the user's) ends the offer.
    gui.showUpHint(choice.unsure);
  });
  viewer.on('camerachange', () => sharing.scheduleUrlUpdate());
  viewer.on('frame', (_report, now) => sharing.frameDrawn(now));
  viewer.on('message', ({ title, text, tone }) => {
    if (tone === 'notice') messages.notify(title, text);
    else messages.show(title, text);
  });
  let gpuErrors = 0;
  viewer.on('gpuerror', ({ message, lost }) => {
    if (lost) {
      messages.show('The GPU device was lost', `${message}. Reload the page to start again.`, {
        actions: [{ label: 'Reload', run: () => location.reload() }],
        dismissible: false,
      });
    } else if (++gpuErrors <= GPU_ERRORS_SHOWN) {
      messages.show('WebGPU error', message);
    }
  });
  viewer.on('ready', () => {
    document.body.dataset.viewer = 'ready';
  });
  return showLoadError;
}

/** WebGPU errors shown as messages, at most: an error repeated every frame would bury the page (the console has more). */
const GPU_ERRORS_SHOWN = 3;

/** The panel's rows about the scene on screen. */
function showSceneRows(gui: ViewerGui, facts: SceneFacts | null): void {
  gui.set('scene', facts?.name || '—');
  gui.set('splats', facts ? `${count(facts.splats)}${facts.partial ? ' so far' : ''}` : '—');
  gui.set('sceneSh', facts ? String(facts.shDegree) : '—');
  const bytes = facts?.bytes ?? null;
  gui.set('fileSize', formatBytes(bytes), bytes === null ? 'not counted for this kind of load' : `${count(bytes)} bytes`);
  gui.set('loadTime', facts?.loadMs == null ? '—' : formatDuration(facts.loadMs), 'from the start of the load to the scene on screen');
  gui.set('extent', facts ? formatExtent(facts.bounds) : '—', 'x × y × z of the middle 98 % of the splats, in scene units');
}
