/**
 * The operations on a list of named views: add, remove, move, and which
 * view is next or previous. Each returns a new list and leaves the one it
 * was given as it was; each refuses, saying why, what would break the
 * views file's rules (views-file.ts). DOM-free.
 */
import { checkPose, checkViewName, MAX_VIEWS, ViewsFileError, type NamedView } from './views-file';

/** The list with `view` at its end; a name already taken or a list already full is refused. */
export function addView(views: readonly NamedView[], view: NamedView): NamedView[] {
  const name = checkViewName(view.name, 'a view\'s name');
  if (views.some((v) => v.name === name)) throw new ViewsFileError(`a view named "${name}" is already there: remove it, or name this one otherwise`);
  if (views.length >= MAX_VIEWS) throw new ViewsFileError(`there are ${views.length} views already; the most is ${MAX_VIEWS}`);
  checkPose(view, `view "${name}"`);
  return [...views, structuredClone(view)];
}

/** The list without the view named `name`; an unknown name is refused. */
export function removeView(views: readonly NamedView[], name: string): NamedView[] {
  indexOfView(views, name);
  return views.filter((v) => v.name !== name);
}

/** The list with the view named `name` at `index` (clamped to the list), the others in their order. */
export function moveView(views: readonly NamedView[], name: string, index: number): NamedView[] {
  if (!Number.isInteger(index)) throw new ViewsFileError(`a view's place must be a whole number, got ${index}`);
  const from = indexOfView(views, name);
  const to = Math.max(0, Math.min(views.length - 1, index));
  const moved = views.filter((_, i) => i !== from);
  moved.splice(to, 0, views[from]!);
  return moved;
}

/** Where the view named `name` is; an unknown name is refused, naming the views there are. */
export function indexOfView(views: readonly NamedView[], name: string): number {
  const index = views.findIndex((v) => v.name === name);
  if (index < 0) {
    const known = views.length === 0 ? 'there are none' : `there are ${views.map((v) => `"${v.name}"`).join(', ')}`;
    throw new ViewsFileError(`no view is named "${name}": ${known}`);
  }
  return index;
}

/**
 * The view `step` places after (1) or before (−1) the one at `current`,
 * around the end of the list; from none, the first (1) or the last (−1).
 * Null for an empty list.
 */
export function steppedIndex(count: number, current: number | null, step: 1 | -1): number | null {
  if (count === 0) return null;
  if (current === null || current < 0 || current >= count) return step === 1 ? 0 : count - 1;
  return (current + step + count) % count;
}
