/**
 * How large a world may grow on a device: the session's options and their
 * defaults, and the size of its GPU page pool (the most splats resident),
 * from the budget, the memory and the world's own chunks. Pure, no GPU
 * calls but the device's limits. DOM-free.
 */
import { ANTIALIASED_FILTER, type SceneAntiAliasing } from '../../scene/anti-aliasing';
import { DEFAULT_PAGE_SPLATS, STAGING_BYTES, stagingBlocks, type SplatPoolOptions } from '../../scene/splat-pool';
import { storageBufferLimit, type ChunkLayout } from '../../scene/gpu-splats';
import { PROJECTED_SPLAT } from '../../render/frame-layouts';
import type { BudgetPolicy } from './world-choice-types';

export interface WorldSessionOptions {
  /** The most splats drawn a frame. */
  budget: number;
  /** The most error a leaf may show, in pixels (raised when the budget needs it). */
  thresholdPx: number;
  /** How a budget that binds is spent (world-choice-types.ts). */
  budgetPolicy: BudgetPolicy;
  /** GPU memory for the world's splats: the pool and the projector's per-splat buffers over it. */
  memoryBytes: number;
  /** Chunk fetches in flight at most. */
  maxInFlight: number;
  /** How long a leaf takes to change level, ms (src/app/world/world-fades.ts); 0: at once. */
  fadeMs: number;
  /** The pool's page size and chunk buffer size (tests lower them). */
  pool?: SplatPoolOptions;
  /** Bytes of chunk pages written a frame (default UPLOAD_BYTES_A_FRAME; tests lower it). */
  uploadBytesAFrame?: number;
}

/**
 * A level change's cross-fade (world-fades.ts): 300 ms, 18 frames at
 * 60 Hz, so a region whose picture changes by a whole level changes by
 * about an eighteenth of that a frame. Spark fades new splats in over
 * 200 ms.
 */
export const FADE_MS = 300;

/**
 * How a world is drawn where the anti-aliasing setting is 'auto': with the
 * anti-aliased screen filter (each splat keeps the opacity it covers), as
 * no world file says how it was trained. A world is mostly seen from afar,
 * where its splats are far under a pixel, and there the classic 0.3 px²
 * widens each at full opacity. Measured on the 100-copy world (H200,
 * 1920×1080, docs/benchmarks.md, "The anti-aliased filter on a world"),
 * against the full detail supersampled 4× (with either filter): the
 * anti-aliased pictures scored 23.4-27.5 dB where the classic ones scored
 * 17.3-21.4, over the city and looking down, at 4M splats and at full
 * detail.
 */
export const WORLD_ANTI_ALIASING: Readonly<SceneAntiAliasing> = { filter: ANTIALIASED_FILTER, source: 'a streamed world, mostly seen from afar' };

/**
 * Bytes of chunk pages a frame writes to the GPU (world-uploads.ts): a
 * 256K-splat chunk written at once held the page's main thread 4–6 ms (35 ms
 * the first time) in the task it arrived in, at about 8 MB a millisecond
 * (docs/benchmarks.md, "The page's main thread while a world streams").
 * 4 MiB: on the H200's host, streaming the 100-copy world from its disk
 * along the world benchmark's path, a frame's pages took 0.97–1.22 ms at
 * p95 against 1.90–2.09 with 8 MiB, and 72 chunks arrived along the path
 * where 83 did (2 MiB: 0.55–0.84 ms, and 33–34 chunks;
 * docs/benchmarks.md, "Chunk pages a frame"). At 60 frames a second that
 * is 240 MB/s, more than a network brings; a 40 MB chunk lands over 10
 * frames.
 */
export const UPLOAD_BYTES_A_FRAME = 4 * 2 ** 20;
/**
 * The outgoing levels of fades under way are drawn beside the budget, in at
 * most this share of it more (the projector and the sort are sized for
 * it); a fade that finds no room ends at once.
 */
export const FADE_ROOM_SHARE = 0.25;

/**
 * The defaults: the budget of the best desktop viewers (4M; 1M on phones:
 * the viewer lowers it); half a pixel of error; 1.25 GiB for the world's
 * splats (the GPU memory goal is 2 GB for the whole frame); 4 fetches in
 * flight (enough to keep a local disk or a CDN busy with chunks of
 * 100-500 kB without queueing the first picture's chunks behind others).
 *
 * Why half a pixel: measured when a level's error was estimated from its
 * splats' spacing (world-lod.ts; worlds now carry measured displacements,
 * whose effect on these figures is not measured yet). On the H100 over the
 * 137.7M-splat world (docs/benchmarks.md), at six cameras looking down
 * where the full detail fits the budget, the picture against the full
 * detail was 22-30 dB at 1 px, 36-48 dB at 0.5 px (29 dB where the budget
 * held it at 0.53 px), identical at 0.25 px.
 *
 * The budget policy is the one of the choice before the others were
 * written, one threshold raised for every leaf, until the benchmark
 * (bench/bench-world.ts --budgets) has compared them on the GPU machine.
 */
