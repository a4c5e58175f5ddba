/**
 * The viewer's HTML overlays above the canvas: dismissible messages (load
 * errors, GPU errors, a lost device), the progress bar (loads, a world's streaming), the keyboard
 * help, the "H for help" hint and the drag-and-drop zone. Text always goes in
 * as text, never as HTML, since file names and parser messages come from
 * outside.
 */

import { isTypingKey, PAGE_KEY_LISTENER, SCENE_FILE_ACCEPT, SCENE_FILES_TEXT, type LoadProgress } from '../lib/index';
import type { WorldProgress } from './world-progress';

/** info: news (a link copied); warn: something odd that did not stop anything; fail: an error. */
export type Tone = 'info' | 'warn' | 'fail';

/** The scene files the viewer opens, as the help and the drop zone name them. */

/** How long a notice (MessageOverlay.notify) stays: long enough to read a link. */
export const NOTICE_MS = 4000;

export interface MessageAction {
  label: string;
  run: () => void;
}

/** A stack of messages in the middle of the window; each one can be dismissed. */
export class MessageOverlay {
  readonly dom = el('div', { className: 'messages', role: 'alert', ariaLive: 'assertive' });

  /**
   * Says that something went as asked (a link copied): in the info style,
   * without taking the keyboard focus, gone after NOTICE_MS by itself.
   */
  notify(title: string, text: string): () => void {
    const remove = this.show(title, text, { tone: 'info', focus: false });
    const timer = setTimeout(remove, NOTICE_MS);
    return () => {
      clearTimeout(timer);
      remove();
    };
  }

  /** Shows a message; returns a function that removes it. */
  show(title: string, text: string, options: { tone?: Tone; actions?: MessageAction[]; dismissible?: boolean; focus?: boolean } = {}): () => void {
    const box = el('section', { className: 'message' });
    box.dataset.tone = options.tone ?? 'fail';
    const remove = () => box.remove();
    const buttons = el('div', { className: 'message-actions' });
    for (const action of options.actions ?? []) {
      const button = el('button', { type: 'button', textContent: action.label });
      button.addEventListener('click', () => action.run());
      buttons.append(button);
    }
    if (options.dismissible ?? true) {
      const close = el('button', { type: 'button', textContent: 'Dismiss', className: 'dismiss' });
      close.addEventListener('click', remove);
      buttons.append(close);
    }
    box.append(el('h2', { textContent: title }), el('p', { textContent: text }), buttons);
    this.dom.append(box);
    if (options.focus ?? true) box.querySelector('button')?.focus({ preventScroll: true });
    return remove;
  }

  /** Dismisses every dismissible message (Escape). */
  dismissAll(): void {
    for (const box of [...this.dom.children]) if (box.querySelector('.dismiss')) box.remove();
  }
}

const STAGE_LABELS: Record<LoadProgress['stage'], string> = { download: 'Downloading', read: 'Reading', parse: 'Parsing' };

/**
 * A thin bar with a caption at the top of the window while a scene loads
 * (with a Cancel button), and while a world streams the chunks its view
 * needs (worldProgress: chunks loaded of needed, and bytes).
 */
export class ProgressBar {
  readonly dom = el('div', { className: 'progress', hidden: true });
  private readonly caption = el('span', { className: 'progress-caption' });
  private readonly fill = el('div', { className: 'progress-fill' });
  private readonly track = el('div', { className: 'progress-track', role: 'progressbar' }, this.fill);
  private readonly cancel = el('button', { type: 'button', className: 'progress-cancel', textContent: 'Cancel', title: 'Stop loading this scene (Esc)' });
  private name = '';
  private loading = false;
  /** The world's caption shown, or null when the bar shows no world. */
  private streaming: string | null = null;

  /** `onCancel`: the Cancel button was pressed. */
  constructor(onCancel: () => void) {
    this.track.ariaValueMin = '0';
    this.track.ariaValueMax = '100';
    this.cancel.addEventListener('click', onCancel);
    this.dom.append(el('div', { className: 'progress-head' }, this.caption, this.cancel), this.track);
  }

  start(name: string): void {
    this.name = name;
    this.loading = true;
    this.streaming = null;
    this.cancel.hidden = false;
    this.track.ariaLabel = `Loading ${name}`;
    this.dom.hidden = false;
    this.update('read', 0);
    this.caption.textContent = `Opening ${name}…`;
  }

  update(stage: LoadProgress['stage'], fraction: number): void {
    this.show(`${STAGE_LABELS[stage]} ${this.name}… `, fraction, true);
  }

  finish(): void {
    this.loading = false;
    this.dom.hidden = true;
  }

  /**
   * A world's streaming, while no load shows (null: no world, or nothing
   * more on its way: the bar goes). Called a few times a second; the page
   * is written only when the caption changes.
   */
  showWorld(progress: WorldProgress | null): void {
    const text = progress?.text ?? null;
    if (this.loading || text === this.streaming) return;
    this.streaming = text;
    this.dom.hidden = progress === null;
    if (!progress) return;
    // Nothing to cancel: the world is open, and streams as the view asks.
    this.cancel.hidden = true;
    this.track.ariaLabel = progress.text;
    this.show(progress.text, progress.fraction, false);
  }

