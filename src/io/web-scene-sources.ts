/**
 * The scene sources of the workers (source-bytes.ts): a URL (its
 * companions fetched from beside it, and only from there), bytes in
 * memory, and a dropped folder (a world). Files dropped or picked
 * together are file-scene-source.ts, which knows the formats' names; these
 * know no format, so the world worker reads through them without the
 * formats' list. DOM-free: File, fetch and Response are those of a
 * worker, or of Node.
 */
import { SplatFormatError } from './format-error';
import { SplatLimitError } from './load-limits';
import { isWorldIndexName } from './lod/world-name';
import { lastPathSegment } from './path-name';
import { chunksOf, readBounded, streamChunks, type SceneSource, type SourceBytes } from './source-bytes';
import { checkSceneUrl } from './scene-url';

/**
 * A dropped or picked file's bytes, refused before reading when it is
 * larger than `maxBytes`. A file read cannot be cancelled midway: an abort
 * is seen before it starts and when it ends.
 */
export async function readFileBounded(file: File, maxBytes: number, signal?: AbortSignal, name = file.name): Promise<Uint8Array> {
  signal?.throwIfAborted();
  if (file.size > maxBytes) {
    throw new SplatLimitError(`'${name}' is ${file.size.toLocaleString('en-US')} bytes: more than the ${maxBytes.toLocaleString('en-US')} it can take`);
  }
  const bytes = new Uint8Array(await file.arrayBuffer());
  signal?.throwIfAborted();
  return bytes;
}

/**
 * Fetches a scene URL (http, https or blob only), refusing error statuses
 * and web pages. `beside`: the main file a companion is fetched for; a
 * redirect that takes the companion out of the main file's folder or
 * server is refused by name, as the address it led to would be if the main
 * file named it (companionUrl). Redirects are followed, then checked: a
 * browser shows nothing of a redirect it was told not to follow, so the
 * refusal could not say where it led; nothing of a refused response is
 * read.
 */
async function fetchScene(url: string, signal?: AbortSignal, beside?: string): Promise<Response> {
  checkSceneUrl(url);
  const response = await fetch(url, { signal });
  if (beside !== undefined && response.redirected && response.url && !isBeside(new URL(response.url), new URL(beside))) {
    await response.body?.cancel().catch(() => {});
    throw new SplatFormatError(
      `${url} was redirected to ${response.url}, which is not beside ${lastPathSegment(beside)}: only files in its folder on the same server are fetched`,
    );
  }
  if (!response.ok) throw new Error(`Could not download ${url}: HTTP ${response.status} ${response.statusText}`);
  // A dev server or a single-page host answers a wrong path with its index page.
  if ((response.headers.get('Content-Type') ?? '').startsWith('text/html')) {
    throw new SplatFormatError(`${url} is a web page, not a splat file: check the address`);
  }
  return response;
}

