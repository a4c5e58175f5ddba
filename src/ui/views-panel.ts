/**
 * The panel's Views folder: a name for the view on screen and whether it
 * gets a pin, "add view", the list (each view: go, up, down, delete),
 * previous and next, the tour, and the views file saved and opened. It is
 * built on the public views API (SplatViewer.views) alone, and redrawn
 * from its `viewschange` event.
 */
import type GUI from 'lil-gui';
import type { Controller } from 'lil-gui';
import type { SplatViewer } from '../lib/index';
import { el, FilePicker } from './overlays';
import { downloadBlob } from './download';

export interface ViewsPanelHost {
  /** Shows what went wrong, until dismissed. */
  showError(title: string, text: string): void;
}

export class ViewsPanel {
  readonly picker: FilePicker;
  private readonly form = { name: '', pin: false };
  private readonly nameController: Controller;
  private readonly playController: Controller;
  private readonly list = el('ol', { className: 'views-list' });

  constructor(root: GUI, private readonly viewer: SplatViewer, private readonly host: ViewsPanelHost) {
    const views = viewer.views;
    this.picker = new FilePicker(([file]) => void this.attempt(`Could not open ${file!.name}`, () => views.open(file!)), { accept: '.json,application/json', id: 'views-input', multiple: false });
    // Closed until asked for: the panel opens on what viewing a scene needs.
    const folder = root.addFolder('Views').close();
    this.form.name = this.freeName();
    this.nameController = folder.add(this.form, 'name').name('name');
    folder.add(this.form, 'pin').name('pin at the centre');
    folder.add({ add: () => this.addView() }, 'add').name('add this view');
    folder.$children.append(this.list);
    folder.add({ previous: () => void views.previous() }, 'previous').name('previous view ([)');
    folder.add({ next: () => void views.next() }, 'next').name('next view (])');
    this.playController = folder.add({ play: () => this.toggleTour() }, 'play').name('play tour');
    folder.add({ save: () => this.saveFile() }, 'save').name('save views file');
    folder.add({ open: () => this.picker.open() }, 'open').name('open views file…');
    viewer.on('viewschange', () => this.redraw());
    this.redraw();
  }

  /** Plays the tour, or stops the one playing. */
  toggleTour(): void {
    const views = this.viewer.views;
    if (views.playing) views.stop();
    else if (views.list().length > 0) void views.play();
  }

  private addView(): void {
    this.attempt('Could not add the view', () => {
      this.viewer.views.add(this.form.name.trim(), { pin: this.form.pin ? 'target' : null });
      this.form.name = this.freeName();
      this.nameController.updateDisplay();
    });
  }

  private saveFile(): void {
    downloadBlob(new Blob([this.viewer.views.file()], { type: 'application/json' }), 'splatsort-views.json');
  }

  /** The list, the current view marked, and the tour's button, as the views are now. */
  private redraw(): void {
    const views = this.viewer.views;
    const all = views.list();
    this.list.replaceChildren(...all.map((view, i) => {
      const go = el('button', { type: 'button', className: 'views-go', textContent: view.pin ? `◉ ${view.name}` : view.name, title: `Fly to "${view.name}"` });
      go.addEventListener('click', () => void views.go(view.name));
      const row = el('li', { className: view.name === views.current ? 'views-item current' : 'views-item' }, go,
        this.button('↑', `Move "${view.name}" up`, i === 0, () => views.move(view.name, i - 1)),
        this.button('↓', `Move "${view.name}" down`, i === all.length - 1, () => views.move(view.name, i + 1)),
        this.button('✕', `Delete "${view.name}"`, false, () => views.remove(view.name)));
      return row;
    }));
    this.playController.name(views.playing ? 'stop tour' : 'play tour');
  }

  private button(text: string, title: string, disabled: boolean, action: () => void): HTMLButtonElement {
    const button = el('button', { type: 'button', className: 'views-action', textContent: text, title, disabled });
    button.setAttribute('aria-label', title);
    button.addEventListener('click', () => void this.attempt('Could not change the views', action));
    return button;
  }

  /** "View N" for the first N not taken. */
  private freeName(): string {
    const taken = new Set(this.viewer.views.list().map((v) => v.name));
    let n = taken.size + 1;
    while (taken.has(`View ${n}`)) n++;
    return `View ${n}`;
  }

  private async attempt(title: string, action: () => unknown): Promise<void> {
    try {
      await action();
    } catch (error) {
      this.host.showError(title, error instanceof Error ? error.message : String(error));
    }
  }
}
