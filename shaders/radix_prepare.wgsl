// Radix sort, step 0 of a sort whose count lies on the GPU: turns the
// element count into the dispatch sizes and per-sort parameters that every
// later phase reads (the first invocation), and clears the block sums the
// count phases add into (every invocation a share). Reading the count from
// a GPU buffer lets an earlier pass (e.g. culling) decide how many pairs
// are sorted without a round trip to the CPU; reading it where it lies,
// and clearing here, saves the copy and the clear a sort would otherwise
// record between passes (about 1.5 µs each in an H200 frame).
//
// Constants and scan_block_tiles() from the prelude (src/sort/radix-layout.ts).

// The structs are in radix_structs.wgsl.
@group(0) @binding(0) var<storage, read> source: CountSource;
@group(0) @binding(1) var<storage, read_write> control: Control;
@group(0) @binding(2) var<storage, read_write> dispatch: DispatchArgs;
// The caller's buffer that holds the count, at source.offset.
@group(0) @binding(3) var<storage, read> count_words: array<u32>;
@group(0) @binding(4) var<storage, read_write> block_sums: array<vec4<u32>>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let sums = arrayLength(&block_sums);
  for (var i = gid.x; i < sums; i += groups.x * 64u) {
    block_sums[i] = vec4<u32>(0u);
  }
  if (gid.x != 0u) {
    return;
  }
  var n = min(count_words[source.offset], source.capacity);
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
