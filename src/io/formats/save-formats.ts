/**
 * The formats a scene can be saved as: those of the formats' list with a
 * writer, in its order; which one a file name asks for, and the name a
 * saved scene gets. "Save scene as" and the convert command both read
 * these. DOM-free.
 */
import { lastPathSegment } from '../path-name';
import type { FormatWriter, SplatFormat } from './format';
import { SPLAT_FORMATS } from './index';

/** A format that writes. */
export type WritableFormat = SplatFormat & { readonly writer: FormatWriter };

export const WRITABLE_FORMATS: readonly WritableFormat[] = SPLAT_FORMATS.filter(
  (format): format is (typeof SPLAT_FORMATS)[number] & WritableFormat => format.writer !== undefined,
);

/** The extensions a saved scene may have, as help text lists them (".ply .splat .spz"). */
export const WRITABLE_EXTENSIONS_TEXT = WRITABLE_FORMATS.map((format) => format.extensions[0]).join(' ');

/** The writable format of this id; throws for another id. */
export function writableFormat(id: string): WritableFormat {
  const format = WRITABLE_FORMATS.find((f) => f.id === id);
  if (!format) throw new Error(`No format "${id}" to save as: ${WRITABLE_FORMATS.map((f) => f.id).join(', ')} are`);
  return format;
}

/** The writable format a file name (or path) asks for by its extension; throws, naming those there are, for any other. */
export function formatForOutput(name: string): WritableFormat {
  const base = lastPathSegment(name).toLowerCase();
  const format = WRITABLE_FORMATS.find((f) => f.extensions.some((extension) => base.endsWith(extension)));
  if (!format) {
    const dot = base.lastIndexOf('.');
    const what = dot < 0 ? 'has no extension' : `ends in "${base.slice(dot)}"`;
    throw new Error(`'${name}' ${what}: a scene can be saved as ${WRITABLE_EXTENSIONS_TEXT} (${WRITABLE_FORMATS.map((f) => f.label).join(', ')})`);
  }
  return format;
}

/**
 * The name a scene saved as `format` gets: its own name (a file name, path
 * or URL) without the extension of any format the loaders read, with the
 * format's ("garden.compressed.ply" → "garden.compressed.spz").
 */
export function savedSceneName(sceneName: string, format: WritableFormat): string {
  let base = lastPathSegment(sceneName).trim();
  const known = SPLAT_FORMATS.flatMap((f) => f.extensions).find((extension) => base.toLowerCase().endsWith(extension));
  if (known) base = base.slice(0, -known.length);
  return `${base || 'scene'}${format.extensions[0]}`;
}

