/**
 * A viewer's controls as a help overlay lists them: with a mouse and a
 * keyboard, and on a touch screen (camera-input.ts is what they describe).
 */
import type { ControlHelp } from './public-types';

/** The key that turns the scene upside down (the up axis to its opposite, SplatViewer.flipUp). */
export const FLIP_UP_KEY = 'I';

/** The controls, for a keyboard-help overlay (a mouse and a keyboard). */
export const CAMERA_HELP: readonly ControlHelp[] = [
  ['Left drag', 'Orbit (fly mode: look around)'],
  ['Right / middle / Shift + drag', 'Pan'],
  ['Wheel', 'Zoom (fly mode: flying speed)'],
  ['Arrow keys', 'Orbit step by step, Shift: larger steps (fly mode: look)'],
  ['+ / −', 'Zoom in / out'],
  ['W A S D, Q E', 'Fly mode: move, down / up (Shift: faster)'],
  ['Double-click', 'Orbit the point under the cursor'],
  ['R', 'Reset the view'],
  ['F', 'Frame the whole scene'],
  [FLIP_UP_KEY, 'Turn the scene upside down (the up axis to its opposite)'],
];

/** The controls on a touch screen. */
export const TOUCH_HELP: readonly ControlHelp[] = [
  ['One-finger drag', 'Orbit (fly mode: look around)'],
  ['Pinch', 'Zoom'],
  ['Two-finger drag', 'Pan'],
  ['Touch and hold', 'Orbit the point under the finger'],
];
