/**
 * What a world session (world-session.ts) takes and tells: the world's
 * files as it reads them, and its figures for the panel, the progress line
 * and the benchmark. Types only.
 */
import type { ShDegree } from '../../scene/splat-cloud';
import type { PackedSplats, PoolSplats } from '../../scene/splat-packing';
import type { LodIndex } from '../../io/lod/lod-meta';
import type { LodOutline } from '../../io/lod/lod-outline';
import type { ChoiceWorkerPort } from './world-choice-port';

/** What the session needs of a world's files (src/io/lod/world-files.ts gives it). */
export interface WorldChunks {
  readonly name: string;
  /** What the session reads of the index: its files, environment, box and leaves' runs. */
  readonly outline: LodOutline;
  /** The index: read by a choice in the session's thread (a reader may parse it only when first asked: world-worker-client.ts). */
  readonly index: LodIndex;
  /** The index's text, where the reader kept it: a choice worker reads it, rather than be sent the index's objects. */
  readonly indexText?: string;
  /** Per chunk file: the splats its runs use (only these are uploaded). */
  readonly usedSplats: Uint32Array;
  /** A chunk's splats, decoded or already packed (the page's workers pack its used splats). */
  readChunk(file: number, signal?: AbortSignal): Promise<{ cloud: PoolSplats; bytes: number }>;
  /** The index's environment scene (drawn whole, always), or null where it names none; absent: none. */
  readEnvironment?(signal?: AbortSignal): Promise<{ cloud: PoolSplats; bytes: number } | null>;
  /** The pool's SH degree, once it is made: a reader that packs packs the reads asked for after at it. */
  packAt?(shDegree: ShDegree): void;
  /** A chunk's splats, written to the GPU: a reader that packs takes their arrays back to pack into (the session no longer reads them). */
  recycle?(splats: PackedSplats): void;
  /** Ends what reads the chunks (workers), where something does. */
  close?(): void;
  /** Starts a worker for the level choice (world-choice-runner.ts; the page's openings); absent: the session chooses in its own thread. */
  readonly choiceWorker?: () => ChoiceWorkerPort;
  /** Where the chunks are decoded: 'workers' (the page's, or Node's worker threads), else the session's own thread. */
  readonly decodedIn?: 'workers';
}

/** A world's figures for the panel and the progress line. */
export interface WorldState {
  budget: number;
  drawnSplats: number;
  /** The error threshold the budget allowed, pixels. */
  thresholdPx: number;
  chunks: number;
  chunksLoaded: number;
  bytesLoaded: number;
  /** Chunk files the last frame drew (loaded), and those it still asks for: the view needs both. */
  chunksReady: number;
  chunksWanted: number;
  inFlight: number;
  /** GPU memory the world's splats hold. */
  gpuBytes: number;
  /** Nothing is on its way: the picture is as fine as the budget and memory allow. */
  settled: boolean;
}

/** What the last update chose, for the panel and the benchmark. */
export interface WorldFrameFacts {
  drawnSplats: number;
  wantedSplats: number;
  /** The threshold the budget allowed (≥ the one asked for). */
  thresholdPx: number;
  leftOut: number;
  /** Leaves drawn at a coarser (or finer) level than they want, while theirs is on its way. */
  waiting: number;
  /** Leaves changing level (fading from one to the other) and the splats their outgoing levels add. */
  fading: number;
  fadingSplats: number;
  /** Fades ended at once since the world opened, for want of room beside the budget. */
  fadesCutShort: number;
}
