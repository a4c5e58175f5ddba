// Where the projector's tiles place their kept splats, for its scan and keys
// dispatches (with workgroup_sum.wgsl, whose width is PROJECT_TILE).

// Tiles per block of the two-level scan (visible_scan.wgsl): one per invocation.
const SCAN_BLOCK: u32 = PROJECT_TILE;

// Projector tiles of this frame's splats.
fn tile_count() -> u32 {
  return (frame.count + PROJECT_TILE - 1u) / PROJECT_TILE;
}

// Where tile t's kept splats start among all kept splats, once both scan
// dispatches have run: its block's first slot plus its offset in the block.
fn tile_first_slot(t: u32) -> u32 {
  return state.tiles[tile_count() + t / SCAN_BLOCK] + state.tiles[t];
}

var<workgroup> tile_keeps_nothing: u32;

// True, for a tile's whole workgroup alike (so it may return before its
// barriers), where tile t keeps no splat once both scan dispatches have
// run (the next tile starts where it does; the last tile is never called
// empty) or lies past the last. A world's pool keeps few of its tiles.
fn tile_is_empty(t: u32, lid: u32) -> bool {
  if (lid == 0u) {
    let empty = t >= tile_count() || (t + 1u < tile_count() && tile_first_slot(t + 1u) == tile_first_slot(t));
    tile_keeps_nothing = select(0u, 1u, empty);
  }
  return workgroupUniformLoad(&tile_keeps_nothing) == 1u;
}
