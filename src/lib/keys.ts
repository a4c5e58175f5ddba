/**
 * Which key presses a viewer's controls take: not those typed into a field
 * of the page (a panel's number box, a select), and all of them before the
 * page's own controls see them. DOM, no GPU.
 */

/**
 * True for a key press that belongs to a text field or a choice list (a
 * panel's number box, a select): the page's shortcuts leave those alone.
 */
export function isTypingKey(event: KeyboardEvent): boolean {
  const target = event.target as HTMLElement | null;
  const field = target?.closest?.('input, select, textarea, [contenteditable]');
  // A checkbox or a button in focus (the panel's, after a click) takes no typing: the keys still steer.
  return Boolean(field) && !(field instanceof HTMLInputElement && UNTYPED_INPUTS.has(field.type));
}

/** Input types that take no typed text. */
const UNTYPED_INPUTS = new Set(['checkbox', 'radio', 'button', 'submit', 'reset', 'color', 'file', 'image']);

/**
 * Options for the page's key listeners: heard on the way down (capture),
 * before the panel's controls see the key. lil-gui stops every key at its
 * controllers so that typing in them does not reach the page, which left
 * the keys dead after a click on any panel button; isTypingKey keeps
 * typing in a field to the field.
 */
export const PAGE_KEY_LISTENER: AddEventListenerOptions = { capture: true };