export const WORLD_DEFAULTS: WorldSessionOptions = { budget: 4_000_000, thresholdPx: 0.5, budgetPolicy: 'threshold', memoryBytes: 1.25 * 2 ** 30, maxInFlight: 4, fadeMs: FADE_MS };

/**
 * The options for this device: the budget setting, or where it is 'auto'
 * 4M splats, and 1M on a GPU whose storage buffers stop at 128 MiB (the
 * WebGPU default, which phones and integrated GPUs keep), with a quarter
 * of the memory.
 */
export function worldOptionsFor(device: GPUDevice, budget: number | 'auto'): WorldSessionOptions {
  const small = storageBufferLimit(device) <= 2 ** 27;
  const auto = small ? 1_000_000 : WORLD_DEFAULTS.budget;
  return { ...WORLD_DEFAULTS, budget: budget === 'auto' ? auto : budget, memoryBytes: small ? WORLD_DEFAULTS.memoryBytes / 4 : WORLD_DEFAULTS.memoryBytes };
}

/**
 * The pool's share the stream keeps to; the rest lets the most needed
 * chunk in while everything resident is drawn (ChunkStream's memoryLimit:
 * a coarser level arriving to replace finer ones still standing in for it).
 */
export const POOL_BUDGET_SHARE = 0.8;
/** The projector's bytes per pooled splat beside the pool's own: its record, its depth, its mask bit and opacity scale. */
const PROJECTOR_BYTES_PER_SPLAT = PROJECTED_SPLAT.size + 4 + 1 / 8 + 1;


/** The share of a world's memory its staging blocks may take at most (a small memory gets one page's block). */
const STAGING_MEMORY_SHARE = 1 / 16;

/** Bytes of a world's pool's staging blocks: STAGING_BYTES, or less where the memory is small, unless the options say. */
export function worldStagingBytes(options: WorldSessionOptions): number {
  return options.pool?.stagingBytes ?? Math.min(STAGING_BYTES, options.memoryBytes * STAGING_MEMORY_SHARE);
}

/**
 * The splats the pool holds: as many as the memory allows, no more than
 * a chunk buffer's layout, the projector's records in one buffer, or the
 * whole world in pages (each chunk rounded up to one, the environment's
 * beside them) allow. `layout`: a chunk's at the world's SH degree;
 * `bufferLimit`: the device's largest storage buffer.
 *
 * Why the memory and not a multiple of the budget: a chunk holds a level
 * of many neighbouring leaves, most not drawn at that level, so what must
 * be resident for a frame is several times what it draws. Measured over
 * the 100-copy world (H200, docs/benchmarks.md), a pool of 2.5 × the
 * budget drew 0.75–0.78M splats under a 2M budget looking down where
 * 1.34M fitted, and 4.6–5.7M under 8M over the city, coarser levels
 * standing in for chunks that found no room. The memory is what the
 * world was given; the budget bounds the frame's cost, not what waits.
 */
export function poolCapacity(options: WorldSessionOptions, layout: ChunkLayout, bufferLimit: number, usedSplats: Uint32Array, environmentSplats: number): number {
  const bytesPerSplat = layout.bytesPerSplat + PROJECTOR_BYTES_PER_SPLAT;
  const recordsFit = Math.floor(bufferLimit / PROJECTED_SPLAT.size);
  const pageSplats = Math.min(options.pool?.pageSplats ?? DEFAULT_PAGE_SPLATS, layout.chunkSplats);
  const pages = (splats: number) => Math.ceil(splats / pageSplats) * pageSplats;
  const environment = pages(environmentSplats);
  let whole = environment;
  for (const used of usedSplats) whole += pages(used);
  // The pool's staging blocks, a page each, come out of the same memory.
  const pageBytes = pageSplats * layout.bytesPerSplat;
  const staging = stagingBlocks(worldStagingBytes(options), pageBytes) * pageBytes;
  return Math.min(Math.max(0, Math.floor((options.memoryBytes - staging) / bytesPerSplat)), layout.maxSplats, recordsFit, whole);
}
