/**
 * Module Web Worker that reads splat files off the main thread, decoding
 * them while the bytes arrive (see splat-stream.ts), so a 70 MB scene
 * neither freezes the page nor is held twice. Protocol:
 *   in:  { id, file } | { id, files } (a SOG meta.json and its images)
 *        | { id, url } | { id, buffer, name }
 *   out: { id, type: 'progress', fraction, stage } ... then
 *        { id, type: 'done', cloud } (typed-array buffers transferred) or
 *        { id, type: 'error', message, name }.
 */
import type { SplatCloud } from '../scene/splat-cloud';
import { SplatFormatError } from './format-error';
import { chunksOf, loadSplatStream, streamChunks, type SplatStreamOptions } from './splat-stream';
import { parseSog } from './sog';
import { validateSplatCloud } from './validate-splats';

export type LoadStage = 'download' | 'read' | 'parse';

export type LoadRequest =
  | { id: number; file: File }
  | { id: number; files: File[] }
  | { id: number; url: string }
  | { id: number; buffer: ArrayBuffer; name: string };

export type LoadResponse =
  | { id: number; type: 'progress'; fraction: number; stage: LoadStage }
  | { id: number; type: 'done'; cloud: SplatCloud }
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
  totalBytes: number | undefined;
}

async function openUrl(url: string): Promise<OpenedSource> {
  const response = await fetch(url);
  const name = urlFileName(url);
  if (!response.ok) throw new Error(`Could not download ${url}: HTTP ${response.status} ${response.statusText}`);
  // A dev server or a single-page host answers a wrong path with its index page.
  if ((response.headers.get('Content-Type') ?? '').startsWith('text/html')) {
    throw new SplatFormatError(`${url} is a web page, not a splat file: check the address`);
  }
  // With a Content-Encoding the length is of the compressed body, not the file.
  const length = Number(response.headers.get('Content-Length') ?? 0);
  const totalBytes = length > 0 && !response.headers.get('Content-Encoding') ? length : undefined;
  const chunks = response.body ? streamChunks(response.body) : chunksOf(new Uint8Array(await response.arrayBuffer()), 1 << 20);
  return { chunks, name, totalBytes };
}

function openFile(file: File): OpenedSource {
  return { chunks: streamChunks(file.stream()), name: file.name, totalBytes: file.size };
}

/** The name of an unbundled SOG's index file. */
function isSogMeta(name: string): boolean {
  return /(^|[/\\])meta\.json$/i.test(name);
}

/** An unbundled SOG: meta.json among dropped files, the images it names beside it. */
async function loadSogFiles(files: File[], onProgress: (fraction: number) => void): Promise<SplatCloud> {
  const meta = files.find((f) => isSogMeta(f.name));
  if (!meta) {
    throw new SplatFormatError(
      `${files.length} files were given and none is a SOG meta.json: open one splat file at a time, ` +
      'or a SOG meta.json together with its .webp images',
    );
  }
  const byName = new Map(files.map((f) => [f.name.toLowerCase(), f]));
  const readEntry = async (name: string) => {
    const file = byName.get(name.toLowerCase());
    if (!file) {
      throw new Error(files.length === 1
        ? 'only meta.json was opened: open it together with its .webp images'
        : `it was not among the ${files.length} files opened with meta.json`);
    }
    return new Uint8Array(await file.arrayBuffer());
  };
  const cloud = await parseSog(new Uint8Array(await meta.arrayBuffer()), readEntry, { onProgress });
  validateSplatCloud(cloud);
  return cloud;
}

/** An unbundled SOG on a server: meta.json's images are fetched from beside it. */
async function loadSogUrl(metaUrl: string, onProgress: (fraction: number) => void): Promise<SplatCloud> {
  const fetchBytes = async (url: string) => {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`HTTP ${response.status} ${response.statusText} for ${url}`);
    return new Uint8Array(await response.arrayBuffer());
  };
  const meta = await fetchBytes(metaUrl);
  const cloud = await parseSog(meta, (name) => fetchBytes(new URL(name, metaUrl).href), { onProgress });
  validateSplatCloud(cloud);
  return cloud;
}

type Report = (stage: LoadStage, fraction: number) => void;

/** Streams one source through the splat loader, its byte progress reported as `readStage`. */
function loadSource(source: OpenedSource, readStage: LoadStage, report: Report): Promise<SplatCloud> {
  const options: SplatStreamOptions = {
    name: source.name,
    totalBytes: source.totalBytes,
    onProgress: (stage, fraction) => report(stage === 'read' ? readStage : 'parse', fraction),
  };
  return loadSplatStream(source.chunks, options);
}

async function load(request: LoadRequest, report: Report): Promise<SplatCloud> {
  if ('files' in request || 'file' in request) {
    const files = 'files' in request ? request.files : [request.file];
    // A meta.json alone still goes to the SOG reader, which names the images it lacks.
    if (files.length === 1 && !isSogMeta(files[0]!.name)) return loadSource(openFile(files[0]!), 'read', report);
    return loadSogFiles(files, (f) => report('parse', f));
  }
  if ('url' in request) {
    if (isSogMeta(urlFileName(request.url))) {
      return loadSogUrl(request.url, (f) => report('download', f));
    }
    return loadSource(await openUrl(request.url), 'download', report);
  }
  const bytes = new Uint8Array(request.buffer);
  return loadSource({ chunks: chunksOf(bytes, 1 << 20), name: request.name, totalBytes: bytes.length }, 'read', report);
}

scope.onmessage = async (event) => {
  const request = event.data;
  const { id } = request;
  const report: Report = (stage, fraction) => scope.postMessage({ id, type: 'progress', fraction, stage });
  try {
    const cloud = await load(request, report);
    const arrays = [cloud.positions, cloud.scales, cloud.rotations, cloud.opacities, cloud.dc, cloud.sh];
    scope.postMessage({ id, type: 'done', cloud }, arrays.map((a) => a.buffer as ArrayBuffer));
  } catch (error) {
    const e = error instanceof Error ? error : new Error(String(error));
    scope.postMessage({ id, type: 'error', message: e.message, name: e.name });
  }
};
