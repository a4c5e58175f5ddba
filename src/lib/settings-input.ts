/**
 * Settings a page hands in (setSettings), checked before any is applied:
 * each key is one the viewer has, each value one of its choices, so a typo
 * is an error that names the setting and what it may be, not a viewer that
 * quietly draws something else. DOM-free.
 */
import { CAMERA_MODES } from '../app/camera/fly-motion';
import { isUpAxis } from '../app/camera/up-axis';
import { SORT_LABELS } from '../app/frame/order/order-policy';
import { ANTI_ALIASING_SETTINGS } from '../scene/anti-aliasing';
import { ORDER_SETTINGS, RENDERER_SETTINGS } from '../render/frame-renderer';
import { FRAME_VIEWS } from './choices';
import type { ViewerSettings } from './public-types';

type Check = (value: unknown) => string | null;

const oneOf = (choices: readonly unknown[]): Check => (value) => (choices.includes(value) ? null : `one of ${choices.map((c) => JSON.stringify(c)).join(', ')}`);
const boolean: Check = (value) => (typeof value === 'boolean' ? null : 'true or false');
const number = (min: number, max: number): Check => (value) => (typeof value === 'number' && value >= min && value <= max ? null : `a number from ${min} to ${max}`);

const CHECKS: Record<keyof ViewerSettings, Check> = {
  sortMode: oneOf(Object.keys(SORT_LABELS)),
  keyBits: oneOf(['auto', 16, 24, 32]),
  shDegree: (value) => (Number.isInteger(value) ? number(0, 3)(value) : 'a whole number from 0 to 3'),
  splatScale: number(0.01, 100),
  background: (value) => (typeof value === 'string' && /^#[0-9a-f]{6}$/i.test(value) ? null : 'a colour as #rrggbb'),
  freezeOrder: boolean,
  measureOrder: boolean,
  view: oneOf(FRAME_VIEWS),
  renderer: oneOf(RENDERER_SETTINGS),
  order: oneOf(ORDER_SETTINGS),
  antiAliasing: oneOf(ANTI_ALIASING_SETTINGS),
  autoRotate: boolean,
  smoothCamera: boolean,
  cameraMode: oneOf(CAMERA_MODES),
  upAxis: (value) => (value === 'levelled' || (typeof value === 'string' && isUpAxis(value)) ? null : 'one of "+y", "-y", "+z", "-z", "+x", "-x", "levelled"'),
  worldBudget: (value) => (value === 'auto' || (Number.isInteger(value) && (value as number) > 0) ? null : '"auto" or a whole number of splats'),
};

/** The keys of `input` whose values differ from `settings`' own; throws for an unknown key or a value the setting does not take. */
export function changedSettings(settings: Readonly<ViewerSettings>, input: Readonly<Partial<ViewerSettings>>): (keyof ViewerSettings)[] {
  const changed: (keyof ViewerSettings)[] = [];
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined) continue;
    const check = CHECKS[key as keyof ViewerSettings] as Check | undefined;
    if (!check) throw new Error(`setSettings: there is no setting "${key}" (there are ${Object.keys(CHECKS).join(', ')})`);
    const wanted = check(value);
    if (wanted !== null) throw new Error(`setSettings: ${key} must be ${wanted}, not ${JSON.stringify(value)}`);
    if (settings[key as keyof ViewerSettings] !== value) changed.push(key as keyof ViewerSettings);
  }
  return changed;
}
