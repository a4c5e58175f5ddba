/**
 * Views a person can share and reproduce: the view kept in the page URL
 * (debounced, history.replaceState), "copy view link", camera files saved
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

const URL_DEBOUNCE_MS = 250;

export interface ViewSharingHost {
  /** Shows a message until dismissed; an error unless `tone` says otherwise. */
  showMessage(title: string, text: string, tone?: Tone): void;
  /** Says that something went as asked, briefly (not an error). */
  showNotice(title: string, text: string): void;
}

export class ViewSharing {
  readonly cameraPicker: FilePicker;
  private timer: ReturnType<typeof setTimeout> | null = null;
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

  /** Call when the camera moved: the URL follows a moment after the last change. */
  scheduleUrlUpdate(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      history.replaceState(history.state, '', this.link());
    }, URL_DEBOUNCE_MS);
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
