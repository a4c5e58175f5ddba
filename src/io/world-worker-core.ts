/**
 * What a world's worker does, wherever it runs (the page's Web Workers:
 * world-worker.ts; Node's worker threads for the render command and the
 * benchmarks: world-worker-node.ts): it reads a Streamed SOG world's
 * chunks off the main thread (decoding a chunk of 256K splats takes
 * 0.2-0.6 s: WebP and attributes), so a world streams in without stalling
 * the frames. It also packs each chunk as the pool holds it
 * (splat-packing.ts: the records and the SH as half floats), so the main
 * thread only copies the bytes to the GPU. Each worker opens the world
 * itself (its index read and checked, as world-files.ts does), then reads
 * the chunks it is asked for. Protocol:
 *   in:  { type: 'open', source, limits, sendIndex }, then
 *        { type: 'read', id, file, shDegree } (file 'environment': the
 *        index's environment scene; shDegree: the pool's, or null for the
 *        chunk's own) and { type: 'cancel', id }, and
 *        { type: 'room', id, refused } (room given, or refused with why),
 *        { type: 'recycle', buffers } (a chunk's arrays given back, to pack
 *        the next chunks into)
 *   out: { type: 'opened', name, outline, indexText, usedSplats } (the
 *        index's outline, lod-outline.ts, its arrays transferred, its text
 *        and usedSplats only when sendIndex); per read { type: 'room', id, bytes } (the
 *        room it asks for before decoding) and one of { type: 'chunk', id,
 *        packed, bytes } (its used splats packed, the arrays transferred),
 *        { type: 'error', id, message, name } or { type: 'cancelled', id };
 *        { type: 'error', id: null, … }: the opening failed.
 *
 * The room of decoded bytes is the main thread's, one for all the workers
 * (decode-room.ts): a read asks for it once its meta.json is read, and the
 * main thread takes it back when the read's last message arrives.
 */
import type { ShDegree } from '../scene/splat-cloud';
import type { PackedSplats } from '../scene/splat-packing';
import type { TakeRoom } from './decode-room';
import { SplatLimitError, type LoadLimits } from './load-limits';
import { RecycledBuffers } from './recycled-buffers';
import { lodOutline, outlineBuffers, type LodOutline } from './lod/lod-outline';
import { openWorld, type WorldFiles } from './lod/world-files';
import type { SceneSource } from './source-bytes';
import type { FolderEntry } from './web-scene-sources';

/** Where the world is: a URL of its index, a dropped folder's files with their paths, or (in Node) its index's path. */
export type WorldSourceSpec = { url: string } | { entries: FolderEntry[] } | { path: string };

export type WorldWorkerRequest =
  | { type: 'open'; source: WorldSourceSpec; limits: LoadLimits; sendIndex: boolean }
  | { type: 'read'; id: number; file: number | 'environment'; shDegree: ShDegree | null }
  | { type: 'cancel'; id: number }
  | { type: 'room'; id: number; refused: string | null }
  // A chunk's arrays, transferred back once its splats are on the GPU: packed into again (recycled-buffers.ts).
  | { type: 'recycle'; buffers: ArrayBuffer[] }
  // No more requests: the reads are cancelled and the worker ends once idle (Node's threads; the page's are terminated).
  | { type: 'close' };

export type WorldWorkerResponse =
  | { type: 'opened'; name: string; outline: LodOutline | null; indexText: string | null; usedSplats: Uint32Array | null }
  | { type: 'chunk'; id: number; packed: PackedSplats; bytes: number }
  | { type: 'error'; id: number | null; message: string; name: string }
  | { type: 'room'; id: number; bytes: number }
  | { type: 'cancelled'; id: number };

/** The part of a worker's side of its channel used here (the page's worker scope; Node's parentPort, adapted). */
export interface WorkerScope {
  onmessage: ((event: { data: WorldWorkerRequest }) => void) | null;
  postMessage(message: WorldWorkerResponse, transfer?: Transferable[]): void;
}

/**
 * Answers the requests `scope` receives, opening the world by `sourceOf`
 * (null: a source this worker cannot read); `end` ends the worker once
 * idle when asked to close.
 */
export function serveWorld(scope: WorkerScope, sourceOf: (spec: WorldSourceSpec) => SceneSource | null, end: () => void = () => {}): void {
  let world: Promise<WorldFiles> | null = null;
  const reads = new Map<number, AbortController>();
  const recycled = new RecycledBuffers();
  const reuse = (bytes: number): ArrayBuffer | null => recycled.take(bytes);

  /** Reads waiting for the main thread's answer to their ask for room. */
  const asking = new Map<number, { grant: () => void; refuse: (error: Error) => void }>();

  /** Read `id`'s room, asked of the main thread, which takes it back itself when the read ends (its last message). */
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
      const source = sourceOf(request.source);
      world = source ? openWorld(source, { limits: request.limits }) : Promise.reject(new Error(`this worker cannot read a world from ${JSON.stringify(request.source)}`));
      try {
        const files = await world;
        if (!request.sendIndex) {
          scope.postMessage({ type: 'opened', name: files.name, outline: null, indexText: null, usedSplats: null });
        } else {
          const outline = lodOutline(files.index);
          scope.postMessage({ type: 'opened', name: files.name, outline, indexText: files.indexText, usedSplats: files.usedSplats }, outlineBuffers(outline));
        }
      } catch (error) {
        fail(null, error);
      }
    } else if (request.type === 'recycle') {
      for (const buffer of request.buffers) recycled.give(buffer);
    } else if (request.type === 'close') {
      for (const read of reads.values()) read.abort();
      end();
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
        const read = await files.readPacked(request.file, request.shDegree, controller.signal, roomOf(request.id), reuse);
        if (!read) throw new Error(`${files.name} names no environment`);
        const { packed, bytes } = read;
        controller.signal.throwIfAborted();
        scope.postMessage({ type: 'chunk', id: request.id, packed, bytes }, [packed.records.buffer, packed.sh.buffer]);
      } catch (error) {
        // One last message a read, whatever ended it: the main thread frees its room on it.
        if (controller.signal.aborted) scope.postMessage({ type: 'cancelled', id: request.id });
        else fail(request.id, error);
      } finally {
        reads.delete(request.id);
      }
    }
  };
}
