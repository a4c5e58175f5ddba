/**
 * A viewer's named views (views-api.ts): the list (app/views/view-list.ts)
 * kept here, the flights through the viewer's camera.flyTo, the tour
 * (app/views/tour.ts), the views file read from text, a File or an
 * address, pins projected with the last frame's matrices, and the views
 * kept in a link: the address they came from while unchanged, else the
 * views themselves while they are few.
 */
import { addView, indexOfView, moveView, removeView, steppedIndex } from '../app/views/view-list';
import { projectPoint } from '../app/views/pin-projection';
import { abortableWait, playTour } from '../app/views/tour';
import { DEFAULT_TOUR, MAX_VIEWS_FILE_CHARS, parseViewsFile, writeViewsFile, type NamedView, ViewsFileError } from '../app/views/views-file';
import { SCENE_URL_PROTOCOLS } from '../io/scene-url';
import type { CameraPose, Vec3 } from './public-types';
import type { PinOnScreen, SavedView, SplatViews, TourTiming } from './views-api';
import type { DrawnCamera } from './viewer-api';

/** The query key that names views: `views=<address>`, or the views themselves (JSON) while they are few. */
export const VIEWS_PARAM = 'views';
/** The longest views kept in a link itself, in characters of JSON (a link of a few kB is shared safely). */
export const MAX_LINK_VIEWS_CHARS = 1500;

/** What the views need of their viewer. */
export interface ViewsHost {
  camera: { get(): CameraPose; flyTo(pose: CameraPose, options?: { seconds?: number }): Promise<void> };
  /** The last frame's matrices and the canvas's size in CSS pixels. */
  lastFrame(): DrawnCamera;
  canvasSize(): { width: number; height: number };
  /** What a relative address of a views file is relative to (the page's address). */
  baseUrl(): string;
  changed(views: readonly SavedView[]): void;
}

export class ViewerViews implements SplatViews {
  private views: NamedView[] = [];
  private currentIndex: number | null = null;
  private timing: TourTiming = { ...DEFAULT_TOUR };
  private touring: AbortController | null = null;
  /** The address the views came from, while they are as it gave them (what a link names). */
  private source: string | null = null;
  /** Counts flights asked for: a flight's end that another has replaced does not stop the tour twice. */
  private flights = 0;

  constructor(private readonly host: ViewsHost) {}

  list(): readonly SavedView[] {
    return this.views.map(savedView);
  }

  add(name: string, options: { camera?: CameraPose; pin?: Vec3 | 'target' | null } = {}): SavedView {
    const camera = options.camera ?? this.host.camera.get();
    const pin = options.pin === 'target' ? camera.target : options.pin ?? null;
    const view: NamedView = { name, eye: [...camera.eye], target: [...camera.target], up: [...camera.up], fovyDeg: camera.fovyDeg, pin: pin ? [...pin] : null };
    this.change(addView(this.views, view));
    return savedView(view);
  }

  remove(name: string): void {
    const current = this.current;
    this.change(removeView(this.views, name), current === name ? null : current);
  }

  move(name: string, index: number): void {
    this.change(moveView(this.views, name, index));
  }

  replace(views: readonly SavedView[], tour?: TourTiming): void {
    let list: NamedView[] = [];
    for (const v of views) list = addView(list, { name: v.name, ...v.camera, pin: v.pin });
    if (tour) this.tour = tour;
    this.change(list, null);
  }

  async go(name: string, options: { seconds?: number } = {}): Promise<void> {
    this.stop();
    await this.flyToIndex(indexOfView(this.views, name), options.seconds ?? this.timing.flightSeconds);
  }

  next(): Promise<void> {
    return this.step(1);
  }

  previous(): Promise<void> {
    return this.step(-1);
  }

  get current(): string | null {
    return this.currentIndex === null ? null : this.views[this.currentIndex]!.name;
  }

  get tour(): TourTiming {
    return { ...this.timing };
  }

  set tour(timing: TourTiming) {
    // The file's rules are the one check of a timing.
    this.timing = parseViewsFile(writeViewsFile({ views: [], tour: timing })).tour;
    this.source = null;
    this.host.changed(this.list());
  }

  async play(): Promise<'ended' | 'stopped'> {
    this.stop();
    const touring = (this.touring = new AbortController());
    this.host.changed(this.list());
    const outcome = await playTour(this.views.length, this.timing, {
      fly: async (index, seconds) => {
        const flight = await this.flyToIndex(index, seconds);
        // The controls or another flight took the camera: the tour ends there.
        if (!flight.arrived) touring.abort();
      },
      wait: abortableWait,
    }, touring.signal);
    if (this.touring === touring) {
      this.touring = null;
      this.host.changed(this.list());
    }
    return outcome;
  }

  stop(): void {
    const touring = this.touring;
    if (!touring) return;
    this.touring = null;
    touring.abort();
    this.host.changed(this.list());
  }

  get playing(): boolean {
    return this.touring !== null;
  }

  file(): string {
    return writeViewsFile({ views: this.views, tour: this.timing });
  }

  read(text: string): void {
    const file = parseViewsFile(text);
    this.timing = file.tour;
    this.change(file.views, null);
  }

