/**
 * The views file: named camera views of one scene, each optionally with a
 * pin (a labelled point in the scene that opens the view), and how a tour
 * plays them. One small JSON file, versioned:
 *
 *   {"splatsort_views": 1,
 *    "tour": {"flight_seconds": 2, "pause_seconds": 3},
 *    "views": [{"name": "Door", "eye": [x,y,z], "target": [x,y,z], "up": [x,y,z],
 *               "fovy_deg": 60, "pin": [x,y,z]}]}
 *
 * "tour" and each "pin" may be left out; extra keys are ignored. The file,
 * the number of views and each name are bounded, so a hostile file costs
 * little to refuse, and every problem is named. DOM-free.
 */
import { shareableNumber } from '../camera/view-url';

export const VIEWS_FILE_VERSION = 1;
/** The most views a file holds. */
export const MAX_VIEWS = 100;
/** The longest a view's name may be, in characters. */
export const MAX_VIEW_NAME = 80;
/** The largest views file read, in characters (100 views with long names and pins fit in about 40 000). */
export const MAX_VIEWS_FILE_CHARS = 64 * 1024;
/** The largest coordinate: beyond it a scene is not one this viewer draws. */
const MAX_COORDINATE = 1e9;

export type Point3 = [number, number, number];

/** One named view: a camera pose, and where it has one, its pin. */
export interface NamedView {
  name: string;
  eye: Point3;
  target: Point3;
  up: Point3;
  fovyDeg: number;
  /** A point of the scene shown as a pin labelled with the view's name; null: none. */
  pin: Point3 | null;
}

/** How a tour plays the views: the flight to each, then the pause there. */
export interface TourTiming {
  flightSeconds: number;
  pauseSeconds: number;
}

export const DEFAULT_TOUR: TourTiming = { flightSeconds: 2, pauseSeconds: 2 };
/** The longest a flight or a pause of a tour may be. */
const MAX_TOUR_SECONDS = 600;

export interface ViewsFile {
  views: NamedView[];
  tour: TourTiming;
}

export class ViewsFileError extends Error {
  override name = 'ViewsFileError';
}

/** Reads and checks a views file's text; the error names every problem found (the first 10), each with its view. */
export function parseViewsFile(text: string): ViewsFile {
  if (text.length > MAX_VIEWS_FILE_CHARS) throw new ViewsFileError(`the views file is ${text.length} characters long; the most read is ${MAX_VIEWS_FILE_CHARS}`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ViewsFileError(`the views file is not JSON: ${(error as Error).message}`);
  }
  if (!isObject(value)) throw new ViewsFileError('the views file must hold a JSON object');
  const version = value.splatsort_views;
  if (version === undefined) throw new ViewsFileError('this is not a views file: "splatsort_views" (its version) is missing');
  if (version !== VIEWS_FILE_VERSION) throw new ViewsFileError(`the views file is version ${JSON.stringify(version)}; this viewer reads version ${VIEWS_FILE_VERSION}`);
  const list = value.views;
  if (!Array.isArray(list)) throw new ViewsFileError(`"views" must be an array, got ${describe(list)}`);
  if (list.length > MAX_VIEWS) throw new ViewsFileError(`the file holds ${list.length} views; the most is ${MAX_VIEWS}`);
  const problems: string[] = [];
  const views: NamedView[] = [];
  const names = new Set<string>();
  list.forEach((item, i) => {
    const where = `view ${i + 1}`;
    try {
      const view = readView(item, where);
      if (names.has(view.name)) throw new ViewsFileError(`${where}: the name "${view.name}" is taken by an earlier view`);
      names.add(view.name);
      views.push(view);
    } catch (error) {
      if (!(error instanceof ViewsFileError)) throw error;
      problems.push(error.message);
    }
  });
  let tour = DEFAULT_TOUR;
  try {
    tour = readTour(value.tour);
  } catch (error) {
    if (!(error instanceof ViewsFileError)) throw error;
    problems.push(error.message);
  }
  if (problems.length > 0) {
    const shown = problems.slice(0, 10).join('; ');
    throw new ViewsFileError(problems.length > 10 ? `${shown}; and ${problems.length - 10} more` : shown);
  }
  return { views, tour };
}

