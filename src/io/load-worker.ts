/**
 * Module Web Worker that reads splat files off the main thread, decoding
 * them while the bytes arrive (see splat-stream.ts), so a 70 MB scene
 * neither freezes the page nor is held twice. Each load gets a worker of
 * its own: cancelling a load terminates its worker, which stops the
 * decoding, aborts the download and frees the memory at once. Protocol:
 *   in:  { id, limits, file } | { id, limits, files } (a SOG meta.json and
 *        its images) | { id, limits, url } | { id, limits, buffer, name }
 *   out: { id, type: 'progress', fraction, stage } and, for a file
 *        decoded as it arrives, { id, type: 'preview', part } (the next
 *        range of decoded splats, src/io/preview-sender.ts) ... then
 *        { id, type: 'done', cloud, warnings } (typed-array buffers
 *        transferred) or { id, type: 'error', message, name }.
 */
import type { SplatCloud } from '../scene/splat-cloud';
import { SplatFormatError } from './format-error';
import { chunksOf, loadSplatStream, streamChunks, type SplatStreamOptions } from './splat-stream';
import { parseSog, SOG_META_MAX_BYTES } from './sog';
import { oversizedSplatWarning } from '../scene/oversized-splats';
import { validateSplatCloud } from './validate-splats';
import { SplatLimitError, type LoadLimits } from './load-limits';
import { checkSceneUrl } from './scene-url';
import { previewSender } from './preview-sender';
import type { PreviewPart } from './scene-preview';

export type LoadStage = 'download' | 'read' | 'parse';

export type LoadRequest = { id: number; limits: LoadLimits; /** Send the scene so far while it loads. */ preview?: boolean } & (
  | { file: File }
  | { files: File[] }
  | { url: string }
  | { buffer: ArrayBuffer; name: string }
);

export type LoadResponse =
  | { id: number; type: 'progress'; fraction: number; stage: LoadStage }
  | { id: number; type: 'preview'; part: PreviewPart }
  | { id: number; type: 'done'; cloud: SplatCloud; warnings: string[]; bytes: number | null }
  | { id: number; type: 'error'; message: string; name: string };

// The project's lib set is DOM, not WebWorker; this is the part of the worker
// global scope used here.
interface WorkerScope {
  onmessage: ((event: MessageEvent<LoadRequest>) => void) | null;
  postMessage(message: LoadResponse, transfer?: Transferable[]): void;
}
const scope = self as unknown as WorkerScope;

