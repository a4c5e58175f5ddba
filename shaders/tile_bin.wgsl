// Tile binning: turns the frame's draw order (back to front) into
// (tile, splat) pairs in that same order, for the pair sort. Three
// dispatches, so no workgroup waits on another:
//
//   count_pairs (a workgroup per BIN_GROUP entries of the order): each
//     entry's tiles (footprint_touches on every tile of its quad's box),
//     the entry's first pair within its group, and the group's total;
//   scan_groups (one workgroup): each group's first pair, the frame's pair
//     total, the pairs to write and sort (no more than the buffers hold),
//     and the ranges dispatch's size;
//   write_pairs (as count_pairs): the same test again, each touched tile
//     written as the key and the splat as the value, from the entry's slot.
//
// The pairs come out in the order's order, so the stable sort by tile keeps
// each tile's splats exactly as the order has them. A frame needing more
// pairs than the buffers hold writes what fits and says so in `total`: the
// raster then leaves the picture as it was (src/render/tiles/tile-renderer.ts).
//
// workgroup_sum.wgsl gives the workgroup's prefix sum; tile_state.wgsl and tile_footprint.wgsl the
// rest. Slots: TILE_BIN_SLOTS in src/render/frame-layouts.ts.

@group(0) @binding(0) var<uniform> frame: Frame;
@group(0) @binding(1) var<storage, read> records: array<ProjectedSplat>;
@group(0) @binding(2) var<storage, read> order: array<u32>;
@group(0) @binding(3) var<storage, read_write> state: TileState;
@group(0) @binding(4) var<storage, read_write> keys: array<u32>;
@group(0) @binding(5) var<storage, read_write> values: array<u32>;

// False bins each splat into every tile of its quad's bounding box, without
// the footprint test: the benchmark's measure of the pairs the test saves.
override footprint_test: bool = true;

fn entry_count() -> u32 {
  return min(state.draw_vertices / QUAD_VERTICES, state.entry_capacity);
}

fn group_count() -> u32 {
  return (entry_count() + BIN_GROUP - 1u) / BIN_GROUP;
}

// The tiles entry i's splat touches; with `write`, also writes their pairs
// from slot `first` on (those that fit).
fn bin_entry(i: u32, write: bool, first: u32) -> u32 {
  let splat = order[i];
  let f = footprint(records[splat]);
  let reach2 = footprint_reach2(f);
  if (reach2 < 0.0) {
    return 0u;
  }
  let span = tile_span(f);
  let columns = tile_grid().x;
  var n = 0u;
  for (var ty = span.first.y; ty <= span.last.y; ty++) {
    for (var tx = span.first.x; tx <= span.last.x; tx++) {
      let tile = vec2<u32>(u32(tx), u32(ty));
      if (!footprint_test || footprint_touches(f, reach2, tile_rect(tile))) {
        if (write) {
          let slot = first + n;
          if (slot < state.capacity) {
            keys[slot] = tile.y * columns + tile.x;
            values[slot] = splat;
          }
        }
        n++;
      }
    }
  }
  return n;
}

@compute @workgroup_size(BIN_GROUP)
fn count_pairs(
  @builtin(workgroup_id) wid: vec3<u32>,
  @builtin(num_workgroups) groups: vec3<u32>,
  @builtin(local_invocation_index) lid: u32,
) {
  let group = wid.y * groups.x + wid.x;
  let i = group * BIN_GROUP + lid;
  let entries = entry_count();
  var n = 0u;
  if (i < entries) {
    n = bin_entry(i, false, 0u);
  }
  let through = workgroup_inclusive_sum(lid, n);
  if (i < entries) {
    state.words[i] = through - n;
  }
  if (lid == BIN_GROUP - 1u && group < group_count()) {
    state.words[state.entry_capacity + group] = through;
  }
}

@compute @workgroup_size(BIN_GROUP)
fn scan_groups(@builtin(local_invocation_index) lid: u32) {
  let groups = group_count();
  let base = state.entry_capacity;
  // Each invocation owns a contiguous run of groups (at most a few hundred:
  // 65,536 groups hold 16.7M entries).
  let run = (groups + BIN_GROUP - 1u) / BIN_GROUP;
  let first = min(lid * run, groups);
  let end = min(first + run, groups);
  var total = 0u;
  for (var g = first; g < end; g++) {
    total += state.words[base + g];
  }
  let through = workgroup_inclusive_sum(lid, total);
  var offset = through - total;
  for (var g = first; g < end; g++) {
    let sum = state.words[base + g];
    state.words[base + g] = offset;
    offset += sum;
  }
  if (lid == BIN_GROUP - 1u) {
    state.total = through;
    let pairs = min(through, state.capacity);
    state.pairs = pairs;
    let workgroups = (pairs + BIN_GROUP - 1u) / BIN_GROUP;
    let x = min(workgroups, state.max_groups_x);
    state.ranges_x = x;
    state.ranges_y = select(1u, (workgroups + x - 1u) / x, x > 0u);
    state.ranges_z = 1u;
  }
}

@compute @workgroup_size(BIN_GROUP)
fn write_pairs(
  @builtin(workgroup_id) wid: vec3<u32>,
  @builtin(num_workgroups) groups: vec3<u32>,
  @builtin(local_invocation_index) lid: u32,
) {
  let group = wid.y * groups.x + wid.x;
  let i = group * BIN_GROUP + lid;
  if (i >= entry_count()) {
    return;
  }
  bin_entry(i, true, state.words[state.entry_capacity + group] + state.words[i]);
}