/** Bytes in words: "1.2 MB", "65.5 kB", "300 bytes". */
function sizeText(bytes: number): string {
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(1)} MB`;
  return bytes >= 1e3 ? `${(bytes / 1e3).toFixed(1)} kB` : `${bytes} bytes`;
}

/**
 * `chunks` of a download, its failure (the browser says only "network
 * error", Node "terminated") told with what arrived of how much: "The
 * download of a.ply stopped after 1.2 MB of 3.7 MB (network error)", or
 * "after 1.2 MB, size unknown" where the headers do not say.
 * `total` is the file's size where the headers say it for certain.
 */
export async function* downloadChunks(chunks: AsyncIterable<Uint8Array>, name: string, total: number | undefined): AsyncGenerator<Uint8Array> {
  let received = 0;
  try {
    // A reader that stops early returns through here, which cancels the download.
    for await (const chunk of chunks) {
      received += chunk.length;
      yield chunk;
    }
  } catch (error) {
    // A cancelled download stays an AbortError, which callers take for a cancel, not a failure.
    if ((error as { name?: unknown } | null)?.name === 'AbortError') throw error;
    // Only the download's own failures land here: the reader's errors stay with the reader.
    const reason = error instanceof Error ? error.message : String(error);
    const of = total !== undefined ? ` of ${sizeText(total)}` : ', size unknown';
    throw new Error(`The download of ${name} stopped after ${sizeText(received)}${of} (${reason})`, { cause: error });
  }
}

/** A response's body as it arrives, with what its headers say of its size. */
async function responseBytes(response: Response, url: string): Promise<SourceBytes> {
  // With a Content-Encoding the length is of the compressed body, not the
  // file; and a cross-origin response hides that header unless the server
  // exposes it, so there the length is only a guide to progress.
  const length = Number(response.headers.get('Content-Length') ?? 0);
  const announced = length > 0 ? length : undefined;
  const certain = response.type === 'basic' && !response.headers.get('Content-Encoding');
  const totalBytes = certain ? announced : undefined;
  const chunks = response.body
    ? downloadChunks(streamChunks(response.body), lastPathSegment(url), totalBytes)
    : chunksOf(new Uint8Array(await response.arrayBuffer()), 1 << 20);
  return { chunks, totalBytes, expectedBytes: announced };
}

/**
 * The URL of a file that the scene at `mainUrl` names: beside it, in its
 * folder or one below, on the same server. A name that leads elsewhere (an
 * absolute URL, "../") is refused: a scene file does not send the viewer to
 * fetch from other places.
 */
export function companionUrl(name: string, mainUrl: string): string {
  const main = new URL(mainUrl);
  let url: URL | undefined;
  try {
    url = new URL(name, main);
  } catch {
    // Not a URL relative to the main one (blob: URLs have no folder).
  }
  if (!url || !isBeside(url, main)) {
    throw new SplatFormatError(
      `${lastPathSegment(mainUrl)} names '${name}', which is not beside it: only files in its folder on the same server are fetched`,
    );
  }
  return url.href;
}

/** `url` lies in `main`'s folder or below, on its server. */
function isBeside(url: URL, main: URL): boolean {
  const folder = main.pathname.slice(0, main.pathname.lastIndexOf('/') + 1);
  return url.origin === main.origin && url.pathname.startsWith(folder);
}

/**
 * A scene at a URL; the files its main file names are fetched from beside
 * it. Where the main file was redirected, "beside it" is beside the address
 * it was found at, as a browser resolves a page's links against the
 * address it came from (a host that redirects to its file server serves
 * the files beside it there).
 */
export function urlSource(url: string): SceneSource {
  let found = url;
  return {
    name: url,
    stage: 'download',
    open: async (signal) => {
      const response = await fetchScene(url, signal);
      if (response.redirected && response.url) found = response.url;
      return responseBytes(response, url);
    },
    companion: async (name, maxBytes, signal) => {
      const companion = companionUrl(name, found);
      return readBounded(await responseBytes(await fetchScene(companion, signal, found), companion), maxBytes, companion);
    },
  };
}

/** A file's bytes already in memory, under its name; it has nothing beside it. */
export function bufferSource(bytes: Uint8Array, name: string): SceneSource {
  return {
    name,
    stage: 'read',
    open: async () => ({ chunks: chunksOf(bytes, 1 << 20), totalBytes: bytes.length }),
    companion: async () => {
      throw new Error(`only the bytes of ${name} were given, not the files beside it`);
    },
  };
}

/** A file of a dropped folder: its path from the dropped folder ("world/0_0/meta.json"), '/'-separated. */
export interface FolderEntry {
  path: string;
  file: File;
}

/**
 * The most files a dropped folder may hold. A world of 250M splats has
 * about 1,000 chunks of 7 files each; a folder far past that is not a
 * world, and listing it would take minutes.
 */
export const MAX_FOLDER_FILES = 100_000;

/** A path's segments without empty ones ("/world//0_0/" → ["world", "0_0"]). */
const segmentsOf = (path: string): string[] => path.split('/').filter((part) => part !== '');

/**
 * A world in a dropped folder: its index (the shallowest lod-meta.json
 * there) and the files it names, looked up by their path relative to the
 * index's folder (letter case aside, as dropped files are matched by
 * name). A name leading out of that folder is refused.
 */
export function folderSource(entries: readonly FolderEntry[]): SceneSource {
  if (entries.length > MAX_FOLDER_FILES) {
    throw new SplatLimitError(`The folder holds ${entries.length.toLocaleString('en-US')} files, more than a world has (at most ${MAX_FOLDER_FILES.toLocaleString('en-US')} are read)`);
  }
  const byPath = new Map(entries.map((entry) => [segmentsOf(entry.path).join('/').toLowerCase(), entry.file]));
  const mains = entries.filter((entry) => isWorldIndexName(entry.path)).map((entry) => segmentsOf(entry.path));
  const depth = mains.reduce((least, segments) => Math.min(least, segments.length), Infinity);
  const shallowest = mains.filter((segments) => segments.length === depth).map((segments) => segments.join('/'));
  if (shallowest.length === 0) throw new SplatFormatError(`None of the ${entries.length.toLocaleString('en-US')} files dropped is a lod-meta.json`);
  if (shallowest.length > 1) throw new SplatFormatError(`The folder holds ${shallowest.length} worlds side by side (${shallowest.slice(0, 3).join(', ')}): open one at a time`);
  const mainPath = shallowest[0]!;
  const main = byPath.get(mainPath.toLowerCase())!;
  const folder = mainPath.slice(0, mainPath.lastIndexOf('/') + 1);
  return {
    name: mainPath,
    stage: 'read',
    open: async () => ({ chunks: streamChunks(main.stream()), totalBytes: main.size }),
    companion: async (name, maxBytes, signal) => {
      const parts = name.split('/');
      if (name.startsWith('/') || name.includes('\\') || parts.some((part) => part === '' || part === '.' || part === '..')) {
        throw new SplatFormatError(`${mainPath} names '${name}', which is not in its folder: only files beside it or below are read`);
      }
      const file = byPath.get(`${folder}${name}`.toLowerCase());
      if (!file) throw new Error(`'${folder}${name}' is not among the ${entries.length.toLocaleString('en-US')} files dropped`);
      return readFileBounded(file, maxBytes, signal, `${folder}${name}`);
    },
  };
}