/** The last path segment of a URL, without query or fragment. */
function urlFileName(url: string): string {
  let path = url;
  try {
    path = new URL(url, 'http://localhost/').pathname;
  } catch {
    path = url.split(/[?#]/)[0] ?? url;
  }
  const segments = path.split('/');
  try {
    return decodeURIComponent(segments[segments.length - 1] ?? '');
  } catch {
    return segments[segments.length - 1] ?? '';
  }
}

interface OpenedSource {
  chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>;
  name: string;
  /** The file's size, when known for certain. */
  totalBytes: number | undefined;
  /** What the source announces, for progress only. */
  expectedBytes?: number;
}

/** Fetches a scene URL (http, https or blob only), refusing error statuses and web pages. */
async function fetchScene(url: string): Promise<Response> {
  checkSceneUrl(url);
  const response = await fetch(url);
  if (!response.ok) throw new Error(`Could not download ${url}: HTTP ${response.status} ${response.statusText}`);
  // A dev server or a single-page host answers a wrong path with its index page.
  if ((response.headers.get('Content-Type') ?? '').startsWith('text/html')) {
    throw new SplatFormatError(`${url} is a web page, not a splat file: check the address`);
  }
  return response;
}

async function openUrl(url: string): Promise<OpenedSource> {
  const response = await fetchScene(url);
  const name = urlFileName(url);
  // With a Content-Encoding the length is of the compressed body, not the
  // file; and a cross-origin response hides that header unless the server
  // exposes it, so there the length is only a guide to progress.
  const length = Number(response.headers.get('Content-Length') ?? 0);
  const announced = length > 0 ? length : undefined;
  const certain = response.type === 'basic' && !response.headers.get('Content-Encoding');
  const chunks = response.body ? streamChunks(response.body) : chunksOf(new Uint8Array(await response.arrayBuffer()), 1 << 20);
  return { chunks, name, totalBytes: certain ? announced : undefined, expectedBytes: announced };
}

function openFile(file: File): OpenedSource {
  return { chunks: streamChunks(file.stream()), name: file.name, totalBytes: file.size };
}

/** The name of an unbundled SOG's index file. */
function isSogMeta(name: string): boolean {
  return /(^|[/\\])meta\.json$/i.test(name);
}

/**
 * All the bytes of a response body, refused with a SplatLimitError as soon
 * as they pass `maxBytes` (a size the server announces is checked first), so
 * a lying or endless body costs no more than the bound.
 */
async function readBounded(response: Response, maxBytes: number, what: string): Promise<Uint8Array> {
  const refuse = (bytes: number) => {
    throw new SplatLimitError(`${what} is ${bytes.toLocaleString('en-US')} bytes or more: more than the ${maxBytes.toLocaleString('en-US')} it can take`);
  };
  const announced = Number(response.headers.get('Content-Length') ?? 0);
  if (!response.headers.get('Content-Encoding') && announced > maxBytes) refuse(announced);
  const parts: Uint8Array[] = [];
  let length = 0;
  if (response.body) {
    for await (const chunk of streamChunks(response.body)) {
      length += chunk.length;
      if (length > maxBytes) refuse(length);
      parts.push(chunk);
    }
  }
  const bytes = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  return bytes;
}

/** A dropped or picked file's bytes, refused before reading when it is larger than `maxBytes`. */
async function readFileBounded(file: File, maxBytes: number, what: string): Promise<Uint8Array> {
  if (file.size > maxBytes) {
    throw new SplatLimitError(`${what} is ${file.size.toLocaleString('en-US')} bytes: more than the ${maxBytes.toLocaleString('en-US')} it can take`);
  }
  return new Uint8Array(await file.arrayBuffer());
}

/** An unbundled SOG: meta.json among dropped files, the images it names beside it. */
async function loadSogFiles(files: File[], limits: LoadLimits, onProgress: (fraction: number) => void): Promise<SplatCloud> {
  const meta = files.find((f) => isSogMeta(f.name));
  if (!meta) {
    throw new SplatFormatError(
      `${files.length} files were given and none is a SOG meta.json: open one splat file at a time, ` +
      'or a SOG meta.json together with its .webp images',
    );
  }
  const byName = new Map(files.map((f) => [f.name.toLowerCase(), f]));
  const readEntry = async (name: string, maxBytes = limits.maxBytes) => {
    const file = byName.get(name.toLowerCase());
    if (!file) {
      throw new Error(files.length === 1
        ? 'only meta.json was opened: open it together with its .webp images'
        : `it was not among the ${files.length} files opened with meta.json`);
    }
    return readFileBounded(file, maxBytes, `'${file.name}'`);
  };
  const metaBytes = await readFileBounded(meta, SOG_META_MAX_BYTES, meta.name);
  const cloud = await parseSog(metaBytes, readEntry, { onProgress, limits });
  validateSplatCloud(cloud);
  return cloud;
}

/** An unbundled SOG on a server: meta.json's images are fetched from beside it. */
async function loadSogUrl(metaUrl: string, limits: LoadLimits, onProgress: (fraction: number) => void): Promise<SplatCloud> {
  const fetchBytes = async (url: string, maxBytes: number) => readBounded(await fetchScene(url), maxBytes, url);
  const meta = await fetchBytes(metaUrl, SOG_META_MAX_BYTES);
  const readEntry = (name: string, maxBytes = limits.maxBytes) => fetchBytes(new URL(name, metaUrl).href, maxBytes);
  const cloud = await parseSog(meta, readEntry, { onProgress, limits });
  validateSplatCloud(cloud);
  return cloud;
}

type Report = (stage: LoadStage, fraction: number) => void;

interface LoadContext {
  limits: LoadLimits;
  report: Report;
  warn: (message: string) => void;
  /** Sends the next range of splats decoded, for the viewer to draw while the rest arrives (when asked to). */
  preview: ((part: PreviewPart) => void) | null;
  /** Bytes of the scene's files read or downloaded, where the load counts them. */
  bytes: number | null;
}

/** `chunks`, counting their bytes into context.bytes as they pass. */
async function* counted(chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, context: LoadContext): AsyncIterable<Uint8Array> {
  context.bytes = 0;
  for await (const chunk of chunks) {
    context.bytes += chunk.length;
    yield chunk;
  }
}

/** Streams one source through the splat loader, its byte progress reported as `readStage`. */
function loadSource(source: OpenedSource, readStage: LoadStage, context: LoadContext): Promise<SplatCloud> {
  const { report, limits, warn } = context;
  const options: SplatStreamOptions = {
    name: source.name,
    totalBytes: source.totalBytes,
    expectedBytes: source.expectedBytes,
    limits,
    onWarning: warn,
    onProgress: (stage, fraction) => report(stage === 'read' ? readStage : 'parse', fraction),
    onDecoded: context.preview ? previewSender(context.preview) : undefined,
  };
  // A file's size is known; a download's is what arrives.
  context.bytes = source.totalBytes ?? null;
  return loadSplatStream(source.totalBytes === undefined ? counted(source.chunks, context) : source.chunks, options);
}

async function load(request: LoadRequest, context: LoadContext): Promise<SplatCloud> {
  const { report, limits } = context;
  if ('files' in request || 'file' in request) {
    const files = 'files' in request ? request.files : [request.file];
    // A meta.json alone still goes to the SOG reader, which names the images it lacks.
    if (files.length === 1 && !isSogMeta(files[0]!.name)) return loadSource(openFile(files[0]!), 'read', context);
    context.bytes = files.reduce((sum, f) => sum + f.size, 0);
    return loadSogFiles(files, limits, (f) => report('parse', f));
  }
  if ('url' in request) {
    if (isSogMeta(urlFileName(request.url))) {
      return loadSogUrl(request.url, limits, (f) => report('download', f));
    }
    return loadSource(await openUrl(request.url), 'download', context);
  }
  const bytes = new Uint8Array(request.buffer);
  return loadSource({ chunks: chunksOf(bytes, 1 << 20), name: request.name, totalBytes: bytes.length }, 'read', context);
}

scope.onmessage = async (event) => {
  const request = event.data;
  const { id } = request;
  const warnings: string[] = [];
  const context: LoadContext = {
    limits: request.limits,
    report: (stage, fraction) => scope.postMessage({ id, type: 'progress', fraction, stage }),
    warn: (message) => warnings.push(message),
    preview: request.preview
      ? (part) => {
        const arrays = [part.positions, part.scales, part.rotations, part.opacities, part.dc, part.sh];
        scope.postMessage({ id, type: 'preview', part }, arrays.map((a) => a.buffer as ArrayBuffer));
      }
      : null,
    bytes: null,
  };
  try {
    const cloud = await load(request, context);
    const oversized = oversizedSplatWarning(cloud);
    if (oversized) warnings.push(oversized);
    const arrays = [cloud.positions, cloud.scales, cloud.rotations, cloud.opacities, cloud.dc, cloud.sh];
    scope.postMessage({ id, type: 'done', cloud, warnings, bytes: context.bytes }, arrays.map((a) => a.buffer as ArrayBuffer));
  } catch (error) {
    const e = error instanceof Error ? error : new Error(String(error));
    scope.postMessage({ id, type: 'error', message: e.message, name: e.name });
  }
};
