// A workgroup's inclusive prefix sum of one u32 per invocation (PROJECT_TILE
// of them), for the projector's scan and keys dispatches. Hillis-Steele over
// workgroup memory: log2(256) = 8 steps, no subgroup operations (portable).
// Call from uniform control flow.

// Tiles per block of the two-level scan (visible_scan.wgsl): one per invocation.
const SCAN_BLOCK: u32 = PROJECT_TILE;

// Projector tiles of this frame's splats.
fn tile_count() -> u32 {
  return (frame.count + PROJECT_TILE - 1u) / PROJECT_TILE;
}

// Where tile t's kept splats start among all kept splats, once both scan
// dispatches have run: its block's first slot plus its offset in the block.
fn tile_first_slot(t: u32) -> u32 {
  return state.tiles[tile_count() + t / SCAN_BLOCK] + state.tiles[t];
}

var<workgroup> tile_sums: array<u32, PROJECT_TILE>;

fn tile_inclusive_sum(lid: u32, value: u32) -> u32 {
  tile_sums[lid] = value;
  workgroupBarrier();
  for (var step = 1u; step < PROJECT_TILE; step <<= 1u) {
    var add = 0u;
    if (lid >= step) {
      add = tile_sums[lid - step];
    }
    workgroupBarrier();
    tile_sums[lid] += add;
    workgroupBarrier();
  }
  return tile_sums[lid];
}
