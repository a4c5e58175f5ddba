// Radix pass, phase 2 for short rows: when every digit's row of tile counts
// is at most SHORT_SCAN_TILES long (a small sort), one workgroup scans all
// of them instead of RADIX workgroups one row each. Same result as
// radix_scan.wgsl: each count becomes its digit's base for the tile (the sum
// of the smaller digits' totals plus the counts before it in its row, less
// where the digit starts in the tile). On a software GPU (SwiftShader) the
// RADIX workgroups of the long form were most of a small sort's time: each
// of their invocations is emulated through every barrier, whatever the
// row's length.

// Where each digit's keys start among all keys: a scan of the totals.
var<workgroup> digit_starts: array<u32, RADIX>;

// Each invocation takes DIGITS_PER_INVOCATION consecutive digits (radix_common.wgsl).
@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32) {
  let num_tiles = control.num_tiles;
  let first_digit = lid * DIGITS_PER_INVOCATION;
  for (var i = 0u; i < DIGITS_PER_INVOCATION; i++) {
    if (first_digit + i < RADIX) {
      digit_starts[first_digit + i] = atomicLoad(&digit_totals[pass_info.index * RADIX + first_digit + i]);
    }
  }
  exclusive_scan_digits(lid, &digit_starts);
  for (var i = 0u; i < DIGITS_PER_INVOCATION; i++) {
    let digit = first_digit + i;
    if (digit >= RADIX) {
      break;
    }
    let row = digit * num_tiles;
    var loaded: array<u32, SHORT_SCAN_TILES>;
    for (var t = 0u; t < SHORT_SCAN_TILES; t++) {
      if (t < num_tiles) {
        loaded[t] = counts[row + t];
      }
    }
    var carry = digit_starts[digit];
    for (var t = 0u; t < SHORT_SCAN_TILES; t++) {
      if (t < num_tiles) {
        counts[row + t] = carry - start_in_tile_of(loaded[t]);
        carry += tile_count_of(loaded[t]);
      }
    }
  }
}
