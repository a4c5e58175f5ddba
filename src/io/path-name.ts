/**
 * The name a file goes by, from whatever names it: a file name, a path
 * (either slash), or an absolute URL. DOM-free.
 */

/** A scheme of two letters or more: "C:\scenes\a.ply" is a Windows path, not a URL. */
const URL_SCHEME = /^[a-z][a-z0-9+.-]+:/i;

/**
 * The last path segment: of a URL's path, without its query or fragment and
 * percent-decoded ("https://host/a/my%20scene.ply?v=2" → "my scene.ply"); of
 * a path, after its last / or \ ("C:\scenes\a.ply" → "a.ply"). A file name
 * is kept whole, "#" and "?" included: they are ordinary characters there.
 * '' when the path ends in a slash.
 */
export function lastPathSegment(name: string): string {
  let path = name;
  let url = false;
  if (URL_SCHEME.test(name)) {
    try {
      path = new URL(name).pathname;
      url = true;
    } catch {
      // Not a URL after all: a name that happens to contain a colon.
    }
  }
  const segment = path.slice(Math.max(path.lastIndexOf('/'), url ? -1 : path.lastIndexOf('\\')) + 1);
  if (!url) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** A control character: C0, DEL or C1. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Why the name `path` (raw, or percent-decoded) is not one a file is given
 * by, or null: a control character anywhere (a tab or a line break
 * included: a URL parser drops them, so ".\t." would name ".."), an empty
 * segment ("a//b", a trailing "/"), or white space at either end of a
 * segment (a URL parser strips it from the ends of a name; a name that
 * depends on who reads it is refused whole, when the file naming it is
 * read, not when the file it names is asked for).
 */
function nameError(path: string): string | null {
  const control = CONTROL.exec(path);
  if (control) return `has a control character (U+${control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')})`;
  for (const segment of path.split('/')) {
    if (segment === '') return 'has an empty segment ("//", or a "/" at an end)';
    if (/^\s|\s$/.test(segment)) return `has white space at an end of ${JSON.stringify(segment)}`;
  }
  return null;
}

/**
 * Why `relative` (a path a file gives, URI-style: '/'-separated and
 * percent-encoded) cannot name a file beside `main` ("the index"): empty,
 * absolute, a URL of its own, a backslash, a query or fragment, a step up
 * ("..", written plainly or percent-encoded), a control character, an
 * empty segment or white space at a segment's end (nameError, written
 * plainly or percent-encoded); null when it can. A file that names others
 * may name only files in its own folder or below, so opening it never
 * reads from another folder or origin.
 */
export function relativePathError(relative: string, main: string): string | null {
  if (relative === '') return 'is empty';
  if (relative.length > 1024) return `is ${relative.length} characters long (at most 1,024)`;
  if (/^[a-z][a-z0-9+.-]*:/i.test(relative) || relative.startsWith('//')) return `is a URL of its own, not a path beside ${main}`;
  if (relative.startsWith('/')) return `is an absolute path, not a path beside ${main}`;
  if (relative.includes('\\')) return 'has a backslash';
  if (/[?#]/.test(relative)) return 'has a query or fragment';
  const raw = nameError(relative);
  if (raw) return raw;
  let decoded: string;
  try {
    decoded = decodeURIComponent(relative);
  } catch {
    return 'has a broken percent escape';
  }
  if (decoded.split(/[/\\]/).some((part) => part === '..' || part === '.')) return `steps out of ${main}'s folder ("." or "..")`;
  const encoded = nameError(decoded);
  return encoded && `${encoded}, percent-encoded`;
}
