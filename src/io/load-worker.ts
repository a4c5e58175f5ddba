/**
 * Module Web Worker that downloads (optionally) and parses splat files off the
 * main thread, so a 70 MB scene does not freeze the page. Protocol:
 *   in:  { id, buffer, name } | { id, url }
 *   out: { id, type: 'progress', fraction, stage } ... then
 *        { id, type: 'done', cloud } (typed-array buffers transferred) or
 *        { id, type: 'error', message, name }.
 */
import type { SplatCloud } from '../scene/splat-cloud';
import { loadSplatFile } from './parse-splat-file';

export type LoadRequest =
  | { id: number; buffer: ArrayBuffer; name: string }
  | { id: number; url: string };

export type LoadResponse =
  | { id: number; type: 'progress'; fraction: number; stage: 'download' | 'parse' }
  | { id: number; type: 'done'; cloud: SplatCloud }
  | { id: number; type: 'error'; message: string; name: string };

// The project's lib set is DOM, not WebWorker; this is the part of the worker
// global scope used here.
interface WorkerScope {
  onmessage: ((event: MessageEvent<LoadRequest>) => void) | null;
  postMessage(message: LoadResponse, transfer?: Transferable[]): void;
}
const scope = self as unknown as WorkerScope;

/** Fetches a URL into one buffer, reporting progress when the size is known. */
async function download(url: string, report: (fraction: number) => void): Promise<ArrayBuffer> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`Could not download ${url}: HTTP ${response.status} ${response.statusText}`);
  const total = Number(response.headers.get('Content-Length') ?? 0);
  if (!response.body) return response.arrayBuffer();
  const reader = response.body.getReader();
  // Content-Length may be the compressed size; grow if the body turns out larger.
  let data = new Uint8Array(total > 0 ? total : 1 << 20);
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (length + value.byteLength > data.byteLength) {
      const grown = new Uint8Array(Math.max(data.byteLength * 2, length + value.byteLength));
      grown.set(data.subarray(0, length));
      data = grown;
    }
    data.set(value, length);
    length += value.byteLength;
    if (total > 0) report(Math.min(1, length / total));
  }
  report(1);
  return length === data.byteLength ? data.buffer : data.slice(0, length).buffer;
}

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

scope.onmessage = async (event) => {
  const request = event.data;
  const { id } = request;
  const progress = (stage: 'download' | 'parse') => (fraction: number) =>
    scope.postMessage({ id, type: 'progress', fraction, stage });
  try {
    const buffer = 'url' in request ? await download(request.url, progress('download')) : request.buffer;
    // The name (or the URL's last path segment) tells a header-less .splat apart.
    const name = 'url' in request ? urlFileName(request.url) : request.name;
    const cloud = await loadSplatFile(new Uint8Array(buffer), name, { onProgress: progress('parse') });
    const arrays = [cloud.positions, cloud.scales, cloud.rotations, cloud.opacities, cloud.dc, cloud.sh];
    scope.postMessage({ id, type: 'done', cloud }, arrays.map((a) => a.buffer as ArrayBuffer));
  } catch (error) {
    const e = error instanceof Error ? error : new Error(String(error));
    scope.postMessage({ id, type: 'error', message: e.message, name: e.name });
  }
};
