/**
 * Views a person can share and reproduce: the camera kept in the page URL
 * (debounced, history.replaceState), "copy view link", camera files saved
 * and loaded (the render command's format), and screenshots of the current
 * view at the canvas size or larger (the same picture, rendered again at the
 * larger size, not a stretched copy).
 */
import { createCameraView, type CameraView, type OrbitCamera } from '../app/camera/orbit-camera';
import { readOrderParam, readRendererParam, readViewMode, readViewParams, writeOrderParam, writeRendererParam, writeViewParams } from '../app/camera/view-url';
import { DEFAULT_RENDERER_SETTING, DEFAULT_SPLAT_ORDER, type RendererSetting, type SplatOrder } from '../render/frame-renderer';
import type { CameraMode } from '../app/camera/fly-motion';
import { cameraFileOf, parseCameraFile } from '../app/camera/camera-file';
import { hexToRgb, rgbToHex, type ViewerSettings } from '../app/session/viewer-settings';
import { FilePicker, type Tone } from './overlays';
import { downloadBlob } from './download';

const URL_DEBOUNCE_MS = 250;

export interface ViewSharingHost {
  camera: OrbitCamera;
  /** Canvas size in device pixels. */
  size(): [number, number];
  /** The background, SH degree and camera mode, which links and camera files keep, and the renderer and the order, which links keep. */
  settings: Readonly<Pick<ViewerSettings, 'background' | 'shDegree' | 'cameraMode' | 'renderer' | 'order'>>;
  /** Shows a loaded camera file's view. */
  setView(view: CameraView): void;
  applyMode(mode: CameraMode): void;
  /** Applies a loaded camera file's background (a CSS colour) and SH degree. */
  applyLook(background: string, shDegree: number): void;
  /** Renders the current view at width × height and returns a PNG. */
  capture(width: number, height: number): Promise<Blob>;
  /** Shows a message until dismissed; an error unless `tone` says otherwise. */
  showMessage(title: string, text: string, tone?: Tone): void;
  /** Says that something went as asked, briefly (not an error). */
  showNotice(title: string, text: string): void;
}

export class ViewSharing {
  readonly cameraPicker: FilePicker;
  private readonly view: CameraView = createCameraView();
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** The scene's URL for links (null: a local file or the default scene, which links cannot name). */
  private sceneUrl: string | null = null;

  constructor(private readonly host: ViewSharingHost) {
    this.cameraPicker = new FilePicker(([file]) => void this.loadCamera(file!), { accept: '.json,application/json', id: 'camera-input', multiple: false });
  }

  /** The view named in the page URL, or null; a malformed one is reported and ignored. */
  viewFromPage(): CameraView | null {
    try {
      return readViewParams(new URLSearchParams(location.search));
    } catch (error) {
      this.host.showMessage('Could not restore the view from the link', (error as Error).message);
      return null;
    }
  }

  /** The camera mode the page URL names (orbit when none); a malformed one is reported and ignored. */
  modeFromPage(): CameraMode {
    try {
      return readViewMode(new URLSearchParams(location.search));
    } catch (error) {
      this.host.showMessage('Could not restore the camera mode from the link', (error as Error).message);
      return 'orbit';
    }
  }

  /** The renderer setting the page URL names (auto when none); a malformed one is reported and ignored. */
  rendererFromPage(): RendererSetting {
    return this.settingFromPage(readRendererParam, 'the renderer', DEFAULT_RENDERER_SETTING);
  }

  /** The splat order the page URL names (centre depth when none); a malformed one is reported and ignored. */
  orderFromPage(): SplatOrder {
    return this.settingFromPage(readOrderParam, 'the splat order', DEFAULT_SPLAT_ORDER);
  }

  private settingFromPage<T>(read: (params: URLSearchParams) => T, what: string, fallback: T): T {
    try {
      return read(new URLSearchParams(location.search));
    } catch (error) {
      this.host.showMessage(`Could not restore ${what} from the link`, (error as Error).message);
      return fallback;
    }
  }

  setSceneUrl(url: string | null): void {
    this.sceneUrl = url;
    this.scheduleUrlUpdate();
  }

  /**
   * Keeps a page link's scene address that could not be opened in the
   * address bar while another scene stands in for it, so a typo can be
   * seen and fixed there.
   */
  keepFailedLink(link: string): void {
    this.setSceneUrl(link);
  }

  /** Call when the camera moved: the URL follows a moment after the last change. */
  scheduleUrlUpdate(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      history.replaceState(history.state, '', this.link());
    }, URL_DEBOUNCE_MS);
  }

  /** The link that reopens this scene (when it has a URL) from this view. */
  link(): string {
    const url = new URL(location.href);
    url.searchParams.delete('url');
    if (this.sceneUrl) url.searchParams.set('url', this.sceneUrl);
    writeViewParams(this.host.camera.getView(this.view), url.searchParams, this.host.settings.cameraMode);
    writeRendererParam(this.host.settings.renderer, url.searchParams);
    writeOrderParam(this.host.settings.order, url.searchParams);
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
    const [width, height] = this.host.size();
    const { background, shDegree, cameraMode } = this.host.settings;
    const file = cameraFileOf(this.host.camera.getView(this.view), { width, height, background: hexToRgb(background, [0, 0, 0]), shDegree, mode: cameraMode });
    downloadBlob(new Blob([JSON.stringify(file, null, 2) + '\n'], { type: 'application/json' }), 'splatsort-camera.json');
  }

  async loadCamera(file: File): Promise<void> {
    try {
      const camera = parseCameraFile(await file.text());
      this.host.setView({ eye: camera.eye, target: camera.target, up: camera.up, fovyDeg: camera.fovy_deg });
      this.host.applyLook(rgbToHex(camera.background), camera.sh_degree);
      this.host.applyMode(camera.mode ?? 'orbit');
      this.scheduleUrlUpdate();
    } catch (error) {
      this.host.showMessage(`Could not load ${file.name}`, (error as Error).message);
    }
  }

  /** Saves a PNG of the current view, `scale` times the canvas size. */
  async screenshot(scale: number): Promise<void> {
    const [width, height] = this.host.size();
    const max = 8192;
    const s = Math.max(1, Math.min(scale, max / width, max / height));
    try {
      const png = await this.host.capture(Math.round(width * s), Math.round(height * s));
      downloadBlob(png, `splatsort-${Math.round(width * s)}x${Math.round(height * s)}.png`);
    } catch (error) {
      this.host.showMessage('Could not take the screenshot', (error as Error).message);
    }
  }
}
