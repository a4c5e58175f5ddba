/**
 * Reading the parts of a glTF JSON document that the splat reader needs,
 * from untrusted JSON: every index, count and offset is checked to be a
 * whole number in range, and a wrong one is a SplatFormatError naming
 * where it is ("accessors[3].count"). DOM-free.
 */
import { SplatFormatError } from '../format-error';

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The object at `where`, or a SplatFormatError. */
export function objectAt(value: unknown, where: string): JsonObject {
  if (!isObject(value)) throw new SplatFormatError(`glTF ${where} is not an object`);
  return value;
}

/** The array `key` of `parent`: [] when absent. */
export function arrayOf(parent: JsonObject, key: string, where: string): unknown[] {
  const value = parent[key];
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new SplatFormatError(`glTF ${where}${key} is not an array`);
  return value;
}

/** The element `index` of the document's top-level array `key` ("accessors"), as an object. */
export function entry(root: JsonObject, key: string, index: number): JsonObject {
  const list = arrayOf(root, key, '');
  if (index >= list.length) throw new SplatFormatError(`glTF refers to ${key}[${index}], but the file has ${list.length} ${key}`);
  return objectAt(list[index], `${key}[${index}]`);
}

/**
 * The whole number `key` of `parent` in [min, max]; `fallback` when absent
 * (a required one has none).
 */
export function integer(parent: JsonObject, key: string, where: string, min = 0, max = Number.MAX_SAFE_INTEGER, fallback?: number): number {
  const value = parent[key];
  if (value === undefined && fallback !== undefined) return fallback;
  if (value === undefined) throw new SplatFormatError(`glTF ${where}.${key} is missing`);
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new SplatFormatError(`glTF ${where}.${key} is ${JSON.stringify(value)}: expected a whole number from ${min} to ${max}`);
  }
  return value;
}

/** The string `key` of `parent`, or undefined when absent. */
export function optionalString(parent: JsonObject, key: string, where: string): string | undefined {
  const value = parent[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new SplatFormatError(`glTF ${where}.${key} is not a string`);
  return value;
}

/** `count` finite numbers at `key` of `parent`, or undefined when absent. */
export function numbers(parent: JsonObject, key: string, where: string, count: number): number[] | undefined {
  const value = parent[key];
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length !== count || value.some((v) => typeof v !== 'number' || !Number.isFinite(v))) {
    throw new SplatFormatError(`glTF ${where}.${key} is not ${count} finite numbers`);
  }
  return value as number[];
}

/** A whole number in [0, max] found as an element of an array ("scenes[0].nodes[2]"). */
export function indexAt(value: unknown, where: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new SplatFormatError(`glTF ${where} is ${JSON.stringify(value)}: expected an index`);
  }
  return value;
}
