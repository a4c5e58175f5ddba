/**
 * Which scene addresses the viewer fetches: http and https URLs, absolute or
 * relative to the page, and blob: URLs (a page's own files). Anything else —
 * a malformed address, file:, data:, javascript:, ftp: — is refused with a
 * message that says why, before anything is fetched. DOM-free.
 */
import { SplatFormatError } from './format-error';

export const SCENE_URL_PROTOCOLS: readonly string[] = ['http:', 'https:', 'blob:'];

/** The address, shortened for messages (a link can be any length). */
function quote(address: string): string {
  return `"${address.length > 120 ? `${address.slice(0, 117)}…` : address}"`;
}

/**
 * The absolute URL of a scene address, resolved against `base` (the page's
 * URL). Throws SplatFormatError when the address is not a URL or names a
 * scheme other than http, https or blob.
 */
export function resolveSceneUrl(address: string, base: string): string {
  let url: URL;
  try {
    url = new URL(address, base);
  } catch {
    throw new SplatFormatError(`The scene address ${quote(address)} is not a valid URL`);
  }
  checkProtocol(url, address);
  return url.href;
}

/** Throws SplatFormatError unless `url` is an absolute http, https or blob URL. */
export function checkSceneUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new SplatFormatError(`The scene address ${quote(url)} is not a valid absolute URL`);
  }
  checkProtocol(parsed, url);
}

function checkProtocol(url: URL, address: string): void {
  if (!SCENE_URL_PROTOCOLS.includes(url.protocol)) {
    throw new SplatFormatError(
      `The scene address ${quote(address)} uses "${url.protocol}": only http, https and blob URLs are opened`,
    );
  }
}
