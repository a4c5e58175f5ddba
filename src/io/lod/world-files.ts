/**
 * The files of a Streamed SOG world, wherever they are (a URL, a dropped
 * folder, a disk: any SceneSource whose main file is the lod-meta.json):
 * the index read and checked (lod-meta.ts), and each chunk (an unbundled
 * SOG scene, a meta.json and its images) fetched and decoded on request,
 * and packed as a pool's chunk buffers hold it where asked (readPacked:
 * the page's workers). DOM-free.
 *
 * A chunk is read only from the index's folder or below: its path is
 * checked by the index's parser, and every image its meta.json names by
 * chunkPathError here, before the source is asked for it. Every refusal
 * names the chunk ("chunk 0_3/meta.json: …"); a cancelled read rejects
 * with the signal's reason (an AbortError), whatever it interrupted.
 */
import type { ShDegree, SplatCloud } from '../../scene/splat-cloud';
import { packCloud, packedBytesPerSplat, type PackedSplats } from '../../scene/splat-packing';
import { SplatFormatError } from '../format-error';
import { lastPathSegment } from '../path-name';
import { DEFAULT_LOAD_LIMITS, SplatLimitError, type LoadLimits } from '../load-limits';
import { DecodeRoom, decodeRoomFor, type TakeRoom } from '../decode-room';
import { readBounded, type SceneSource } from '../source-bytes';
import { decodeSog, layoutShDegree } from '../sog/decode';
import { parseSogMeta, SOG_META_MAX_BYTES } from '../sog/meta';
import { validateSplatCloud } from '../validate-splats';
import { lodOutline, type LodOutline } from './lod-outline';
import { chunkPathError, LOD_META_LIMITS, parseLodMeta, type LodIndex, type LodNode } from './lod-meta';

/** A chunk (or the environment) decoded, with the bytes read for it (its meta.json and images). */
export interface ReadChunk {
  cloud: SplatCloud;
  bytes: number;
}

/** A chunk (or the environment) decoded and packed as a scene's chunk buffers hold it (splat-packing.ts). */
export interface PackedChunk {
  packed: PackedSplats;
  bytes: number;
}

export interface WorldFiles {
  /** The index's file name, for messages. */
  readonly name: string;
  readonly index: LodIndex;
  /** What a thread that does not choose needs of the index (lod-outline.ts). */
  readonly outline: LodOutline;
  /**
   * The index's text as read: a worker sends it on (world-worker-core.ts),
   * for the level choice's worker to read: a string is copied at once,
   * where the index's objects are serialized one by one
   * (world-choice-runner.ts, WorkerChoice, has the measure).
   */
  readonly indexText: string;
  /** Per chunk file: the splats its runs use, max(offset + count) over the runs naming it (only these are uploaded). */
  readonly usedSplats: Uint32Array;
  /**
   * Fetches and decodes chunk file `file` (its SOG meta.json and images),
   * within `room` (default the world's own, OpenWorldOptions.room); rejects
   * with an AbortError once `signal` aborts.
   */
  readChunk(file: number, signal?: AbortSignal, room?: TakeRoom): Promise<ReadChunk>;
  /** The index's environment scene (always drawn, whole), or null where it names none. */
  readEnvironment(signal?: AbortSignal, room?: TakeRoom): Promise<ReadChunk | null>;
  /**
   * Reads chunk `file` (its used splats) or the environment (whole) as
   * readChunk and readEnvironment do, and packs its splats for a scene of SH
   * degree `shDegree` (null: the chunk's own), within the same room, which
   * holds the packed bytes too: null where the index names no environment.
   * `reuse` gives buffers to pack into, where it has them (packCloud).
   */
  readPacked(file: number | 'environment', shDegree: ShDegree | null, signal?: AbortSignal, room?: TakeRoom, reuse?: (bytes: number) => ArrayBuffer | null): Promise<PackedChunk | null>;
}

export interface OpenWorldOptions {
  /** What one chunk may cost (default DEFAULT_LOAD_LIMITS): each is decoded as one scene under them. */
  limits?: LoadLimits;
  signal?: AbortSignal;
  /**
   * The room its chunks take while they decode (decode-room.ts), shared by
   * every read of the world (default: a room of decodeRoomFor(limits)).
   */
  room?: TakeRoom;
}

/** Reads a world's index through `source` (its main file) and checks it; the chunks are read later, one by one. */
export async function openWorld(source: SceneSource, options: OpenWorldOptions = {}): Promise<WorldFiles> {
  const { signal } = options;
  const limits = options.limits ?? DEFAULT_LOAD_LIMITS;
  const name = lastPathSegment(source.name) || source.name;
  signal?.throwIfAborted();
  const bytes = await readBounded(await source.open(signal), Math.min(LOD_META_LIMITS.maxBytes, limits.maxBytes), name);
  signal?.throwIfAborted();
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new SplatFormatError(`${name}: not UTF-8 text`);
  }
  const index = parseLodMeta(text, name);
  const usedSplats = usedSplatsOf(index);
  const worldRoom = options.room ?? new DecodeRoom(decodeRoomFor(limits)).take;
  const chunkPath = (file: number): string => {
    const path = index.filenames[file];
    if (path === undefined) throw new RangeError(`${name} has no chunk file ${file} (it names ${index.filenames.length})`);
    return path;
  };
  const read = (path: string, used: number, signal?: AbortSignal, room = worldRoom) => readSogChunk(source, path, used, limits, room, signal);
  return {
    name,
    index,
    outline: lodOutline(index),
    indexText: text,
    usedSplats,
    readChunk: async (file, signal, room) => read(chunkPath(file), usedSplats[file]!, signal, room),
    readEnvironment: async (signal, room) => (index.environment === null ? null : read(index.environment, 0, signal, room)),
    readPacked: async (file, shDegree, signal, room = worldRoom, reuse) => {
      if (file !== 'environment') return readSogChunk(source, chunkPath(file), usedSplats[file]!, limits, room, signal, { shDegree, whole: false, reuse });
      if (index.environment === null) return null;
      return readSogChunk(source, index.environment, 0, limits, room, signal, { shDegree, whole: true, reuse });
    },
  };
}

