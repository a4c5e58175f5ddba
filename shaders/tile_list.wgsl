// A world pool's drawn tiles, for the keys dispatch (src/scene/drawn-tiles.ts;
// the projector reads the same list where it lies, in the drawn mask's
// buffer): word 0 is 1 where the dispatch runs a workgroup per listed
// tile, 0 where it runs one per tile; then the tiles listed, padded to the
// dispatch's grid with the tile past the last (whose invocations lie past
// the scene's count).
@group(0) @binding(5) var<storage, read> tile_list: array<u32>;

// The projector tile that workgroup `group` of the dispatch runs.
fn listed_tile(group: u32) -> u32 {
  if (tile_list[0] == 1u) {
    return tile_list[1u + group];
  }
  return group;
}
