// Tile ranges: in the pairs sorted by tile, where each tile's run starts and
// ends (first pair, one past the last). A pair whose neighbour has another
// tile marks an end of its run; tiles without pairs keep the [0, 0) the
// frame cleared them to. The NO_TILE slots of box slots (tile_bin.wgsl)
// come after every run: the first of them says how many pairs are touched.
// Dispatched over the sorted pairs (indirect, sized by the binning, in its
// dispatch sizes: this pass writes the state). Slots: TILE_RANGES_SLOTS.

@group(0) @binding(0) var<storage, read_write> state: TileState;
@group(0) @binding(1) var<storage, read> sorted_keys: array<u32>;
@group(0) @binding(2) var<storage, read_write> ranges: array<vec2<u32>>;

@compute @workgroup_size(BIN_GROUP)
fn main(
  @builtin(workgroup_id) wid: vec3<u32>,
  @builtin(num_workgroups) groups: vec3<u32>,
  @builtin(local_invocation_index) lid: u32,
) {
  let j = flat_invocation(flat_group(wid, groups.x), BIN_GROUP, lid);
  let n = state.pairs;
  if (j >= n) {
    return;
  }
  let tile = sorted_keys[j];
  if (tile == NO_TILE) {
    if (j == 0u || sorted_keys[j - 1u] != NO_TILE) {
      state.touched = j;
    }
    return;
  }
  if (j == 0u || sorted_keys[j - 1u] != tile) {
    ranges[tile].x = j;
  }
  if (j + 1u == n || sorted_keys[j + 1u] != tile) {
    ranges[tile].y = j + 1u;
  }
}
