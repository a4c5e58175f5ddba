/**
 * A SplatCloud on the GPU, in the layout the projector reads. Built once per scene; the 3D covariance is computed here,
 * on the CPU, so no frame recomputes it.
 *
 * The scene is split into chunks of S = 2^chunkShift splats (the last one
 * may hold fewer), S the largest power of two whose chunk fits in one
 * storage-buffer binding. Splat i lives in chunk i >> chunkShift at local
 * index i & (S - 1). Each chunk is one GPUBuffer:
 *
 *   records: one struct Splat per splat of the chunk (64 bytes, laid out
 *     in src/scene/splat-layouts.ts): position and opacity, the
 *     covariance's upper triangle (xx xy xz, yy yz zz), the SH degree-0
 *     coefficients (raw f_dc);
 *   then sh: shCoefficients(shDegree) * 3 values per splat of the chunk,
 *     coefficient-major with RGB inside (the SplatCloud layout), as half
 *     floats two to a 32-bit word (the first in the low bits), each
 *     splat's starting on a word of its own, from word 16 * (splats in the
 *     chunk). Half floats keep a coefficient to 1/2048 of itself and cut
 *     a degree-3 splat from 244 bytes to 156. The projector reads every
 *     visible splat's SH each frame: on an H200 it took 0.63× its time on
 *     the replicated 7.2M-splat scene, and the pictures moved by at most
 *     0.15 dB against the CPU reference (docs/benchmarks.md, "SH as half
 *     floats on the GPU").
 *
 * The bytes are packed by src/scene/splat-packing.ts: here, from a
 * decoded cloud, or before, where a world's chunks are decoded (its
 * workers), and only copied here.
 *
 * The projector binds MAX_CHUNKS chunk buffers and a small uniform (struct
 * SceneLayout) with the chunk shift, the SH stride and where each chunk's
 * SH starts, at the slots of SCENE_SLOTS. It picks a pipeline per scene:
 * for a scene in one chunk the chunk switch is compiled out (override
 * `chunked` = false). Everything after the projector reads its records,
 * whatever the chunks.
 */
import type { DrawnTiles } from './drawn-tiles';
import type { ShDegree, SplatCloud } from './splat-cloud';
import { chunkSlot, MAX_CHUNKS, SCENE_LAYOUT, SCENE_SLOTS, type ChunkSlot } from './splat-layouts';
import { queueWrites, type BufferWrites } from '../gpu/staging-blocks';
import { isPacked, packedBytesPerSplat, packSh, packSplats, repackSh, shFloatsOf, shWordsOf, SPLAT_FLOATS, type PoolSplats } from './splat-packing';

export { MAX_CHUNKS } from './splat-layouts';

const SPLAT_BYTES = SPLAT_FLOATS * 4;

/** Bytes of the SceneLayout uniform (src/scene/splat-layouts.ts). */
export const SCENE_LAYOUT_BYTES = SCENE_LAYOUT.size;

/** Splats packed per write: bounds the staging memory (4 MiB) for any scene size. */
const STAGING_SPLATS = 1 << 16;

export interface Chunk {
  /** Index of the chunk's first splat in the scene. */
  first: number;
  /** Splats in the chunk. */
  count: number;
  /** Where the chunk's SH region starts, in 32-bit words from the start of its buffer (16 * count). */
  shStart: number;
  /** Size of the chunk's buffer (a multiple of 16, at least 16). */
  bytes: number;
}

export interface ChunkLayout {
  count: number;
  shDegree: ShDegree;
  /** Higher-band SH values per splat (0, 9, 24 or 45). */
  shFloats: number;
  /** The 32-bit words they take, two half floats to a word (0, 5, 12 or 23). */
  shWords: number;
  /** Bytes per splat in a chunk: the record plus its SH. */
  bytesPerSplat: number;
  /** S = 2^chunkShift: splats per chunk (all but the last are full). */
  chunkShift: number;
  chunkSplats: number;
  /** At least one chunk (an empty scene has one empty chunk, so the bindings always have a buffer). */
  chunks: Chunk[];
  /** The most splats of this SH degree the limit allows: MAX_CHUNKS * S. */
  maxSplats: number;
}