  async open(source: string | URL | File): Promise<void> {
    if (typeof source !== 'string' && !(source instanceof URL)) {
      if (source.size > 4 * MAX_VIEWS_FILE_CHARS) throw new ViewsFileError(`${source.name} is ${source.size} bytes; a views file is at most ${MAX_VIEWS_FILE_CHARS} characters`);
      this.read(await source.text());
      return;
    }
    const url = viewsUrl(String(source), this.host.baseUrl());
    this.read(await fetchBoundedText(url));
    this.source = String(source);
  }

  async openLink(params: URLSearchParams): Promise<boolean> {
    const value = params.get(VIEWS_PARAM);
    if (value === null) return false;
    if (value.trim().startsWith('{')) this.read(value);
    else await this.open(value);
    return true;
  }

  /** Keeps the views in a link's query: the address they came from while unchanged, else the views while few, else none. */
  writeLink(params: URLSearchParams): void {
    const inline = this.views.length > 0 ? writeViewsFile({ views: this.views, tour: this.timing }, true) : '';
    if (this.source !== null) params.set(VIEWS_PARAM, this.source);
    else if (inline !== '' && inline.length <= MAX_LINK_VIEWS_CHARS) params.set(VIEWS_PARAM, inline);
    else params.delete(VIEWS_PARAM);
  }

  pins(): PinOnScreen[] {
    const frame = this.host.lastFrame();
    const { width, height } = this.host.canvasSize();
    const pins: PinOnScreen[] = [];
    for (const view of this.views) {
      if (!view.pin) continue;
      const at = projectPoint(frame.view, frame.projection, view.pin, width, height);
      if (!at) pins.push({ name: view.name, x: 0, y: 0, visible: false });
      else pins.push({ name: view.name, x: at.x, y: at.y, visible: at.x >= 0 && at.x <= width && at.y >= 0 && at.y <= height });
    }
    return pins;
  }

  /** Ends the tour; the views stay. */
  dispose(): void {
    this.stop();
  }

  private async step(step: 1 | -1): Promise<void> {
    const index = steppedIndex(this.views.length, this.currentIndex, step);
    if (index === null) return;
    this.stop();
    await this.flyToIndex(index, this.timing.flightSeconds);
  }

  /** Flies to the view at `index`; `arrived` is false when another move took the camera first. */
  private async flyToIndex(index: number, seconds: number): Promise<{ arrived: boolean }> {
    const view = this.views[index]!;
    this.currentIndex = index;
    this.host.changed(this.list());
    const flight = ++this.flights;
    const to: CameraPose = { eye: view.eye, target: view.target, up: view.up, fovyDeg: view.fovyDeg };
    await this.host.camera.flyTo(to, { seconds });
    const pose = this.host.camera.get();
    const arrived = flight === this.flights && [0, 1, 2].every((i) => Math.abs(pose.eye[i]! - to.eye[i]) <= 1e-6 * (1 + Math.abs(to.eye[i])));
    return { arrived };
  }

  private change(views: NamedView[], current: string | null = this.current): void {
    this.views = views;
    const index = current === null ? -1 : views.findIndex((v) => v.name === current);
    this.currentIndex = index < 0 ? null : index;
    this.source = null;
    this.host.changed(this.list());
  }
}

function savedView(view: NamedView): SavedView {
  return { name: view.name, camera: { eye: [...view.eye], target: [...view.target], up: [...view.up], fovyDeg: view.fovyDeg }, pin: view.pin ? [...view.pin] : null };
}

/** The absolute address of a views file: http, https or blob, as a scene's (io/scene-url.ts). */
function viewsUrl(address: string, base: string): string {
  let url: URL;
  try {
    url = new URL(address, base);
  } catch {
    throw new ViewsFileError(`the views address "${address.slice(0, 120)}" is not a valid URL`);
  }
  if (!SCENE_URL_PROTOCOLS.includes(url.protocol)) throw new ViewsFileError(`the views address uses "${url.protocol}": only http, https and blob URLs are opened`);
  return url.href;
}

/** How long a views file's server may take to answer: a page waits for its views before its first scene. */
const FETCH_TIMEOUT_S = 15;

/** The text at `url`, refused once it grows past what a views file may be, or when its server has not answered in FETCH_TIMEOUT_S. */
async function fetchBoundedText(url: string): Promise<string> {
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_S * 1000) });
  } catch (error) {
    const why = (error as Error).name === 'TimeoutError' ? `no answer in ${FETCH_TIMEOUT_S} s` : (error as Error).message;
    throw new ViewsFileError(`the views file could not be fetched from ${url}: ${why}`);
  }
  if (!response.ok) throw new ViewsFileError(`the views file at ${url} answered ${response.status} ${response.statusText}`.trim());
  const limit = 4 * MAX_VIEWS_FILE_CHARS;
  const reader = response.body?.getReader();
  if (!reader) return response.text();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > limit) {
      void reader.cancel();
      throw new ViewsFileError(`the views file at ${url} is over ${limit} bytes; a views file is at most ${MAX_VIEWS_FILE_CHARS} characters`);
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(await new Blob(chunks as BlobPart[]).arrayBuffer());
}
