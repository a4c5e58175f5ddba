/**
 * Command-line values the benchmarks share: whole numbers and
 * comma-separated lists, each refused with the option's name and what it
 * was given.
 */

/** `text` as a whole number ≥ `min`. */
export function wholeNumber(name: string, text: string, min: number): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isInteger(n) || n < min) throw new Error(`--${name}: ${text} is not a whole number ≥ ${min}`);
  return n;
}

/** A comma-separated list of whole numbers ≥ `min`. */
export function wholeNumbers(name: string, text: string, min: number): number[] {
  return text.split(',').map((v) => wholeNumber(name, v, min));
}

/** A comma-separated list, each value one of `known`. */
export function listOption<T extends string>(name: string, text: string, known: readonly T[]): T[] {
  return text.split(',').map((v) => {
    if (!(known as readonly string[]).includes(v)) throw new Error(`--${name}: ${v} is not one of ${known.join(', ')}`);
    return v as T;
  });
}
