// Radix pass, phase 1: each workgroup counts the digits of its tile and
// writes the counts to counts[digit * num_tiles + tile] (digit-major, so that
// phase 2 scans each digit's row and phase 3 finds (digit, tile) directly),
// and adds them to the pass's digit totals.
// Local ranks are not stored: phase 3 recomputes them from the keys, which
// costs less than writing and re-reading a rank per pair.

// Several copies of the histogram, chosen by invocation index, so that runs
// of equal keys (all-equal or sorted input) do not serialise on one atomic.
const COPIES: u32 = 8u;
var<workgroup> histogram: array<atomic<u32>, COPIES * RADIX>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let tile = tile_index(wid);
  if (tile >= control.num_tiles) {
    return;
  }
  for (var i = lid; i < COPIES * RADIX; i += WG) {
    atomicStore(&histogram[i], 0u);
  }
  workgroupBarrier();

  let n = control.n;
  let copy = (lid % COPIES) * RADIX;
  // Strided vec4 loads: consecutive invocations read consecutive 16 bytes.
  let first_vec = tile * (TILE / 4u);
  for (var q = 0u; q < ITEMS / 4u; q++) {
    let v = first_vec + q * WG + lid;
    let first = v * 4u;
    if (first < n) {
      let k = keys_in[v];
      for (var c = 0u; c < 4u; c++) {
        if (first + c < n) {
          atomicAdd(&histogram[copy + digit_of(k[c])], 1u);
        }
      }
    }
  }
  workgroupBarrier();

  let num_tiles = control.num_tiles;
  for (var d = lid; d < RADIX; d += WG) {
    var sum = 0u;
    for (var c = 0u; c < COPIES; c++) {
      sum += atomicLoad(&histogram[c * RADIX + d]);
    }
    counts[d * num_tiles + tile] = sum;
    if (sum != 0u) {
      atomicAdd(&digit_totals[pass_info.index * RADIX + d], sum);
    }
  }
}