const roundUp16 = (bytes: number) => Math.ceil(bytes / 16) * 16;
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(bytes < 2 ** 20 ? 2 : 0)} MiB`;
const count = (n: number) => n.toLocaleString('en-US');

/**
 * Splits `splatCount` splats of the given SH degree into chunks whose
 * buffers fit `limitBytes` each. Throws a RangeError when they need more
 * than MAX_CHUNKS chunks (or one splat does not fit); `limitName` says in
 * the message where the limit comes from.
 */
export function chunkLayout(splatCount: number, shDegree: ShDegree, limitBytes: number, limitName = 'the per-buffer limit'): ChunkLayout {
  const shFloats = shFloatsOf(shDegree);
  const shWords = shWordsOf(shDegree);
  const bytesPerSplat = packedBytesPerSplat(shDegree);
  const limit = Math.floor(limitBytes / 16) * 16;
  if (roundUp16(bytesPerSplat) > limit) {
    throw new RangeError(`one splat of SH degree ${shDegree} needs ${bytesPerSplat} bytes, over ${limitName} (${limitBytes} bytes)`);
  }
  let chunkShift = 0;
  while (roundUp16(2 ** (chunkShift + 1) * bytesPerSplat) <= limit) chunkShift++;
  const chunkSplats = 2 ** chunkShift;
  const maxSplats = MAX_CHUNKS * chunkSplats;
  const chunkCount = Math.max(1, Math.ceil(splatCount / chunkSplats));
  if (chunkCount > MAX_CHUNKS) {
    throw new RangeError(
      `${count(splatCount)} splats of SH degree ${shDegree} (${bytesPerSplat} bytes each) do not fit: ` +
        `${limitName} is ${mib(limitBytes)} per storage buffer, so a chunk holds ${count(chunkSplats)} splats ` +
        `(a power of two), and the renderer binds at most ${MAX_CHUNKS} chunks: ` +
        `at most ${count(maxSplats)} splats of this SH degree fit (this scene needs ${chunkCount} chunks)`,
    );
  }
  const chunks: Chunk[] = [];
  for (let c = 0; c < chunkCount; c++) {
    const first = c * chunkSplats;
    const n = Math.max(0, Math.min(chunkSplats, splatCount - first));
    chunks.push({ first, count: n, shStart: n * SPLAT_FLOATS, bytes: Math.max(16, roundUp16(n * bytesPerSplat)) });
  }
  return { count: splatCount, shDegree, shFloats, shWords, bytesPerSplat, chunkShift, chunkSplats, chunks, maxSplats };
}

/** The largest storage buffer one binding of this device can see: min(maxStorageBufferBindingSize, maxBufferSize). */
export function storageBufferLimit(device: GPUDevice): number {
  return Math.min(device.limits.maxStorageBufferBindingSize, device.limits.maxBufferSize);
}

export interface GpuSplatsOptions {
  /**
   * Lowers the bytes allowed per chunk buffer below the device's limit (never
   * raises it): tests use it to split small scenes into several chunks.
   */
  maxChunkBytes?: number;
}

/** Room for splats written later (GpuSplats.writeSplats). */
export interface ReservedSplats {
  reserve: number;
  shDegree: ShDegree;
}

export class GpuSplats {
  readonly count: number;
  readonly shDegree: SplatCloud['shDegree'];
  readonly layout: ChunkLayout;
  /** One buffer per chunk (layout.chunks), records then SH. */
  readonly chunks: readonly GPUBuffer[];
  /** The SceneLayout uniform the shaders read. */
  readonly layoutBuffer: GPUBuffer;
  /**
   * For a scene of which each frame draws a part (a world's page pool,
   * src/scene/splat-pool.ts): one bit per splat, set for those drawn (bit
   * i & 31 of word i >> 5); the projector culls the others before reading
   * them. Null: every splat is drawn.
   */
  drawnMask: GPUBuffer | null = null;
  /** With a drawn mask: records into a frame's encoder the work the mask waits for (a pool's mask pass), ahead of the projector that reads it. */
  drawnMaskPass: ((encoder: GPUCommandEncoder) => void) | null = null;
  /** With a drawn mask: the projector tiles holding a drawn splat, which its dispatches run alone (drawn-tiles.ts). */
  drawnTiles: DrawnTiles | null = null;
  private readonly staging: Float32Array<ArrayBuffer>;
  private readonly shStaging: Uint32Array<ArrayBuffer>;

  /**
   * Uploads `cloud`; or, given `{ reserve, shDegree }`, makes room for
   * `reserve` splats with nothing written yet (all zero: opacity 0, never
   * drawn), which writeSplats fills.
   */
  constructor(device: GPUDevice, contents: SplatCloud | ReservedSplats, label = 'GpuSplats', options: GpuSplatsOptions = {}) {
    const cloud = 'reserve' in contents ? null : contents;
    this.count = cloud ? cloud.count : (contents as ReservedSplats).reserve;
    this.shDegree = contents.shDegree;
    this.layout = layoutFor(device, this.count, this.shDegree, options);
    [this.chunks, this.layoutBuffer] = createBuffers(device, this.layout, label);
    const stagingSplats = Math.min(STAGING_SPLATS, Math.max(1, this.layout.chunkSplats));
    this.staging = new Float32Array(stagingSplats * SPLAT_FLOATS);
    this.shStaging = new Uint32Array(stagingSplats * this.layout.shWords);
    if (!cloud) return;
    try {
      for (const chunk of this.layout.chunks) this.writeSplats(device, chunk.first, cloud, chunk.first, chunk.count);
    } catch (error) {
      this.destroy();
      throw error;
    }
  }

  /**
   * Writes splats first .. first + n - 1 of `splats` to this scene's splats
   * at .. at + n - 1 (within one chunk buffer). A cloud is packed here; packed
   * splats (a world's workers pack its chunks, src/io/world-worker.ts) are
   * copied as they are. Splats of another SH degree are written at this
   * scene's: higher bands they lack are zero, bands this scene lacks are
   * dropped. `writes` is where the bytes go: the queue by default, or a
   * staging block (src/gpu/staging-blocks.ts), which must have room for
   * n · layout.bytesPerSplat.
   */
  writeSplats(device: GPUDevice, at: number, splats: PoolSplats, first: number, n: number, writes: BufferWrites = queueWrites(device)): void {
    const layout = this.layout;
    const c = at >> layout.chunkShift;
    const local = at - c * layout.chunkSplats;
    const chunk = layout.chunks[c];
    if (!chunk || n < 0 || local + n > chunk.count || first + n > splats.count) {
      throw new RangeError(`GpuSplats.writeSplats: splats ${at}..${at + n - 1} do not lie in one chunk of ${this.count}, or ${first}+${n} passes the cloud's ${splats.count}`);
    }
    const buffer = this.chunks[c]!;
    const shWords = layout.shWords;
    const shAt = (chunk.shStart + local * shWords) * 4;
    if (isPacked(splats)) {
      writes.write(buffer, local * SPLAT_BYTES, splats.records, first * SPLAT_FLOATS, n * SPLAT_FLOATS);
      if (shWords === 0) return;
      if (splats.shDegree === this.shDegree) return writes.write(buffer, shAt, splats.sh, first * shWords, n * shWords);
    }
    for (let a = 0; a < n; a += STAGING_SPLATS) {
      const m = Math.min(STAGING_SPLATS, n - a);
      if (!isPacked(splats)) {
        packSplats(splats, first + a, m, this.staging);
        writes.write(buffer, (local + a) * SPLAT_BYTES, this.staging, 0, m * SPLAT_FLOATS);
      }
      if (shWords === 0) continue;
      if (isPacked(splats)) repackSh(splats, first + a, m, layout.shFloats, this.shStaging);
      else packSh(splats, first + a, m, layout.shFloats, this.shStaging);
      writes.write(buffer, shAt + a * shWords * 4, this.shStaging, 0, m * shWords);
    }
  }

  /**
   * Bind-group entries of the scene's slots (SCENE_SLOTS: the layout
   * uniform and MAX_CHUNKS chunk slots; slots past the scene's chunks
   * repeat chunk 0, which the shaders never read through them).
   */
  bindGroupEntries(): GPUBindGroupEntry[] {
    const resources: Partial<Record<'scene' | ChunkSlot, GPUBindingResource>> = { scene: { buffer: this.layoutBuffer } };
    for (let c = 0; c < MAX_CHUNKS; c++) resources[chunkSlot(c)] = { buffer: this.chunks[c] ?? this.chunks[0]! };
    return SCENE_SLOTS.entries(resources);
  }

  destroy(): void {
    for (const b of this.chunks) b.destroy();
    this.layoutBuffer.destroy();
  }
}

