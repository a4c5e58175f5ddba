// Radix sort, step 0 (one invocation): turns the element count into the
// dispatch sizes and per-sort parameters that every later phase reads.
// Reading the count from a GPU buffer lets an earlier pass (e.g. culling)
// decide how many pairs are sorted without a round trip to the CPU.
//
// Constants and scan_block_tiles() from the prelude (src/sort/radix-layout.ts).

// The structs are in radix_structs.wgsl.
@group(0) @binding(0) var<storage, read> source: CountSource;
@group(0) @binding(1) var<storage, read_write> control: Control;
@group(0) @binding(2) var<storage, read_write> dispatch: DispatchArgs;

@compute @workgroup_size(1)
fn main() {
  var n = min(source.count, source.capacity);
  if (source.bound > 0u) {
    n = min(n, source.bound);
  }
  let num_tiles = (n + TILE - 1u) / TILE;
  // The grid the phases are dispatched with: sized from the count (indirectly, from the arguments
  // written here), or, with a bound, the one the caller dispatched directly for the bound, whose
  // workgroups past num_tiles (and scan blocks past the count's) exit at once.
  var grid_tiles = num_tiles;
  if (source.bound > 0u) {
    grid_tiles = (source.bound + TILE - 1u) / TILE;
  }
  let tiles_x = min(grid_tiles, MAX_GROUPS_X);
  var tiles_y = 1u;
  if (tiles_x > 0u) {
    tiles_y = (num_tiles + tiles_x - 1u) / tiles_x;
  }
  dispatch.x = tiles_x;
  dispatch.y = tiles_y;
  dispatch.z = 1u;
  let block_tiles = scan_block_tiles(grid_tiles);
  dispatch.scan_x = (num_tiles + block_tiles - 1u) / block_tiles;
  dispatch.scan_y = 1u;
  dispatch.scan_z = 1u;
  control.n = n;
  control.num_tiles = num_tiles;
  control.tiles_x = tiles_x;
  control.block_tiles = block_tiles;
}
