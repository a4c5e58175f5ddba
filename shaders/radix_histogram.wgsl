// Radix sort, step 1 (once per sort, before the passes): counts the digits of
// every pass in one read of the keys, into digit_totals[pass * RADIX + digit].
// Phase 2 of each pass starts a digit's row at the sum of the smaller digits'
// totals, so phase 3 writes to final places without scanning the totals in
// every workgroup: with that per-tile scan of 256 totals, 16M 32-bit pairs
// took 1.385 ms on an H100; this way, 1.152 ms (docs/benchmarks.md).
//
// pass_info is the last pass's entry: its index is the number of passes
// less one, and its mask is the (possibly short) last digit's. The totals
// start at zero (the sorter clears them); each workgroup adds its tiles'
// nonzero counts with one global atomic each.

// A few copies of each histogram, chosen by invocation index, so that runs of
// equal keys (all-equal or sorted input) do not serialise on one atomic.
const COPIES: u32 = 2u;
const MAX_PASSES: u32 = (32u + DIGIT_BITS - 1u) / DIGIT_BITS;
var<workgroup> histogram: array<atomic<u32>, COPIES * MAX_PASSES * RADIX>;

// vec4s each invocation loads before counting them.
const LOADS: u32 = 4u;

@compute @workgroup_size(WG)
fn main(
  @builtin(workgroup_id) wid: vec3<u32>,
  @builtin(num_workgroups) groups: vec3<u32>,
  @builtin(local_invocation_index) lid: u32,
) {
  for (var i = lid; i < COPIES * MAX_PASSES * RADIX; i += WG) {
    atomicStore(&histogram[i], 0u);
  }
  workgroupBarrier();

  let n = control.n;
  let passes = pass_info.index + 1u;
  let last_mask = pass_info.mask;
  let copy = (lid % COPIES) * MAX_PASSES * RADIX;
  let num_vecs = (n + 3u) / 4u;
  // Grid-stride over tiles: at most HISTOGRAM_MAX_GROUPS (radix-layout.ts)
  // workgroups, so that few global atomics meet on each total.
  for (var tile = wid.x; tile < control.num_tiles; tile += groups.x) {
    let tile_end = min(num_vecs, (tile + 1u) * (TILE / 4u));
    for (var v0 = tile * (TILE / 4u) + lid; v0 < tile_end; v0 += LOADS * WG) {
      var loaded: array<vec4<u32>, LOADS>;
      for (var q = 0u; q < LOADS; q++) {
        let v = v0 + q * WG;
        if (v < tile_end) {
          loaded[q] = keys_in[v];
        }
      }
      for (var q = 0u; q < LOADS; q++) {
        let v = v0 + q * WG;
        for (var c = 0u; c < 4u; c++) {
          if (v < tile_end && v * 4u + c < n) {
            let key = loaded[q][c];
            for (var p = 0u; p < passes; p++) {
              let mask = select(RADIX - 1u, last_mask, p + 1u == passes);
              let digit = (key >> (p * DIGIT_BITS)) & mask;
              atomicAdd(&histogram[copy + p * RADIX + digit], 1u);
            }
          }
        }
      }
    }
  }
  workgroupBarrier();

  for (var i = lid; i < passes * RADIX; i += WG) {
    var sum = 0u;
    for (var c = 0u; c < COPIES; c++) {
      sum += atomicLoad(&histogram[c * MAX_PASSES * RADIX + i]);
    }
    if (sum != 0u) {
      atomicAdd(&digit_totals[i], sum);
    }
  }
}
