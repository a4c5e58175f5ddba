/**
 * How the viewer names what it opens, in messages and the panel. DOM-free.
 */
import { lastPathSegment } from '../io/path-name';

/** The last path segment of an absolute URL, for messages ("scene.ply"); the URL itself when it has none. */
export function fileName(url: string): string {
  return lastPathSegment(url) || url;
}

/** A link's text, cut to a length that reads in a message title. */
export function shortName(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

/** How opened files are named in messages: the file, or a SOG's meta.json among its images. */
export function sceneName(files: File[]): string {
  if (files.length === 1) return files[0]!.name;
  return files.find((f) => /meta\.json$/i.test(f.name))?.name ?? `${files.length} files`;
}