/** The file's text, its numbers as readable as view links' (shareableNumber); `compact` leaves out the spaces (for a link). */
export function writeViewsFile(file: ViewsFile, compact = false): string {
  const v3 = (v: readonly number[]): Point3 => [shareableNumber(v[0]!), shareableNumber(v[1]!), shareableNumber(v[2]!)];
  const json = {
    splatsort_views: VIEWS_FILE_VERSION,
    tour: { flight_seconds: file.tour.flightSeconds, pause_seconds: file.tour.pauseSeconds },
    views: file.views.map((view) => ({
      name: view.name,
      eye: v3(view.eye),
      target: v3(view.target),
      up: v3(view.up),
      fovy_deg: shareableNumber(view.fovyDeg),
      ...(view.pin ? { pin: v3(view.pin) } : {}),
    })),
  };
  return compact ? JSON.stringify(json) : `${JSON.stringify(json, null, 2)}\n`;
}

/** Throws ViewsFileError unless `name` can name a view: 1 to MAX_VIEW_NAME characters, not only spaces, no control characters. */
export function checkViewName(name: unknown, where = 'the name'): string {
  if (typeof name !== 'string') throw new ViewsFileError(`${where} must be text, got ${describe(name)}`);
  if (name.trim() === '') throw new ViewsFileError(`${where} is empty`);
  if (name.length > MAX_VIEW_NAME) throw new ViewsFileError(`${where} is ${name.length} characters long; the most is ${MAX_VIEW_NAME}`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) throw new ViewsFileError(`${where} holds a control character`);
  return name;
}

/** Throws ViewsFileError unless the pose can be drawn: eye and target apart, up not along the view, a field of view in (0, 180). */
export function checkPose(pose: Pick<NamedView, 'eye' | 'target' | 'up' | 'fovyDeg'>, where: string): void {
  for (const key of ['eye', 'target', 'up'] as const) vector(pose[key], `${where}: "${key}"`);
  const f = pose.fovyDeg;
  if (typeof f !== 'number' || !Number.isFinite(f) || f <= 0 || f >= 180) throw new ViewsFileError(`${where}: "fovy_deg" must be a number of degrees between 0 and 180, got ${describe(f)}`);
  const forward = pose.target.map((t, i) => t - pose.eye[i]!);
  if (Math.hypot(...forward) === 0) throw new ViewsFileError(`${where}: "eye" and "target" are the same point`);
  const [a, b] = [forward, pose.up];
  const cross = [a[1]! * b[2] - a[2]! * b[1], a[2]! * b[0] - a[0]! * b[2], a[0]! * b[1] - a[1]! * b[0]];
  if (Math.hypot(...cross) === 0) throw new ViewsFileError(`${where}: "up" is zero or along the view direction`);
}

function readView(item: unknown, where: string): NamedView {
  if (!isObject(item)) throw new ViewsFileError(`${where} must be an object, got ${describe(item)}`);
  const name = checkViewName(item.name, `${where}'s "name"`);
  const named = `view ${JSON.stringify(name)}`;
  const view: NamedView = {
    name,
    eye: vector(item.eye, `${named}: "eye"`),
    target: vector(item.target, `${named}: "target"`),
    up: vector(item.up, `${named}: "up"`),
    fovyDeg: item.fovy_deg as number,
    pin: item.pin === undefined || item.pin === null ? null : vector(item.pin, `${named}: "pin"`),
  };
  checkPose(view, named);
  return view;
}

function readTour(value: unknown): TourTiming {
  if (value === undefined) return DEFAULT_TOUR;
  if (!isObject(value)) throw new ViewsFileError(`"tour" must be an object, got ${describe(value)}`);
  const seconds = (key: string, fallback: number): number => {
    const v = value[key];
    if (v === undefined) return fallback;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > MAX_TOUR_SECONDS) throw new ViewsFileError(`"tour": "${key}" must be a number of seconds from 0 to ${MAX_TOUR_SECONDS}, got ${describe(v)}`);
    return v;
  };
  return { flightSeconds: seconds('flight_seconds', DEFAULT_TOUR.flightSeconds), pauseSeconds: seconds('pause_seconds', DEFAULT_TOUR.pauseSeconds) };
}

function vector(v: unknown, where: string): Point3 {
  if (v === undefined) throw new ViewsFileError(`${where} is missing`);
  if (!Array.isArray(v) || v.length !== 3 || !v.every((x) => typeof x === 'number' && Number.isFinite(x) && Math.abs(x) <= MAX_COORDINATE)) {
    throw new ViewsFileError(`${where} must be an array of three numbers within ±${MAX_COORDINATE}, got ${describe(v)}`);
  }
  return [v[0], v[1], v[2]];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A value in a message, cut short (a hostile file's values may be long). */
function describe(v: unknown): string {
  const text = v === undefined ? 'nothing' : JSON.stringify(v) ?? String(v);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}
