/**
 * Views a person can share and reproduce: the view kept in the page URL
 * (history.replaceState, once the view rests), "copy view link", camera files saved
 * and loaded (the render command's format), and screenshots of the current
 * view at the canvas size or larger (the same picture, rendered again at the
 * larger size, not a stretched copy). The viewer reads and writes the view
 * (readViewLink, SplatViewer.writeViewLink, cameraFile, applyCameraFile);
 * this keeps it in the address bar and in files. A saved camera keeps the
 * screen's framing beside the panels (the render command draws what was
 * on screen); a screenshot is framed on the scene unless asked for as on
 * screen.
 */
import { readViewLink, type CaptureFraming, type SplatViewer, type ViewLink } from '../lib/index';
import { FilePicker, type Tone } from './overlays';
import { downloadBlob } from './download';

/**
 * The address follows the view once it has rested this long and a frame
 * was drawn without moving it, checked as each frame is drawn. Resting in
 * time alone (a timer put off by each change) is not enough: where frames
 * come further apart than this (a slow GPU, software WebGPU), every frame
 * of a flight rewrote the address, and replaceState was the largest cost
 * of the page's own script while a world streamed (42 ms over a 24 s path,
 * 16 calls, in headless Chromium on SwiftShader).
 */
const URL_DEBOUNCE_MS = 250;
/** Where no frame is drawn (the canvas out of sight), a timer writes the address once the view has rested this long. */
const URL_IDLE_MS = 2000;

export interface ViewSharingHost {
  /** Shows a message until dismissed; an error unless `tone` says otherwise. */
  showMessage(title: string, text: string, tone?: Tone): void;
  /** Says that something went as asked, briefly (not an error). */
  showNotice(title: string, text: string): void;
}

export class ViewSharing {
  readonly cameraPicker: FilePicker;
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** The address is behind the view. */
  private due = false;
  /** When the view last changed (performance.now()). */
  private changedAt = 0;
  /** The view changed since the last frame drawn. */
  private changedSinceFrame = false;
  /** The scene's URL for links (null: a local file or the default scene, which links cannot name). */
  private sceneUrl: string | null = null;

  constructor(private readonly viewer: SplatViewer, private readonly host: ViewSharingHost) {
    this.cameraPicker = new FilePicker(([file]) => void this.loadCamera(file!), { accept: '.json,application/json', id: 'camera-input', multiple: false });
  }

  /** The view the page URL names; each part that cannot be read is reported and left at its default. */
  linkOfPage(): ViewLink {
    const link = readViewLink(new URLSearchParams(location.search));
    for (const { what, reason } of link.problems) this.host.showMessage(`Could not restore ${what} from the link`, reason);
    return link;
  }

  setSceneUrl(url: string | null): void {
    this.sceneUrl = url;
    this.scheduleUrlUpdate();
  }

  /**
   * Call when the view changed: the URL follows once it rests (see
   * URL_DEBOUNCE_MS). No timer a change: one waits for the idle case.
   */
  scheduleUrlUpdate(): void {
    this.due = true;
    this.changedAt = performance.now();
    this.changedSinceFrame = true;
    this.timer ??= setTimeout(this.idle, URL_IDLE_MS);
  }

  /** Call after each frame drawn (`now`: performance.now()): a frame that did not move the view, after it rested, writes the address. */
  frameDrawn(now: number): void {
    const moved = this.changedSinceFrame;
    this.changedSinceFrame = false;
    if (this.due && !moved && now - this.changedAt >= URL_DEBOUNCE_MS) this.writeUrl();
  }

  /** No frame wrote the address: it is written once the view has rested URL_IDLE_MS. */
  private readonly idle = (): void => {
    this.timer = null;
    if (!this.due) return;
    const rested = performance.now() - this.changedAt;
    if (rested >= URL_IDLE_MS) this.writeUrl();
    else this.timer = setTimeout(this.idle, URL_IDLE_MS - rested);
  };

  private writeUrl(): void {
    this.due = false;
    history.replaceState(history.state, '', this.link());
  }

  /** Stops following the view: a pending update of the address is dropped. */
  dispose(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  /** The link that reopens this scene (when it has a URL) from this view. */
  link(): string {
    const url = new URL(location.href);
    url.searchParams.delete('url');
    if (this.sceneUrl) url.searchParams.set('url', this.sceneUrl);
    this.viewer.writeViewLink(url.searchParams);
    return url.href;
  }

  async copyLink(): Promise<void> {
    const link = this.link();
    history.replaceState(history.state, '', link);
    try {
      await navigator.clipboard.writeText(link);
      this.host.showNotice('View link copied', link);
    } catch {
      // No clipboard (permission, an insecure origin): the link to copy by hand, until dismissed.
      this.host.showMessage('Copy this view link', link, 'info');
    }
  }

  saveCamera(): void {
    downloadBlob(new Blob([this.viewer.cameraFile()], { type: 'application/json' }), 'splatsort-camera.json');
  }

  async loadCamera(file: File): Promise<void> {
    try {
      this.viewer.applyCameraFile(await file.text());
      this.scheduleUrlUpdate();
    } catch (error) {
      this.host.showMessage(`Could not load ${file.name}`, (error as Error).message);
    }
  }

  /**
   * Saves a PNG of the current view, `scale` times the canvas size: framed
   * on the scene (centred, as if no panel covered the canvas), or as the
   * canvas shows it beside the panels ('screen').
   */
  async screenshot(scale: number, framing: CaptureFraming): Promise<void> {
    const { width, height } = this.viewer.canvas;
    const max = 8192;
    const s = Math.max(1, Math.min(scale, max / width, max / height));
    const size = { width: Math.round(width * s), height: Math.round(height * s) };
    try {
      downloadBlob(await this.viewer.capture({ ...size, framing }), `splatsort-${size.width}x${size.height}.png`);
    } catch (error) {
      this.host.showMessage('Could not take the screenshot', (error as Error).message);
    }
  }
}
