// A workgroup's inclusive prefix sum of one u32 per invocation (SUM_WIDTH of
// them): the projector's scan and keys dispatches, and the tile renderer's
// binning. Hillis-Steele over workgroup memory: log2(256) = 8 steps, no
// subgroup operations (portable). Call from uniform control flow, from a
// workgroup of SUM_WIDTH invocations.

const SUM_WIDTH: u32 = 256u;

var<workgroup> sum_scratch: array<u32, SUM_WIDTH>;

fn workgroup_inclusive_sum(lid: u32, value: u32) -> u32 {
  sum_scratch[lid] = value;
  workgroupBarrier();
  for (var step = 1u; step < SUM_WIDTH; step <<= 1u) {
    var add = 0u;
    if (lid >= step) {
      add = sum_scratch[lid - step];
    }
    workgroupBarrier();
    sum_scratch[lid] += add;
    workgroupBarrier();
  }
  return sum_scratch[lid];
}
