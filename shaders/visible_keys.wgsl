// Keys the kept splats: each tile (the projector's) ranks its kept splats in
// splat order, places them from the tile's first slot (visible_scan.wgsl,
// tile_first_slot in tile_scan.wgsl),
// and writes the sort's pairs: the depth key and the splat's index.
//
// The key orders back to front (ascending key = farther first):
// - 32 bits: the exact f32 depth, bits inverted (positive floats order as
//   their bits), so the sort orders splats exactly as their depths compare;
// - fewer bits: the depth's place in this frame's visible range
//   [depth_min, depth_max], on 2^bits equal steps, so the bits are spent on
//   the depths on screen and no key value lies outside them. Two splats get
//   keys in the wrong order never; equal keys only when their depths are
//   within one step (range / 2^bits) of each other.

@group(0) @binding(0) var<uniform> frame: Frame;
@group(0) @binding(1) var<storage, read> depths: array<f32>;
@group(0) @binding(2) var<storage, read_write> state: VisibleState;
@group(0) @binding(3) var<storage, read_write> keys: array<u32>;
@group(0) @binding(4) var<storage, read_write> values: array<u32>;

// True for the sort difference view's reference order: exact keys
// whatever the frame's key width (src/render/splat-projector.ts).
override exact_keys: bool = false;

fn depth_key(depth: f32) -> u32 {
  if (exact_keys || frame.key_shift == 0u) {
    return ~bitcast<u32>(depth);
  }
  let bits = 32u - frame.key_shift;
  let near = bitcast<f32>(atomicLoad(&state.depth_min));
  let far = bitcast<f32>(atomicLoad(&state.depth_max));
  let top = (1u << bits) - 1u;
  // Rounding in f32 is monotonic, so the key never inverts two depths.
  let t = (far - depth) / max(far - near, 1e-30);
  return min(u32(max(t, 0.0) * f32(1u << bits)), top);
}

@compute @workgroup_size(PROJECT_TILE)
fn main(
  @builtin(workgroup_id) wid: vec3<u32>,
  @builtin(num_workgroups) groups: vec3<u32>,
  @builtin(local_invocation_index) lid: u32,
) {
  let tile = listed_tile(flat_group(wid, groups.x));
  let id = flat_invocation(tile, PROJECT_TILE, lid);
  if (tile_is_empty(tile, lid)) {
    return;
  }
  var depth = CULLED_DEPTH;
  if (id < frame.count) {
    depth = depths[id];
  }
  let kept = depth != CULLED_DEPTH;
  // Kept splats of the tile up to and including this one (workgroup_sum.wgsl).
  let through = workgroup_inclusive_sum(lid, select(0u, 1u, kept));
  if (!kept) {
    return;
  }
  let slot = tile_first_slot(tile) + through - 1u;
  if (slot < state.visible) {
    keys[slot] = depth_key(depth);
    values[slot] = id;
  }
}
