/**
 * The byte layouts and bind slots of everything a frame's passes share
 * with their shaders: the per-frame uniform block, the projector's records
 * and counters, the renderer's, the resolve's and the ordering-error
 * measure's bind groups (the scene's record, chunk uniform and slots are
 * in src/scene/splat-layouts.ts). Each is described here once; the writers
 * take offsets from these descriptions (no float indices picked by hand),
 * the passes build their bind groups' entries from the slot tables (no
 * binding numbers written beside them), and tests/unit/wgsl-layouts.test.ts
 * checks every WGSL struct and @binding declaration against them, so a
 * field or a slot changed on one side only fails a test.
 */
import { defineStruct } from '../gpu/struct-layout';
import { defineBindSlots } from '../gpu/bind-slots';
import { FIRST_PASS_BINDING } from '../scene/splat-layouts';

/** The per-frame uniform block (shaders/splat_common.wgsl), written by src/render/frame-uniforms.ts. */
export const FRAME = defineStruct('Frame', [
  ['view', 'mat4x4<f32>'],
  ['projection', 'mat4x4<f32>'],
  ['eye', 'vec3<f32>'],
  ['sh_degree', 'u32'],
  ['viewport', 'vec2<f32>'],
  ['focal', 'vec2<f32>'],
  ['tan_half_fov', 'vec2<f32>'],
  ['splat_scale', 'f32'],
  ['count', 'u32'],
  ['key_shift', 'u32'],
  ['filter_variance', 'f32'],
  ['filter_compensate', 'u32'],
  ['pad0', 'u32'],
]);

/**
 * One projected splat (shaders/splat_records.wgsl): 32 bytes, the centre
 * in f32 and the rest as f16 pairs. The f16 rounding (2^-11 relative) moves
 * a quad's corner by at most 1/2000 of the quad's size and a colour by
 * under 1/8 of an 8-bit step. Measured against the renderer that computed
 * everything in f32 per vertex (the same frames, 320×240 on SwiftShader,
 * the 9k and 150k INRIA scenes from outside, closer and inside): PSNR
 * 60.4–66.6 dB, at most 4/255 in 0.3 % of the pixels, none of them more
 * than 1/255 in the 9k scene's inside view; the huge-splat pictures of
 * tests/gpu/splat-size-cap.test.ts stay within 1.5/255 of a CPU
 * evaluation. Edges stay under f16's 65,504: the size cap keeps every
 * quad within the window + 1024 px.
 */
export const PROJECTED_SPLAT = defineStruct('ProjectedSplat', [
  ['centre', 'vec2<f32>'],
  ['edges', 'vec2<u32>'],
  ['sigma_box', 'vec2<u32>'],
  ['look', 'vec2<u32>'],
]);

/** Vertices drawn a splat: two triangles (QUAD_VERTICES in shaders/splat_records.wgsl). */
export const QUAD_VERTICES = 6;

/** The projector's counters, then one u32 per tile (struct VisibleState). */
export const VISIBLE_STATE = defineStruct('VisibleState', [
  ['depth_min', 'atomic<u32>'],
  ['depth_max', 'atomic<u32>'],
  ['visible', 'u32'],
  ['capacity', 'u32'],
  ['draw_vertex_count', 'u32'],
  ['draw_instance_count', 'u32'],
  ['draw_first_vertex', 'u32'],
  ['draw_first_instance', 'u32'],
  ['tiles', 'array<u32>'],
]);

/**
 * The projector's project dispatch (shaders/splat_project.wgsl): the frame,
 * then the scene's slots (SCENE_SLOTS, filled by GpuSplats), then its own
 * outputs. A world pool's tile list is read from the drawn mask's buffer:
 * these are the 8 storage buffers a stage may have by default.
 */
export const PROJECT_SLOTS = defineBindSlots('SplatProjector.project', ['splat_project.wgsl'], {
  frame: 0,
  records: FIRST_PASS_BINDING,
  depths: FIRST_PASS_BINDING + 1,
  state: FIRST_PASS_BINDING + 2,
  drawn_mask: FIRST_PASS_BINDING + 3,
});

/** The projector's two scan dispatches (shaders/visible_scan.wgsl). */
export const SCAN_SLOTS = defineBindSlots('SplatProjector.scan', ['visible_scan.wgsl'], { frame: 0, state: 1 });

/** The projector's keys dispatch (shaders/visible_keys.wgsl): the sort's pairs are its last two slots. */
export const KEYS_SLOTS = defineBindSlots('SplatProjector.keys', ['visible_keys.wgsl', 'tile_list.wgsl'], { frame: 0, depths: 1, state: 2, keys: 3, values: 4, tile_list: 5 });

/** The renderer's draw (shaders/splat_render.wgsl): projected records drawn in an order. */
export const RENDER_SLOTS = defineBindSlots('SplatRenderer', ['splat_render.wgsl'], { frame: 0, records: 1, order: 2, depths: 3 });

/** The ordering-error measure's result (shaders/order_error.wgsl). */
export const ORDER_ERROR = defineStruct('OrderError', [
  ['count', 'u32'],
  ['pairs', 'atomic<u32>'],
  ['inverted', 'atomic<u32>'],
  ['beyond', 'atomic<u32>'],
  ['largest', 'atomic<u32>'],
]);

