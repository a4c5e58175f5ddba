/**
 * How the formats' files are named: whether a name is a format's, and
 * which of files opened together is the one to read. Names only, from the
 * formats' descriptions (index.ts): the page's main thread asks these
 * without importing any reader (readers.ts). DOM-free.
 */
import { lastPathSegment } from '../path-name';
import type { SplatFormat } from './format';
import { SPLAT_FORMATS } from './index';

/** True when `name` (a file name, path or URL) is how the format's files are named. */
export function isNamedFor(format: SplatFormat, name: string): boolean {
  const base = lastPathSegment(name).toLowerCase();
  if (format.fileName !== undefined) return base === format.fileName;
  return format.extensions.some((extension) => base.endsWith(extension));
}

/** True when `name` is the main file of `format`, opened by its name before it is read because it needs files beside it (a SOG meta.json). */
export function opensWithCompanions(format: SplatFormat, name: string): boolean {
  return format.companions !== undefined && isNamedFor(format, name);
}

/**
 * Of files opened together, the one to read: the only one, or the main
 * file of a format with companions (a SOG meta.json among its images).
 */
export function mainFileOf<F extends { name: string }>(files: readonly F[]): F | undefined {
  return files.length === 1 ? files[0] : files.find((file) => SPLAT_FORMATS.some((format) => opensWithCompanions(format, file.name)));
}
