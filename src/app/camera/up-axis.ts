/**
 * The axes a scene's up may be, as the panel, view links, camera files and
 * the render command name them. DOM-free.
 */

/**
 * Which way is up: +y for the viewer's own default scene, −y for captured
 * scenes (the INRIA trainers' convention, which the other formats follow),
 * or any other axis a scene was made with.
 */
export const UP_AXES = {
  '+y': [0, 1, 0],
  '-y': [0, -1, 0],
  '+z': [0, 0, 1],
  '-z': [0, 0, -1],
  '+x': [1, 0, 0],
  '-x': [-1, 0, 0],
} as const satisfies Record<string, readonly [number, number, number]>;
export type UpAxis = keyof typeof UP_AXES;

export function isUpAxis(value: string): value is UpAxis {
  return Object.hasOwn(UP_AXES, value);
}

/** The axis `up` is exactly, or null for another direction (a levelled view). */
export function upAxisOf(up: ArrayLike<number>): UpAxis | null {
  const found = Object.entries(UP_AXES).find(([, v]) => v[0] === up[0] && v[1] === up[1] && v[2] === up[2]);
  return found ? (found[0] as UpAxis) : null;
}

/** The same axis, pointing the other way: a scene turned upside down. */
export function oppositeUpAxis(axis: UpAxis): UpAxis {
  return `${axis[0] === '+' ? '-' : '+'}${axis[1]}` as UpAxis;
}

/** The axis nearest the direction `up` (a levelled view's up), the larger component winning. */
export function nearestUpAxis(up: ArrayLike<number>): UpAxis {
  const a = [0, 1, 2].reduce((best, i) => (Math.abs(up[i]!) > Math.abs(up[best]!) ? i : best), 0);
  return `${up[a]! < 0 ? '-' : '+'}${'xyz'[a]}` as UpAxis;
}

/**
 * The up axis that turns the scene on screen upside down: the opposite of
 * the chosen axis, or of the axis nearest the camera's up for a levelled
 * view.
 */
export function flippedUpAxis(chosen: UpAxis | 'levelled', cameraUp: ArrayLike<number>): UpAxis {
  return oppositeUpAxis(chosen === 'levelled' ? nearestUpAxis(cameraUp) : chosen);
}
