/**
 * The byte layouts and bind slots of a scene on the GPU (src/scene/gpu-splats.ts
 * fills them; shaders/splat_common.wgsl declares them): the per-splat
 * record, the chunk uniform, and the group-0 slots of the uniform and the
 * chunk buffers, which every pipeline that reads splats binds beside its
 * own. Described here once; tests/unit/wgsl-layouts.test.ts checks them
 * against the WGSL.
 */
import { defineStruct } from '../gpu/struct-layout';
import { defineBindSlots } from '../gpu/bind-slots';

/**
 * One splat as the scene's chunk buffers hold it (struct Splat): position
 * and opacity, the 3D covariance's upper triangle, the SH degree-0
 * coefficients.
 */
export const SPLAT = defineStruct('Splat', [
  ['position', 'vec3<f32>'],
  ['opacity', 'f32'],
  ['cov_a', 'vec3<f32>'],
  ['pad0', 'f32'],
  ['cov_b', 'vec3<f32>'],
  ['pad1', 'f32'],
  ['dc', 'vec3<f32>'],
  ['pad2', 'f32'],
]);

/** Where each splat lives among a scene's chunk buffers (struct SceneLayout). */
export const SCENE_LAYOUT = defineStruct('SceneLayout', [
  ['chunk_shift', 'u32'],
  ['sh_words', 'u32'],
  ['pad0', 'u32'],
  ['pad1', 'u32'],
  ['sh_start', 'vec4<u32>'],
]);

/**
 * Chunk buffers the projector binds. The default maxStorageBuffersPerShaderStage
 * is 8: the projector reads the chunks and writes its records, depths and
 * counters beside them, so 4 leaves room (it uses 7 of 8) and keeps the
 * binding switch small. The chunk slots, SceneLayout.sh_start's four lanes
 * and the switch cases in shaders/splat_common.wgsl match it.
 */
export const MAX_CHUNKS = 4;

/** The name of chunk `c`'s buffer in WGSL (chunk0 .. chunk3). */
export type ChunkSlot = `chunk${number}`;
export const chunkSlot = (c: number): ChunkSlot => `chunk${c}`;

/**
 * The scene's slots of group 0: the SceneLayout uniform, then MAX_CHUNKS
 * chunk buffers. Slot 0 stays free for the pass's frame uniform.
 */
export const SCENE_SLOTS = defineBindSlots<'scene' | ChunkSlot>('GpuSplats', ['splat_common.wgsl'], {
  scene: 1,
  ...Object.fromEntries(Array.from({ length: MAX_CHUNKS }, (_, c) => [chunkSlot(c), 2 + c])),
});

/** The first slot of group 0 after the scene's, free for each pipeline's own buffers. */
export const FIRST_PASS_BINDING = Math.max(...Object.values<number>(SCENE_SLOTS.slots)) + 1;

/** A stretch of the page pool's splats that a frame draws: [first, end) at an opacity scale (shaders/pool_mask.wgsl, src/scene/pool-mask.ts). */
export const POOL_PIECE = defineStruct('Piece', [
  ['first', 'u32'],
  ['end', 'u32'],
  ['scale', 'u32'],
]);

/** Words of a piece, as the pool lists them on the CPU (POOL_PIECE: first, end, scale). */
export const POOL_PIECE_WORDS = POOL_PIECE.size / 4;

/** The pool's mask pass's uniform: the pieces, whether it sets the mask's bits too, the word where the scales start. */
export const POOL_PIECE_COUNT = defineStruct('PieceCount', [
  ['count', 'u32'],
  ['set_mask', 'u32'],
  ['scales_at', 'u32'],
  ['pad', 'u32'],
]);

/** The slots of the pool's mask pass: the pieces, the mask's words, their number. */
export const POOL_MASK_SLOTS = defineBindSlots('PoolMaskWriter', ['dispatch.wgsl', 'pool_mask.wgsl'], { pieces: 0, mask: 1, piece_count: 2 });
