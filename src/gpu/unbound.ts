/**
 * The placeholder a record made once and reused every frame holds where a
 * GPU handle goes (a buffer, a view, an encoder), until the frame writes the
 * real one before any pass reads it: nothing is allocated per frame, and the
 * record's fields need no `| null` or checks on the hot path. Typed as the
 * handle; this is the one place that says a null stands for it.
 */
export function unbound<T>(): T {
  return null as unknown as T;
}
