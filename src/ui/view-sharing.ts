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
import { RestingWrite } from './resting-write';

export interface ViewSharingHost {
  /** Shows a message until dismissed; an error unless `tone` says otherwise. */
  showMessage(title: string, text: string, tone?: Tone): void;
  /** Says that something went as asked, briefly (not an error). */
  showNotice(title: string, text: string): void;
}

export class ViewSharing {
  readonly cameraPicker: FilePicker;
  /** The address, written once the view rests (resting-write.ts). */
  private readonly address = new RestingWrite(() => history.replaceState(history.state, '', this.link()));
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

  /** Call when the view changed: the URL follows once it rests (resting-write.ts). */
  scheduleUrlUpdate(): void {
    this.address.changed();
  }

  /** Call after each frame drawn (`now`: performance.now()). */
  frameDrawn(now: number): void {
    this.address.frameDrawn(now);
  }

  /** Stops following the view: a pending update of the address is dropped. */
  dispose(): void {
    this.address.dispose();
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
