/**
 * Views a person can name and play, as a page sees them
 * (`SplatViewer.views`): saved views with a smooth flight to each, pins
 * that label points of the scene and open their view, a tour, and the
 * views file they travel in. Types only; views.ts is what is behind them.
 */
import type { CameraPose, Vec3 } from './public-types';

/** A named view: its camera, and the point of the scene its pin marks (null: no pin). */
export interface SavedView {
  name: string;
  camera: CameraPose;
  pin: Vec3 | null;
}

/** How a tour plays the views: a flight of `flightSeconds` to each, then a pause of `pauseSeconds` there. */
export interface TourTiming {
  flightSeconds: number;
  pauseSeconds: number;
}

/** A view's pin as the last frame shows it: CSS pixels from the canvas's top left. */
export interface PinOnScreen {
  name: string;
  x: number;
  y: number;
  /** Whether it is in front of the camera and inside the canvas. */
  visible: boolean;
}

/**
 * A viewer's named views. Names are 1 to 80 characters and unique; a
 * viewer holds at most 100 views. Every change emits `viewschange`.
 * A method given what it cannot do (an unknown name, a name taken, a
 * file that is not a views file) throws an Error that says what is wrong.
 */
export interface SplatViews {
  /** The views, in their order. */
  list(): readonly SavedView[];
  /**
   * Adds a view at the end of the list: the camera now (or `camera`), with
   * a pin at `pin` where given ('target': the point the camera looks at,
   * the point a double-click orbits).
   */
  add(name: string, options?: { camera?: CameraPose; pin?: Vec3 | 'target' | null }): SavedView;
  remove(name: string): void;
  /** Moves the view named `name` to place `index` (0 first; clamped to the list). */
  move(name: string, index: number): void;
  /** Replaces every view (and the tour's timing, where given). */
  replace(views: readonly SavedView[], tour?: TourTiming): void;
  /** Flies the camera to the view named `name` (over `seconds`, default the tour's flight); resolves on arrival or when another move takes over. */
  go(name: string, options?: { seconds?: number }): Promise<void>;
  /** Flies to the view after the last one gone to (the first from none, around the end); nothing without views. */
  next(): Promise<void>;
  /** Flies to the view before the last one gone to (the last from none, around the start). */
  previous(): Promise<void>;
  /** The name of the view last gone to, or null. */
  readonly current: string | null;
  /** How a tour plays the views. */
  tour: TourTiming;
  /** Plays the views in order, from the first: 'ended' after the last view's pause, 'stopped' when stop(), the controls or another flight cut it short. */
  play(): Promise<'ended' | 'stopped'>;
  /** Stops the tour where the camera is. */
  stop(): void;
  /** Whether a tour is playing. */
  readonly playing: boolean;
  /** The views and the tour's timing as a views file (JSON; docs/viewer.md describes it). */
  file(): string;
  /** Replaces the views with a views file's text; throws, naming each problem, for one that is not a views file (and changes nothing). */
  read(text: string): void;
  /** Replaces the views with those of a views file: a File, or an address (http, https or blob, absolute or relative to the page, as scenes' are). */
  open(source: string | URL | File): Promise<void>;
  /** Opens the views an address's query names (`views=`: an address of a views file, or the views themselves as writeViewLink keeps a few); false when it names none. */
  openLink(params: URLSearchParams): Promise<boolean>;
  /** Where each pin is on the canvas in the last frame drawn. */
  pins(): PinOnScreen[];
}
