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
 *        { id, type: 'done', cloud, warnings, bytes } (typed-array buffers
 *        transferred) or { id, type: 'error', message, name }.
 */
import type { SplatCloud } from '../scene/splat-cloud';
import type { LoadLimits } from './load-limits';
import { previewSender } from './preview-sender';
import type { PreviewPart } from './scene-preview';
import { fileSource } from './file-scene-source';
import { loadScene, type LoadStage } from './scene-source';
import type { SceneSource } from './source-bytes';
import { bufferSource, urlSource } from './web-scene-sources';

export type { LoadStage };

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

function sourceOf(request: LoadRequest): SceneSource {
  if ('file' in request) return fileSource([request.file]);
  if ('files' in request) return fileSource(request.files);
  if ('url' in request) return urlSource(request.url);
  return bufferSource(new Uint8Array(request.buffer), request.name);
}

const transferables = (cloud: Omit<SplatCloud, 'bounds' | 'antiAliasing'>): ArrayBuffer[] =>
  [cloud.positions, cloud.scales, cloud.rotations, cloud.opacities, cloud.dc, cloud.sh].map((a) => a.buffer as ArrayBuffer);

scope.onmessage = async (event) => {
  const request = event.data;
  const { id } = request;
  try {
    const loaded = await loadScene(sourceOf(request), {
      limits: request.limits,
      onProgress: (stage, fraction) => scope.postMessage({ id, type: 'progress', fraction, stage }),
      onDecoded: request.preview
        ? previewSender((part) => scope.postMessage({ id, type: 'preview', part }, transferables(part)), request.limits)
        : undefined,
    });
    scope.postMessage({ id, type: 'done', ...loaded }, transferables(loaded.cloud));
  } catch (error) {
    const e = error instanceof Error ? error : new Error(String(error));
    scope.postMessage({ id, type: 'error', message: e.message, name: e.name });
  }
};
