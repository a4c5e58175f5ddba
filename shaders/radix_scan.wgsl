// Radix pass, phase 2: one workgroup per digit scans that digit's row of
// tile counts in place (exclusive), and stores the row's total. Phase 3 adds
// the exclusive prefix of the totals (the digit's start in the output).
// RADIX workgroups, each walking its row in chunks: no workgroup waits on
// another, so the sort needs no forward-progress guarantee.

const PER_INVOCATION: u32 = 4u;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let digit = wid.x;
  let num_tiles = control.num_tiles;
  let row = digit * num_tiles;
  var carry = 0u;
  for (var chunk = 0u; chunk < num_tiles; chunk += WG * PER_INVOCATION) {
    let first = chunk + lid * PER_INVOCATION;
    var values: array<u32, PER_INVOCATION>;
    var sum = 0u;
    for (var i = 0u; i < PER_INVOCATION; i++) {
      var c = 0u;
      if (first + i < num_tiles) {
        c = counts[row + first + i];
      }
      values[i] = sum;
      sum += c;
    }
    let scan = workgroup_exclusive_scan(lid, sum);
    for (var i = 0u; i < PER_INVOCATION; i++) {
      if (first + i < num_tiles) {
        counts[row + first + i] = carry + scan.exclusive + values[i];
      }
    }
    carry += scan.total;
  }
  if (lid == 0u) {
    digit_totals[digit] = carry;
  }
}
