/**
 * Over the canvas: a pin for each view that has one, where its point shows
 * in the frame just drawn (SplatViewer.views.pins(), moved every frame, so
 * it stays on the splats it marks as the camera moves), which flies to its
 * view when clicked; and while there are views, a bar at the top with the previous
 * and next view, the current one's name and the tour, for a touch screen
 * as for a mouse.
 */
import type { SplatViewer } from '../lib/index';
import { el } from './overlays';

export class ViewsPins {
  /** The pins' layer and the bar: the page puts them after the canvas. */
  readonly dom = el('div', { className: 'views-pins' });
  readonly bar = el('div', { className: 'views-bar', hidden: true });
  private readonly pins = new Map<string, HTMLButtonElement>();
  private readonly current = el('span', { className: 'views-current' });
  private readonly play: HTMLButtonElement;

  constructor(private readonly viewer: SplatViewer, toggleTour: () => void) {
    const views = viewer.views;
    const button = (text: string, label: string, action: () => void) => {
      const b = el('button', { type: 'button', textContent: text, title: label });
      b.setAttribute('aria-label', label);
      b.addEventListener('click', action);
      return b;
    };
    this.play = button('tour', 'Play the tour', toggleTour);
    this.bar.append(button('◀', 'Previous view', () => void views.previous()), this.current, button('▶', 'Next view', () => void views.next()), this.play);
    viewer.on('viewschange', () => this.rebuild());
    viewer.on('frame', () => this.place());
    this.rebuild();
  }

  /** Pins for the views with one, and the bar as the views are now. */
  private rebuild(): void {
    const views = this.viewer.views;
    const all = views.list();
    const wanted = new Set(all.filter((v) => v.pin).map((v) => v.name));
    for (const [name, pin] of this.pins) {
      if (!wanted.has(name)) {
        pin.remove();
        this.pins.delete(name);
      }
    }
    for (const name of wanted) {
      if (this.pins.has(name)) continue;
      const pin = el('button', { type: 'button', className: 'views-pin', textContent: name, title: `Fly to "${name}"` });
      pin.addEventListener('click', () => void views.go(name));
      this.pins.set(name, pin);
      this.dom.append(pin);
    }
    this.bar.hidden = all.length === 0;
    this.current.textContent = views.current ?? `${all.length} view${all.length === 1 ? '' : 's'}`;
    this.play.textContent = views.playing ? 'stop' : 'tour';
    this.play.title = views.playing ? 'Stop the tour' : 'Play the tour';
    this.play.setAttribute('aria-label', this.play.title);
    this.place();
  }

  /** Each pin where the last frame shows its point; hidden behind the camera or off the canvas. */
  private place(): void {
    if (this.pins.size === 0) return;
    const box = this.viewer.canvas.getBoundingClientRect();
    for (const { name, x, y, visible } of this.viewer.views.pins()) {
      const pin = this.pins.get(name);
      if (!pin) continue;
      pin.hidden = !visible;
      pin.style.transform = `translate(${Math.round(box.left + x)}px, ${Math.round(box.top + y)}px)`;
      pin.dataset.x = String(Math.round(x));
      pin.dataset.y = String(Math.round(y));
    }
  }
}
