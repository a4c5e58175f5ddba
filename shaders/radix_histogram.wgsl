// Radix sort, step 1 (once per sort, before the passes): counts the digits of
// every pass in one read of the keys, into digit_totals[pass * RADIX + digit].
// Phase 2 of each pass starts a digit's row at the sum of the smaller digits'
// totals, so phase 3 writes to final places without scanning the totals in
// every workgroup: with that per-tile scan of 256 totals, 16M 32-bit pairs
// took 1.385 ms on an H100; this way, 1.152 ms (docs/benchmarks.md).
//
// It also does the first pass's count phase (radix_count.wgsl): with the
// keys of a tile in hand, it writes that tile's counts of the first digit,
// which saves the first pass a read of the keys and a dispatch.
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
// The current tile's counts of the first digit (the histogram's pass-0 rows
// gather them tile by tile).
var<workgroup> tile_histogram: array<atomic<u32>, COPIES * RADIX>;

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
  for (var i = lid; i < COPIES * RADIX; i += WG) {
    atomicStore(&tile_histogram[i], 0u);
  }
  workgroupBarrier();

  let n = control.n;
  let passes = pass_info.index + 1u;
  let last_mask = pass_info.mask;
  let copy = (lid % COPIES) * MAX_PASSES * RADIX;
  let tile_copy = (lid % COPIES) * RADIX;
  let first_mask = select(RADIX - 1u, last_mask, passes == 1u);
  let num_vecs = (n + 3u) / 4u;
  let num_tiles = control.num_tiles;
  // Grid-stride over tiles: at most HISTOGRAM_MAX_GROUPS (radix-layout.ts)
  // workgroups, so that few global atomics meet on each total.
  for (var tile = wid.x; tile < num_tiles; tile += groups.x) {
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
            atomicAdd(&tile_histogram[tile_copy + (key & first_mask)], 1u);
            for (var p = 1u; p < passes; p++) {
              let mask = select(RADIX - 1u, last_mask, p + 1u == passes);
              let digit = (key >> (p * DIGIT_BITS)) & mask;
              atomicAdd(&histogram[copy + p * RADIX + digit], 1u);
            }
          }
        }
      }
    }
    // The tile's first-digit counts go out (what the first pass's count
    // phase would write) and into the pass-0 rows of the histogram.
    workgroupBarrier();
    // Every element is assigned: Dawn (the `webgpu` package, 0.6.2) does not
    // zero a var declared without an initializer each time a loop reaches
    // the declaration, as WGSL says it should, so own[] kept the last
    // tile's counts (on SwiftShader and on an H100).
    var own: array<u32, DIGITS_PER_INVOCATION>;
    for (var i = 0u; i < DIGITS_PER_INVOCATION; i++) {
      let d = lid * DIGITS_PER_INVOCATION + i;
      var sum = 0u;
      if (d < RADIX) {
        for (var c = 0u; c < COPIES; c++) {
          sum += atomicExchange(&tile_histogram[c * RADIX + d], 0u);
        }
        atomicAdd(&histogram[d], sum);
      }
      own[i] = sum;
    }
    write_tile_counts(lid, tile, num_tiles, own);
    workgroupBarrier();
  }

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
