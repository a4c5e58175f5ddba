// Radix pass, phase 1: each workgroup counts the digits of its tile and
// writes the counts to counts[tile * RADIX + digit], each with where the
// digit starts in the tile, and adds them into its block's sums for phase 2
// (write_tile_counts in radix_common.wgsl).
// Local ranks are not stored: phase 3 recomputes them from the keys, which
// costs less than writing and re-reading a rank per pair.

// Several copies of the histogram, chosen by invocation index, so that runs
// of equal keys (all-equal or sorted input) do not serialise on one atomic.
// Fewer copies are less to clear and add up: on an H200, the count phase of
// 16M 32-bit pairs took 0.143 / 0.132 / 0.131 ms with 8 / 4 / 2 copies on
// random keys, and 0.170 / 0.135 / 0.132 on all-equal keys (its atomics
// meet on one word, which that GPU serves well; docs/benchmarks.md). Four
// keep a margin for GPUs that serialise such atomics.
const COPIES: u32 = 4u;
var<workgroup> histogram: array<atomic<u32>, COPIES * RADIX>;

const VECS: u32 = ITEMS / 4u;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let tile = tile_index(wid);
  if (tile >= control.num_tiles) {
    return;
  }
  // The histogram starts at zero: WebGPU zero-fills workgroup memory when a
  // workgroup starts, so clearing it here (and a barrier after) would do it
  // twice (count phase at 16M 32-bit on an H200: 0.1300 ms with the
  // clearing, 0.1273 without; docs/benchmarks.md).

  // Strided vec4 loads (consecutive invocations read consecutive 16 bytes),
  // all issued before the first atomic so their latencies overlap.
  let n = control.n;
  let first_vec = tile * (TILE / 4u);
  var loaded: array<vec4<u32>, VECS>;
  for (var q = 0u; q < VECS; q++) {
    let v = first_vec + q * WG + lid;
    if (v * 4u < n) {
      loaded[q] = keys_in[v];
    }
  }

  let copy = (lid % COPIES) * RADIX;
  for (var q = 0u; q < VECS; q++) {
    let first = (first_vec + q * WG + lid) * 4u;
    for (var c = 0u; c < 4u; c++) {
      if (first + c < n) {
        atomicAdd(&histogram[copy + digit_of(loaded[q][c])], 1u);
      }
    }
  }
  workgroupBarrier();

  var own: array<u32, DIGITS_PER_INVOCATION>;
  for (var i = 0u; i < DIGITS_PER_INVOCATION; i++) {
    let d = lid * DIGITS_PER_INVOCATION + i;
    var sum = 0u;
    if (d < RADIX) {
      for (var c = 0u; c < COPIES; c++) {
        sum += atomicLoad(&histogram[c * RADIX + d]);
      }
    }
    own[i] = sum;
  }
  write_tile_counts(lid, tile, own);
}
