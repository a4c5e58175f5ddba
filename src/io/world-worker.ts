/**
 * Module Web Worker that reads a Streamed SOG world's chunks off the main
 * thread (decoding a chunk of 256K splats takes 0.2-0.6 s: WebP and
 * attributes), so a world streams in without stalling the frames. Each
 * worker opens the world itself (its index read and checked, as
 * world-files.ts does), then reads the chunks it is asked for. Protocol:
 *   in:  { type: 'open', source, limits, sendIndex }, then
 *        { type: 'read', id, file } and { type: 'cancel', id }
 *   out: { type: 'opened', name, index, usedSplats } (index and usedSplats
 *        only when sendIndex), { type: 'chunk', id, cloud, bytes } (its
 *        arrays transferred) or { type: 'error', id, message, name } (id
 *        null: the opening failed).
 */
import type { SplatCloud } from '../scene/splat-cloud';
import type { LoadLimits } from './load-limits';
import type { LodIndex } from './lod/lod-meta';
import { openWorld, type WorldFiles } from './lod/world-files';
import { folderSource, urlSource, type FolderEntry } from './web-scene-sources';

/** Where the world is: a URL of its index, or a dropped folder's files with their paths. */
export type WorldSourceSpec = { url: string } | { entries: FolderEntry[] };

export type WorldWorkerRequest =
  | { type: 'open'; source: WorldSourceSpec; limits: LoadLimits; sendIndex: boolean }
  | { type: 'read'; id: number; file: number }
  | { type: 'cancel'; id: number };

export type WorldWorkerResponse =
  | { type: 'opened'; name: string; index: LodIndex | null; usedSplats: Uint32Array | null }
  | { type: 'chunk'; id: number; cloud: SplatCloud; bytes: number }
  | { type: 'error'; id: number | null; message: string; name: string };

// The project's lib set is DOM, not WebWorker; this is the part of the worker global scope used here.
interface WorkerScope {
  onmessage: ((event: MessageEvent<WorldWorkerRequest>) => void) | null;
  postMessage(message: WorldWorkerResponse, transfer?: Transferable[]): void;
}
const scope = self as unknown as WorkerScope;

let world: Promise<WorldFiles> | null = null;
const reads = new Map<number, AbortController>();

const fail = (id: number | null, error: unknown) => {
  const e = error instanceof Error ? error : new Error(String(error));
  scope.postMessage({ type: 'error', id, message: e.message, name: e.name });
};

scope.onmessage = async (event) => {
  const request = event.data;
  if (request.type === 'open') {
    const source = 'url' in request.source ? urlSource(request.source.url) : folderSource(request.source.entries);
    world = openWorld(source, { limits: request.limits });
    try {
      const files = await world;
      scope.postMessage({ type: 'opened', name: files.name, index: request.sendIndex ? files.index : null, usedSplats: request.sendIndex ? files.usedSplats : null });
    } catch (error) {
      fail(null, error);
    }
  } else if (request.type === 'cancel') {
    reads.get(request.id)?.abort();
    reads.delete(request.id);
  } else {
    const controller = new AbortController();
    reads.set(request.id, controller);
    try {
      if (!world) throw new Error('the world worker was asked for a chunk before the world was opened');
      const { cloud, bytes } = await (await world).readChunk(request.file, controller.signal);
      if (controller.signal.aborted) return;
      const arrays = [cloud.positions, cloud.scales, cloud.rotations, cloud.opacities, cloud.dc, cloud.sh].map((a) => a.buffer as ArrayBuffer);
      scope.postMessage({ type: 'chunk', id: request.id, cloud, bytes }, arrays);
    } catch (error) {
      if (!controller.signal.aborted) fail(request.id, error);
    } finally {
      reads.delete(request.id);
    }
  }
};