/** The ordering-error measure's bind group (src/render/order-error-pass.ts). */
export const ORDER_ERROR_SLOTS = defineBindSlots('OrderErrorPass', ['order_error.wgsl'], { order: 0, depths: 1, state: 2, error: 3 });

/** What the sort difference view counts (shaders/splat_resolve.wgsl), in 8-bit levels. */
export const DIFFERENCE_STATS = defineStruct('DifferenceStats', [
  ['pixels', 'atomic<u32>'],
  ['largest', 'atomic<u32>'],
  ['total', 'atomic<u32>'],
  ['pad0', 'u32'],
]);

/**
 * The resolve's slots (shaders/splat_resolve.wgsl): the picture pass binds
 * `picture` only, the difference pass all three.
 */
export const RESOLVE_SLOTS = defineBindSlots('SplatResolve', ['splat_resolve.wgsl'], { picture: 0, exact: 1, stats: 2, tile_words: 3 });
/** The same resolves by compute, into an output a compute pass may write (render/output-target.ts). */
export const RESOLVE_COMPUTE_SLOTS = defineBindSlots('SplatResolve.compute', ['splat_resolve_compute.wgsl'], { picture: 0, output: 1, tile_words: 2 });

/** The tile renderer's pair bookkeeping (struct TileState, shaders/tile_state.wgsl): a header, then per entry and per group of entries one u32. */
export const TILE_STATE = defineStruct('TileState', [
  ['entries', 'u32'],
  ['capacity', 'u32'],
  ['total', 'u32'],
  ['pairs', 'u32'],
  ['cut_entries', 'u32'],
  ['needed_candidates', 'u32'],
  ['touched', 'u32'],
  ['entry_capacity', 'u32'],
  ['max_groups_x', 'u32'],
  ['background_r', 'f32'],
  ['background_g', 'f32'],
  ['background_b', 'f32'],
  ['candidates', 'u32'],
  ['candidate_budget', 'u32'],
  ['first_group', 'u32'],
  ['candidate_base', 'u32'],
  ['box_base', 'u32'],
  ['fallback_vertices', 'u32'],
  ['fallback_instances', 'u32'],
  ['fallback_first_vertex', 'u32'],
  ['fallback_first_instance', 'u32'],
  ['chunk_min_pairs', 'u32'],
  ['max_chunks', 'u32'],
  ['chunk_look_back', 'u32'],
  ['words', 'array<u32>'],
]);

/**
 * The sizes of the binning's write and of the ranges (struct BinArgs,
 * shaders/tile_bin.wgsl), in a buffer of its own: an indirect dispatch may
 * not read a buffer its own bind group writes.
 */
export const TILE_BIN_ARGS = defineStruct('BinArgs', [
  ['write_x', 'u32'],
  ['write_y', 'u32'],
  ['write_z', 'u32'],
  ['ranges_x', 'u32'],
  ['ranges_y', 'u32'],
  ['ranges_z', 'u32'],
]);

/** The group only the budget's scan binds: where it writes the dispatches' sizes. */
export const TILE_BIN_ARGS_SLOTS = defineBindSlots('TileBinning.args', ['tile_bin.wgsl'], { bin_args: 0 }, 1);

/** The tile binning's three dispatches (shaders/tile_bin.wgsl) share one group: the order's splats to (tile, splat) pairs. */
export const TILE_BIN_SLOTS = defineBindSlots('TileBinning', ['tile_bin.wgsl'], { frame: 0, records: 1, order: 2, state: 3, keys: 4, values: 5 });

/** Each tile's run in the sorted pairs (shaders/tile_ranges.wgsl). */
export const TILE_RANGES_SLOTS = defineBindSlots('TileRaster.ranges', ['tile_ranges.wgsl'], { state: 0, sorted_keys: 1, ranges: 2 });

/** The tile raster (shaders/tile_raster.wgsl); ray_shapes is bound for the per-pixel order only. */
export const TILE_RASTER_SLOTS = defineBindSlots('TileRaster', ['tile_raster.wgsl'], {
  frame: 0,
  state: 1,
  ranges: 2,
  sorted_splats: 3,
  records: 4,
  picture: 5,
  ray_shapes: 6,
  chunk_words: 7,
  partials: 8,
  ray_slots: 9,
});

/** Splitting the long runs into chunks (shaders/tile_chunks.wgsl). */
export const TILE_CHUNKS_SLOTS = defineBindSlots('TileChunks', ['tile_chunks.wgsl'], { state: 0, ranges: 1, chunk_words: 2, frame: 3 });

/** Blending each split tile's chunks (shaders/tile_merge.wgsl). */
export const TILE_MERGE_SLOTS = defineBindSlots('TileMerge', ['tile_merge.wgsl'], { frame: 0, state: 1, chunk_words: 2, partials: 3, picture: 4 });

/** The per-pixel order's ray shapes (shaders/tile_ray_shape.wgsl): after the scene's slots, in its group. */
export const TILE_RAY_SHAPE_SLOTS = defineBindSlots('TileRayShapes', ['tile_ray_shape.wgsl'], {
  frame: 0,
  depths: FIRST_PASS_BINDING,
  ray_shapes: FIRST_PASS_BINDING + 1,
  state: FIRST_PASS_BINDING + 2,
  ray_slots: FIRST_PASS_BINDING + 3,
});

/** Bytes of one splat's ray shape (four vec4: shaders/tile_ray_shape.wgsl). */
export const RAY_SHAPE_BYTES = 64;
