/**
 * Choices the page keeps between visits (a panel folder left open or
 * closed), in localStorage. Storage may be missing or refuse (private
 * windows, sandboxed frames, a full quota): then the choice lasts for the
 * visit only and the page works as before.
 */

const PREFIX = 'splatsort.';

/** The stored value of `key`, or null where none is stored or storage is unavailable. */
export function recall(key: string): string | null {
  try {
    return window.localStorage.getItem(PREFIX + key);
  } catch {
    return null;
  }
}

/** Stores `value` under `key`; does nothing where storage is unavailable. */
export function remember(key: string, value: string): void {
  try {
    window.localStorage.setItem(PREFIX + key, value);
  } catch {
    // Not kept: the choice holds for this visit.
  }
}
