// Radix pass, phase 2: turns the tiles' digit counts into each digit's base
// for each tile (radix_common.wgsl), in place. The tiles are split into
// blocks of control.block_tiles consecutive tiles, one workgroup each. A
// workgroup first reads every block's sums (block_sums, added up by phase
// 1): over all blocks they give each digit's total, hence where each digit
// starts in the output; over the blocks before its own, how many pairs of
// each digit come before its first tile. Then it walks its own tiles in
// order. No workgroup waits on another, so the sort needs no
// forward-progress guarantee.

// Each digit's total, then (after the scan over digits) where it starts.
var<workgroup> digit_starts: array<u32, RADIX>;

// Block sums and tile counts are read this many at a time, so that their
// round trips to memory overlap.
const SUM_BATCH: u32 = 32u;
const TILE_BATCH: u32 = 16u;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let block = wid.x;
  let num_tiles = control.num_tiles;
  let block_tiles = control.block_tiles;
  let num_blocks = (num_tiles + block_tiles - 1u) / block_tiles;
  if (block >= num_blocks) {
    return;
  }
  let sums = pass_info.index * SCAN_BLOCKS * RADIX;

  // carry[i]: pairs of this invocation's i-th digit before the block's first
  // tile (within the digit's run, then from the start of the output).
  var carry: array<u32, DIGITS_PER_INVOCATION>;
  for (var i = 0u; i < DIGITS_PER_INVOCATION; i++) {
    let d = lid * DIGITS_PER_INVOCATION + i;
    var total = 0u;
    var before = 0u;
    if (d < RADIX) {
      for (var b0 = 0u; b0 < num_blocks; b0 += SUM_BATCH) {
        var got: array<u32, SUM_BATCH>;
        for (var j = 0u; j < SUM_BATCH; j++) {
          got[j] = 0u;
          if (b0 + j < num_blocks) {
            got[j] = atomicLoad(&block_sums[sums + (b0 + j) * RADIX + d]);
          }
        }
        for (var j = 0u; j < SUM_BATCH; j++) {
          total += got[j];
          before += select(0u, got[j], b0 + j < block);
        }
      }
      digit_starts[d] = total;
    }
    carry[i] = before;
  }
  exclusive_scan_digits(lid, &digit_starts);
  for (var i = 0u; i < DIGITS_PER_INVOCATION; i++) {
    let d = lid * DIGITS_PER_INVOCATION + i;
    if (d < RADIX) {
      carry[i] += digit_starts[d];
    }
  }

  let first = block * block_tiles;
  let end = min(num_tiles, first + block_tiles);
  for (var t0 = first; t0 < end; t0 += TILE_BATCH) {
    for (var i = 0u; i < DIGITS_PER_INVOCATION; i++) {
      let d = lid * DIGITS_PER_INVOCATION + i;
      if (d < RADIX) {
        var packed: array<u32, TILE_BATCH>;
        for (var j = 0u; j < TILE_BATCH; j++) {
          packed[j] = 0u;
          if (t0 + j < end) {
            packed[j] = counts[(t0 + j) * RADIX + d];
          }
        }
        for (var j = 0u; j < TILE_BATCH; j++) {
          if (t0 + j < end) {
            counts[(t0 + j) * RADIX + d] = carry[i] - start_in_tile_of(packed[j]);
            carry[i] += tile_count_of(packed[j]);
          }
        }
      }
    }
  }
}
