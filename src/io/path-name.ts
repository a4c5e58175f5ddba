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
