// Radix pass, phase 2: one workgroup per digit turns that digit's row of tile
// counts into the digit's bases (radix_common.wgsl), in place: the digit's
// start in the output (the sum of the totals of all smaller digits, from
// radix_histogram.wgsl) plus the exclusive prefix along the row, less where
// the digit starts in each tile. RADIX workgroups, each walking its row
// in chunks: no workgroup waits on another, so the sort needs no
// forward-progress guarantee.

const PER_INVOCATION: u32 = 4u;
var<workgroup> digit_start: atomic<u32>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let digit = wid.x;
  let num_tiles = control.num_tiles;
  let row = digit * num_tiles;
  if (lid == 0u) {
    atomicStore(&digit_start, 0u);
  }
  workgroupBarrier();
  var smaller = 0u;
  for (var d = lid; d < digit; d += WG) {
    smaller += atomicLoad(&digit_totals[pass_info.index * RADIX + d]);
  }
  if (smaller != 0u) {
    atomicAdd(&digit_start, smaller);
  }
  var carry = workgroupUniformLoad(&digit_start);
  for (var chunk = 0u; chunk < num_tiles; chunk += WG * PER_INVOCATION) {
    let first = chunk + lid * PER_INVOCATION;
    // values[i]: the count's prefix among this invocation's counts, less
    // where the digit starts in its tile.
    var values: array<u32, PER_INVOCATION>;
    var sum = 0u;
    for (var i = 0u; i < PER_INVOCATION; i++) {
      var packed = 0u;
      if (first + i < num_tiles) {
        packed = counts[row + first + i];
      }
      values[i] = sum - start_in_tile_of(packed);
      sum += tile_count_of(packed);
    }
    let scan = workgroup_exclusive_scan(lid, sum);
    for (var i = 0u; i < PER_INVOCATION; i++) {
      if (first + i < num_tiles) {
        counts[row + first + i] = carry + scan.exclusive + values[i];
      }
    }
    carry += scan.total;
  }
}
