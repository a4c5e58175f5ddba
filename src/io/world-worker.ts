/**
 * Module Web Worker that reads a Streamed SOG world's chunks off the main
 * thread (decoding a chunk of 256K splats takes 0.2-0.6 s: WebP and
 * attributes), so a world streams in without stalling the frames. It also
 * packs each chunk as the page's pool holds it (splat-packing.ts: the
 * records and the SH as half floats), so the page only copies the bytes to
 * the GPU. Each worker opens the world itself (its index read and checked,
 * as world-files.ts does), then reads the chunks it is asked for. Protocol:
 *   in:  { type: 'open', source, limits, sendIndex }, then
 *        { type: 'read', id, file, shDegree } (file 'environment': the
 *        index's environment scene; shDegree: the pool's, or null for the
 *        chunk's own) and { type: 'cancel', id }, and
 *        { type: 'room', id, refused } (room given, or refused with why)
 *   out: { type: 'opened', name, index, usedSplats } (index and usedSplats
 *        only when sendIndex); per read { type: 'room', id, bytes } (the
 *        room it asks for before decoding) and one of { type: 'chunk', id,
 *        packed, bytes } (its used splats packed, the arrays transferred),
 *        { type: 'error', id, message, name } or { type: 'cancelled', id };
 *        { type: 'error', id: null, … }: the opening failed.
 *
 * The room of decoded bytes is the page's, one for all the workers
 * (decode-room.ts): a read asks for it once its meta.json is read, and the
 * page takes it back when the read's last message arrives.
 */
import type { ShDegree } from '../scene/splat-cloud';
import type { PackedSplats } from '../scene/splat-packing';
import type { TakeRoom } from './decode-room';
import { SplatLimitError, type LoadLimits } from './load-limits';
import type { LodIndex } from './lod/lod-meta';
import { openWorld, type WorldFiles } from './lod/world-files';
import { folderSource, urlSource, type FolderEntry } from './web-scene-sources';

/** Where the world is: a URL of its index, or a dropped folder's files with their paths. */
export type WorldSourceSpec = { url: string } | { entries: FolderEntry[] };

export type WorldWorkerRequest =
  | { type: 'open'; source: WorldSourceSpec; limits: LoadLimits; sendIndex: boolean }
  | { type: 'read'; id: number; file: number | 'environment'; shDegree: ShDegree | null }
  | { type: 'cancel'; id: number }
  | { type: 'room'; id: number; refused: string | null };

export type WorldWorkerResponse =
  | { type: 'opened'; name: string; index: LodIndex | null; usedSplats: Uint32Array | null }
  | { type: 'chunk'; id: number; packed: PackedSplats; bytes: number }
  | { type: 'error'; id: number | null; message: string; name: string }
  | { type: 'room'; id: number; bytes: number }
  | { type: 'cancelled'; id: number };

// The project's lib set is DOM, not WebWorker; this is the part of the worker global scope used here.
interface WorkerScope {
  onmessage: ((event: MessageEvent<WorldWorkerRequest>) => void) | null;
  postMessage(message: WorldWorkerResponse, transfer?: Transferable[]): void;
}
const scope = self as unknown as WorkerScope;

let world: Promise<WorldFiles> | null = null;
const reads = new Map<number, AbortController>();

/** Reads waiting for the page's answer to their ask for room. */
const asking = new Map<number, { grant: () => void; refuse: (error: Error) => void }>();

/** Read `id`'s room, asked of the page; the page takes it back itself when the read ends (its last message). */
const roomOf = (id: number): TakeRoom => (bytes, signal) => new Promise((resolve, reject) => {
  if (signal?.aborted) return reject(signal.reason);
  asking.set(id, { grant: () => resolve(() => {}), refuse: reject });
  signal?.addEventListener('abort', () => {
    if (asking.delete(id)) reject(signal.reason);
  }, { once: true });
  scope.postMessage({ type: 'room', id, bytes });
});

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
  } else if (request.type === 'room') {
    const ask = asking.get(request.id);
    asking.delete(request.id);
    if (request.refused === null) ask?.grant();
    else ask?.refuse(new SplatLimitError(request.refused));
  } else {
    const controller = new AbortController();
    reads.set(request.id, controller);
    try {
      if (!world) throw new Error('the world worker was asked for a chunk before the world was opened');
      const files = await world;
      const read = await files.readPacked(request.file, request.shDegree, controller.signal, roomOf(request.id));
      if (!read) throw new Error(`${files.name} names no environment`);
      const { packed, bytes } = read;
      controller.signal.throwIfAborted();
      scope.postMessage({ type: 'chunk', id: request.id, packed, bytes }, [packed.records.buffer, packed.sh.buffer]);
    } catch (error) {
      // One last message a read, whatever ended it: the page frees its room on it.
      if (controller.signal.aborted) scope.postMessage({ type: 'cancelled', id: request.id });
      else fail(request.id, error);
    } finally {
      reads.delete(request.id);
    }
  }
};