  private show(caption: string, fraction: number, withPercent: boolean): void {
    const percent = Math.round(Math.min(1, Math.max(0, fraction)) * 100);
    this.caption.textContent = withPercent ? `${caption}${percent}%` : caption;
    this.fill.style.width = `${percent}%`;
    this.track.ariaValueNow = String(percent);
  }
}


/** The keyboard and mouse help: a panel toggled with H or ?, and the hint that says so. */
export class HelpOverlay {
  readonly dom = el('section', { className: 'help', hidden: true, ariaLabel: 'Controls' });
  readonly hint: HTMLButtonElement;

  /**
   * Binds H / ? (toggle) and Esc (close, and `onEscape`) on `target`, except
   * while typing in a field, until `signal` aborts. On a touch screen (`touch`) the help lists the
   * touch controls and the hint is a button to tap, without the keys.
   */
  constructor(controls: readonly (readonly [string, string])[], target: Window, onEscape: () => void, options: { touch?: boolean; signal?: AbortSignal } = {}) {
    const touch = options.touch ?? false;
    this.hint = el('button', { type: 'button', className: 'hint', textContent: touch ? 'Help' : 'H for help' });
    target.addEventListener('keydown', (event) => {
      if (event.ctrlKey || event.metaKey || event.altKey || isTypingKey(event)) return;
      if (event.key === 'h' || event.key === 'H' || event.key === '?') this.toggle();
      else if (event.key === 'Escape') {
        this.toggle(false);
        onEscape();
      }
    }, { ...PAGE_KEY_LISTENER, signal: options.signal });
    const keys: (readonly [string, string])[] = touch ? [] : [['H or ?', 'Show or hide this help'], ['Esc', 'Close messages and help, cancel a load']];
    const list = el('dl');
    for (const [what, action] of [...controls, ...keys]) {
      list.append(el('dt', { textContent: what }), el('dd', { textContent: action }));
    }
    const close = el('button', { type: 'button', textContent: 'Close' });
    close.addEventListener('click', () => this.toggle(false));
    const opening = touch ? 'Open a scene with "open scene…" in the panel.' : `Drop ${SCENE_FILES_TEXT} anywhere to open it, or use "open scene…" in the panel.`;
    this.dom.append(el('h2', { textContent: 'Controls' }), list, el('p', { className: 'muted', textContent: opening }), close);
    this.hint.addEventListener('click', () => this.toggle());
  }

  toggle(show = this.dom.hidden): void {
    this.dom.hidden = !show;
  }
}

/**
 * The hidden file input behind "open scene…" (id `file-input`, so tests can
 * fill it). It hands over every chosen file: a SOG meta.json needs its images.
 */
export class FilePicker {
  readonly dom: HTMLInputElement;

  constructor(onFiles: (files: File[]) => void, options: { accept?: string; id?: string; multiple?: boolean } = {}) {
    this.dom = el('input', {
      type: 'file', accept: options.accept ?? SCENE_FILE_ACCEPT, multiple: options.multiple ?? true,
      id: options.id ?? 'file-input', hidden: true,
    });
    this.dom.addEventListener('change', () => {
      const files = [...(this.dom.files ?? [])];
      // Cleared so that choosing the same file again still fires 'change'.
      this.dom.value = '';
      if (files.length > 0) onFiles(files);
    });
  }

  open(): void {
    this.dom.click();
  }
}

/**
 * Shows a drop target while files are dragged over the window and hands
 * the drop's DataTransfer to `onDrop` while its event is handled (the
 * viewer takes its files, or a folder's entries, which the browser
 * empties after the event). Counts enter/leave pairs because they fire for
 * every child element crossed.
 */
export class DropZone {
  readonly dom = el('div', { className: 'drop-zone', hidden: true },
    el('p', { textContent: `Drop ${SCENE_FILES_TEXT} to open it` }));
  private depth = 0;

  /** Listens on `target` until `signal` aborts. */
  constructor(target: Window, onDrop: (transfer: DataTransfer) => void, signal?: AbortSignal) {
    const carriesFiles = (event: DragEvent) => event.dataTransfer?.types.includes('Files') ?? false;
    target.addEventListener('dragenter', (event) => {
      if (!carriesFiles(event)) return;
      event.preventDefault();
      this.depth++;
      this.dom.hidden = false;
    }, { signal });
    target.addEventListener('dragover', (event) => {
      if (!carriesFiles(event)) return;
      event.preventDefault();
      if (event.dataTransfer) event.dataTransfer.dropEffect = 'copy';
    }, { signal });
    target.addEventListener('dragleave', () => {
      this.depth = Math.max(0, this.depth - 1);
      if (this.depth === 0) this.dom.hidden = true;
    }, { signal });
    target.addEventListener('drop', (event) => {
      if (!carriesFiles(event) || !event.dataTransfer) return;
      event.preventDefault();
      this.depth = 0;
      this.dom.hidden = true;
      if (event.dataTransfer.files.length > 0 || event.dataTransfer.items.length > 0) onDrop(event.dataTransfer);
    }, { signal });
  }
}

/** Creates an element with properties and children; text goes in as text, never as HTML. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Partial<HTMLElementTagNameMap[K]> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
}
