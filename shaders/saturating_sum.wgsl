// The tile binning's sums of candidates, which may pass 2^32 before its
// budget cuts them (tile_bin.wgsl's scan_boxes); after workgroup_sum.wgsl.

// The sum of the values of invocations lid .. SUM_WIDTH - 1 (a suffix sum,
// in workgroup_sum.wgsl's scratch), saturating at 2^32 - 1: a million
// window-covering splats at 3840×2160 have 3.2e10 candidates. Saturating
// addition of non-negative values is associative, so the Hillis-Steele
// steps stay exact below the cap.
fn workgroup_saturating_suffix_sum(lid: u32, value: u32) -> u32 {
  sum_scratch[lid] = value;
  workgroupBarrier();
  for (var step = 1u; step < SUM_WIDTH; step <<= 1u) {
    var add = 0u;
    if (lid + step < SUM_WIDTH) {
      add = sum_scratch[lid + step];
    }
    workgroupBarrier();
    sum_scratch[lid] = add_saturating(sum_scratch[lid], add);
    workgroupBarrier();
  }
  return sum_scratch[lid];
}

fn add_saturating(a: u32, b: u32) -> u32 {
  return select(a + b, 0xffffffffu, b > 0xffffffffu - a);
}
