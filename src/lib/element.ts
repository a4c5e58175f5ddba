/**
 * `<splat-viewer>`: a viewer as an element of the page, registered when this
 * module is imported. Its attributes are its options, reflected both ways
 * (setting the property writes the attribute; a changed attribute applies
 * at once): src, camera (a pose as JSON: {"eye":[x,y,z],"target":[x,y,z],
 * "up":[x,y,z],"fovyDeg":50}), renderer, order, budget ("auto", or a count
 * such as "4M" or "500k"), background, and controls (present: the camera
 * controls are on; set when the viewer is made). Its events are DOM
 * CustomEvents with the viewer's names and what the viewer says in
 * `detail`. It fills its own box, makes its viewer when it enters the
 * document and frees everything when it leaves.
 */
import { createViewer } from './create-viewer';
import type { SplatViewer, SplatViewerEvents, ViewerSettingsInput } from './viewer-api';
import type { CameraPose, OrderSetting, RendererSetting } from './public-types';
import { parseBudget, poseOf } from './element-attributes';

const EVENTS: readonly (keyof SplatViewerEvents)[] = ['loadprogress', 'loaded', 'error', 'camerachange', 'frame', 'rendererchange', 'orderchange'];
const ATTRIBUTES = ['src', 'camera', 'renderer', 'order', 'budget', 'background', 'controls'] as const;
type Attribute = (typeof ATTRIBUTES)[number];

export class SplatViewerElement extends HTMLElement {
  static readonly observedAttributes: readonly string[] = ATTRIBUTES;
  private made: SplatViewer | null = null;
  private making: Promise<void> | null = null;
  /** Counts the element's entries into the document and exits from it: a viewer made for an earlier entry is not kept. */
  private entries = 0;

  /** The viewer inside (null before the element is in the document, and after it leaves). */
  get viewer(): SplatViewer | null {
    return this.made;
  }

  get src(): string {
    return this.getAttribute('src') ?? '';
  }
  set src(value: string) {
    this.setAttribute('src', value);
  }
  get renderer(): string {
    return this.getAttribute('renderer') ?? 'auto';
  }
  set renderer(value: string) {
    this.setAttribute('renderer', value);
  }
  get order(): string {
    return this.getAttribute('order') ?? 'auto';
  }
  set order(value: string) {
    this.setAttribute('order', value);
  }
  get budget(): string {
    return this.getAttribute('budget') ?? 'auto';
  }
  set budget(value: string) {
    this.setAttribute('budget', value);
  }
  get background(): string {
    return this.getAttribute('background') ?? '';
  }
  set background(value: string) {
    this.setAttribute('background', value);
  }
  get controls(): boolean {
    return this.hasAttribute('controls');
  }
  set controls(on: boolean) {
    this.toggleAttribute('controls', on);
  }
  /** The camera pose the attribute names (null: none, or not a pose). */
  get camera(): CameraPose | null {
    return poseOf(this.getAttribute('camera'));
  }
  set camera(pose: CameraPose | null) {
    if (pose) this.setAttribute('camera', JSON.stringify(pose));
    else this.removeAttribute('camera');
  }

  connectedCallback(): void {
    if (!this.style.display) this.style.display = 'block';
    if (this.making) return;
    const making = (this.making = this.make(++this.entries));
    making.catch((error: unknown) => this.dispatchEvent(new CustomEvent('error', { detail: { name: this.src, reason: error instanceof Error ? error.message : String(error) } })));
  }

  /** Makes the viewer; one the element left the document before it was made is destroyed at once. */
  private async make(entry: number): Promise<void> {
    const viewer = await createViewer(this, { settings: this.settings(), controls: this.controls });
    if (entry !== this.entries || !this.isConnected) {
      viewer.destroy();
      return;
    }
    this.made = viewer;
    for (const name of EVENTS) viewer.on(name, ((detail: unknown) => this.dispatchEvent(new CustomEvent(name, { detail }))) as SplatViewerEvents[typeof name]);
    const pose = this.camera;
    if (this.src) void viewer.load(this.src).then(() => pose && viewer.camera.set(pose));
  }

  disconnectedCallback(): void {
    this.making = null;
    this.entries++;
    this.made?.destroy();
    this.made = null;
  }

  attributeChangedCallback(name: Attribute, old: string | null, value: string | null): void {
    const viewer = this.made;
    if (!viewer || old === value) return;
    if (name === 'src') {
      if (value) void viewer.load(value);
    } else if (name === 'camera') {
      const pose = poseOf(value);
      if (pose) viewer.camera.set(pose);
    } else if (name !== 'controls') {
      viewer.setSettings(this.settings());
    }
  }

  /** The settings the attributes name (an attribute that names nothing valid is left out). */
  private settings(): ViewerSettingsInput {
    const settings: ViewerSettingsInput = {};
    const renderer = this.getAttribute('renderer');
    if (renderer === 'auto' || renderer === 'quads' || renderer === 'tiles') settings.renderer = renderer satisfies RendererSetting;
    const order = this.getAttribute('order');
    if (order === 'auto' || order === 'centre-depth' || order === 'per-pixel') settings.order = order satisfies OrderSetting;
    const budget = parseBudget(this.getAttribute('budget') ?? '');
    if (budget !== null) settings.worldBudget = budget;
    const background = this.getAttribute('background');
    if (background && /^#[0-9a-f]{6}$/i.test(background)) settings.background = background;
    return settings;
  }
}

if (typeof customElements !== 'undefined' && !customElements.get('splat-viewer')) customElements.define('splat-viewer', SplatViewerElement);

declare global {
  interface HTMLElementTagNameMap {
    'splat-viewer': SplatViewerElement;
  }
}
