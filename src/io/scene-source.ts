/**
 * Loading a scene from wherever its files are: a source (source-bytes.ts)
 * gives the main file's bytes as they arrive, and any file beside it by the
 * name the main file gives (a SOG meta.json's images, a .gltf's buffers). The browser's sources (dropped or
 * picked files, a URL, bytes in memory: web-scene-sources.ts) and Node's
 * file system (node-scene-source.ts) are read the same way here: a format
 * with companions (formats/) is chosen by the main file's name and read
 * with them; any other file is streamed through loadSplatStream. DOM-free.
 */
import { oversizedSplatWarning } from '../scene/oversized-splats';
import type { SplatCloud } from '../scene/splat-cloud';
import { formatWithCompanionsFor } from './formats/detect';
import type { CompanionsReader } from './formats/format';
import { DEFAULT_LOAD_LIMITS, type LoadLimits } from './load-limits';
import { lastPathSegment } from './path-name';
import { readBounded, type SceneSource } from './source-bytes';
import { loadSplatStream } from './splat-stream';
import { validateSplatCloud } from './validate-splats';

/** How far a load has come: its bytes downloading or being read, or a gathered file being parsed. */
export type LoadStage = 'download' | 'read' | 'parse';

export interface SceneLoadOptions {
  /** What the scene may cost (default DEFAULT_LOAD_LIMITS). */
  limits?: LoadLimits;
  onProgress?: (stage: LoadStage, fraction: number) => void;
  /** For a file decoded as it arrives: how far the decoding has come (SplatStreamOptions.onDecoded). */
  onDecoded?: (cloud: SplatCloud, decoded: number, expected: number | undefined) => void;
  /** Stops the load: it rejects with the signal's reason. */
  signal?: AbortSignal;
}

export interface LoadProgressReport {
  stage: LoadStage;
  /** 0..1 */
  fraction: number;
}
export type LoadProgress = (p: LoadProgressReport) => void;

/** What a caller of a scene loader (SplatLoader.load, loadSceneFile) may ask of the load. */
export interface LoadOptions {
  onProgress?: LoadProgress;
  /** Cancels the load: it rejects with the signal's reason (an AbortError). */
  signal?: AbortSignal;
  /** What the scene may cost (from the device: loadLimitsFor); default DEFAULT_LOAD_LIMITS. */
  limits?: LoadLimits;
  /**
   * The scene so far, for a file decoded as it arrives (INRIA PLY, .splat),
   * a few times a second while it loads: a SplatCloud over the splats
   * received (its arrays valid until the next call; src/io/scene-preview.ts).
   */
  onPreview?: (cloud: SplatCloud) => void;
}

export interface LoadedScene {
  cloud: SplatCloud;
  /** Things about the file worth telling the user that did not stop the load. */
  warnings: string[];
  /** Bytes of its file(s) read or downloaded; null where the load could not count them. */
  bytes: number | null;
}

/** `chunks`, counting their bytes into `count.bytes` as they pass. */
async function* counted(chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, count: { bytes: number }): AsyncIterable<Uint8Array> {
  for await (const chunk of chunks) {
    count.bytes += chunk.length;
    yield chunk;
  }
}

/** A scene whose main file names files beside it: the main file read whole (bounded), then the format reads the rest. */
async function loadWithCompanions(
  source: SceneSource,
  companions: CompanionsReader,
  options: SceneLoadOptions & { limits: LoadLimits },
  count: { bytes: number },
  warnings: string[],
): Promise<SplatCloud> {
  const maxMainBytes = companions.maxMainBytes ?? options.limits.maxBytes;
  const main = await readBounded(await source.open(options.signal), maxMainBytes, lastPathSegment(source.name));
  count.bytes += main.length;
  options.signal?.throwIfAborted();
  const companion = async (name: string, maxBytes: number) => {
    options.signal?.throwIfAborted();
    const bytes = await source.companion(name, maxBytes, options.signal);
    count.bytes += bytes.length;
    return bytes;
  };
  // The companions are downloaded as they are decoded; from a disk, decoding is the cost.
  const stage = source.stage === 'download' ? 'download' : 'parse';
  const cloud = await companions.read(main, companion, {
    limits: options.limits,
    onProgress: (f) => options.onProgress?.(stage, f),
    onWarning: (message) => warnings.push(message),
  });
  validateSplatCloud(cloud);
  return cloud;
}

/**
 * Loads the scene a source holds, checks its values, and says what is odd
 * about it (bytes a PLY holds after its splats, splats that cover the
 * window). Throws SplatFormatError for a file that cannot be read; errors
 * of the source itself (a network failure, a missing file) pass through.
 */
export async function loadScene(source: SceneSource, options: SceneLoadOptions = {}): Promise<LoadedScene> {
  const { onProgress, signal } = options;
  const limits = options.limits ?? DEFAULT_LOAD_LIMITS;
  signal?.throwIfAborted();
  const warnings: string[] = [];
  const count = { bytes: 0 };
  let bytes: number | null;
  let cloud: SplatCloud;
  const companions = formatWithCompanionsFor(source.name)?.withCompanions;
  if (companions) {
    cloud = await loadWithCompanions(source, companions, { ...options, limits }, count, warnings);
    bytes = count.bytes;
  } else {
    const opened = await source.open(signal);
    cloud = await loadSplatStream(opened.totalBytes === undefined ? counted(opened.chunks, count) : opened.chunks, {
      name: lastPathSegment(source.name),
      totalBytes: opened.totalBytes,
      expectedBytes: opened.expectedBytes,
      limits,
      onWarning: (message) => warnings.push(message),
      onProgress: (stage, fraction) => onProgress?.(stage === 'read' ? source.stage : 'parse', fraction),
      onDecoded: options.onDecoded,
      signal,
    });
    // A file's size is known; a download's is what arrived.
    bytes = opened.totalBytes ?? count.bytes;
  }
  const oversized = oversizedSplatWarning(cloud);
  if (oversized) warnings.push(oversized);
  return { cloud, warnings, bytes };
}
