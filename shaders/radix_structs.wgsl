// The radix sort's buffers shared with TypeScript, laid out once in
// src/sort/radix-structs.ts (a unit test checks these declarations against
// it). Prepended to every phase after the prelude.

// Where the element count handed to the sort lies (radix_prepare.wgsl).
struct CountSource {
  offset: u32,    // the count's word in the caller's buffer (count_words): read where it lies
  capacity: u32,  // pairs the sorter's buffers hold; count is clamped to it
  bound: u32,     // 0: the dispatches are sized from count (indirect); else the caller's bound on it,
                  // for which it dispatched directly (count is clamped to it too)
}

// Written by radix_prepare.wgsl for this sort; read by the tile phases as a uniform.
struct Control {
  n: u32,           // pairs to sort
  num_tiles: u32,   // ceil(n / TILE)
  tiles_x: u32,     // tiles per row of the 2D tile grid (> 65,535 tiles need 2D)
  block_tiles: u32, // tiles per block of the scan phase: scan_block_tiles(num_tiles)
}

// Indirect dispatch arguments of the tile phases and the scan phase, in a
// buffer of their own so the indirect buffer is never also bound to the
// dispatch it launches.
struct DispatchArgs {
  x: u32,       // tile grid of the count and scatter phases
  y: u32,
  z: u32,
  scan_x: u32,  // workgroups of the scan phase: one per block of tiles
  scan_y: u32,
  scan_z: u32,
}

// One entry per (pass, key width): which bits of the key this pass sorts on.
struct Pass {
  shift: u32,
  mask: u32,   // (1 << bits in this digit) - 1; below RADIX - 1 on a short last digit
  index: u32,  // pass number: selects this pass's block sums
}
