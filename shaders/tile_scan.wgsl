// A workgroup's inclusive prefix sum of one u32 per invocation (PROJECT_TILE
// of them), for the projector's scan and keys dispatches. Hillis-Steele over
// workgroup memory: log2(256) = 8 steps, no subgroup operations (portable).
// Call from uniform control flow.

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