/** The chunk layout of `count` splats on this device (RangeError when they do not fit). */
function layoutFor(device: GPUDevice, count: number, shDegree: ShDegree, options: GpuSplatsOptions): ChunkLayout {
  const deviceLimit = storageBufferLimit(device);
  const lowered = options.maxChunkBytes !== undefined && options.maxChunkBytes < deviceLimit;
  const limitName = lowered
    ? `maxChunkBytes`
    : `this GPU's limit, min(maxStorageBufferBindingSize ${mib(device.limits.maxStorageBufferBindingSize)}, maxBufferSize ${mib(device.limits.maxBufferSize)}),`;
  return chunkLayout(count, shDegree, lowered ? options.maxChunkBytes! : deviceLimit, limitName);
}

/** The chunk buffers (zeroed, as new buffers are) and the layout uniform of `layout`. */
function createBuffers(device: GPUDevice, layout: ChunkLayout, label: string): [GPUBuffer[], GPUBuffer] {
  const buffers: GPUBuffer[] = [];
  try {
    for (const [c, chunk] of layout.chunks.entries()) {
      buffers.push(device.createBuffer({ label: `${label}.chunk${c}`, size: chunk.bytes, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST }));
    }
    const layoutBuffer = device.createBuffer({ label: `${label}.layout`, size: SCENE_LAYOUT_BYTES, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
    device.queue.writeBuffer(layoutBuffer, 0, sceneLayoutUniform(layout));
    return [buffers, layoutBuffer];
  } catch (error) {
    for (const b of buffers) b.destroy();
    throw error;
  }
}

/** The SceneLayout uniform's contents (struct in shaders/splat_common.wgsl). */
export function sceneLayoutUniform(layout: ChunkLayout): Uint32Array<ArrayBuffer> {
  const u32 = new Uint32Array(SCENE_LAYOUT_BYTES / 4);
  u32[SCENE_LAYOUT.word('chunk_shift')] = layout.chunkShift;
  u32[SCENE_LAYOUT.word('sh_words')] = layout.shWords;
  const shStart = SCENE_LAYOUT.word('sh_start');
  for (let c = 0; c < MAX_CHUNKS; c++) u32[shStart + c] = layout.chunks[c]?.shStart ?? 0;
  return u32;
}