/** How a read packs its splats (readPacked): at `shDegree` (null: the chunk's own), its used splats or, `whole`, all, into buffers `reuse` gives where it has them. */
interface Pack {
  shDegree: ShDegree | null;
  whole: boolean;
  reuse?: (bytes: number) => ArrayBuffer | null;
}

/** Per chunk file, the rows its runs reach: max(offset + count). The parser bounds each by SOG_MAX_SPLATS (< 2^32). */
function usedSplatsOf(index: LodIndex): Uint32Array {
  const used = new Uint32Array(index.filenames.length);
  const pending: LodNode[] = [index.tree];
  while (pending.length > 0) {
    const node = pending.pop()!;
    for (const child of node.children) pending.push(child);
    for (const run of node.runs) if (run) used[run.file] = Math.max(used[run.file]!, run.offset + run.count);
  }
  return used;
}

/**
 * Reads and decodes the SOG scene at `path` (relative to the index's
 * folder), refusing one of fewer than `used` splats before its images are
 * read.
 *
 * What a hostile chunk may cost: its meta.json is read up to
 * SOG_META_MAX_BYTES; its count may be far past what the index's runs use
 * (a chunk is decoded whole, only the used rows are uploaded), but
 * decodeSog checks that count against `limits` before any image is read,
 * each image's bytes against what that count needs and limits.maxBytes,
 * and each image's pixels (from its header, before decoding) against 4 ×
 * the count + 2^20. So one chunk costs at most what one scene within the
 * load limits costs, however the index and the chunk lie; and the chunks
 * decoding at once, together, what `room` holds (decode-room.ts).
 */
function readSogChunk(source: SceneSource, path: string, used: number, limits: LoadLimits, room: TakeRoom, signal: AbortSignal | undefined): Promise<ReadChunk>;
function readSogChunk(source: SceneSource, path: string, used: number, limits: LoadLimits, room: TakeRoom, signal: AbortSignal | undefined, pack: Pack): Promise<PackedChunk>;
async function readSogChunk(source: SceneSource, path: string, used: number, limits: LoadLimits, room: TakeRoom, signal: AbortSignal | undefined, pack?: Pack): Promise<ReadChunk | PackedChunk> {
  const folder = path.slice(0, path.lastIndexOf('/') + 1);
  let bytes = 0;
  // A packed read holds its room until its splats are packed: the packed bytes are asked for with the decoded ones.
  let giveBack = (): void => {};
  const read = async (relative: string, maxBytes: number): Promise<Uint8Array> => {
    signal?.throwIfAborted();
    const data = await source.companion(relative, maxBytes, signal);
    bytes += data.length;
    return data;
  };
  try {
    const layout = parseSogMeta(await read(path, SOG_META_MAX_BYTES));
    if (layout.count < used) {
      throw new SplatFormatError(`meta.json's count is ${layout.count.toLocaleString('en-US')} splats, but the index's runs in it reach ${used.toLocaleString('en-US')}`);
    }
    const packCount = pack?.whole ? layout.count : used;
    const packedBytes = pack ? packCount * packedBytesPerSplat(pack.shDegree ?? layoutShDegree(layout)) : 0;
    const takeRoom = async (decoded: number): Promise<() => void> => {
      const held = await room(decoded + packedBytes, signal);
      if (!pack) return held;
      giveBack = held;
      return () => {};
    };
    const cloud = await decodeSog(layout, (image, bound) => {
      // The image's own name first: a URL or a step up is refused as written, not after joining.
      const why = chunkPathError(image) ?? chunkPathError(`${folder}${image}`);
      if (why) throw new SplatFormatError(`meta.json names the image '${image}', which ${why}`);
      return read(`${folder}${image}`, bound.maxBytes);
    }, { limits, room: takeRoom });
    validateSplatCloud(cloud);
    if (!pack) return { cloud, bytes };
    return { packed: packCloud(cloud, packCount, pack.shDegree ?? cloud.shDegree, pack.reuse), bytes };
  } catch (error) {
    // A read cut short by the signal fails in whatever it interrupted (the decoder wraps a reader's errors): it is a cancel.
    signal?.throwIfAborted();
    throw namingChunk(error, path);
  } finally {
    giveBack();
  }
}

/** `error` with its message headed by the chunk's path, of the same kind (a limit, a bad file, the source's own failure). */
function namingChunk(error: unknown, path: string): Error {
  const message = `chunk ${path}: ${error instanceof Error ? error.message : String(error)}`;
  if (error instanceof SplatLimitError) return new SplatLimitError(message);
  if (error instanceof SplatFormatError) return new SplatFormatError(message);
  return new Error(message, { cause: error });
}
