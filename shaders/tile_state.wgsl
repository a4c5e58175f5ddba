// The tile renderer's pair state and sizes (src/render/tiles/), shared by
// all its passes; tile_footprint.wgsl has the splat's footprint.

// Pixels along a tile's side: 16, or 8 in the pipelines of frames whose
// splats are small (TileSide, src/render/tiles/tile-side.ts).
override TILE_SIZE: u32 = 16u;
// Entries of the order per binning workgroup (and per group of the scan).
const BIN_GROUP: u32 = 256u;
// The key of a pair slot whose tile the splat does not touch (box slots,
// tile_bin.wgsl): past every tile, so the sort puts such slots after the
// last tile's run (the pair sort's key bits cover the tiles and it), and
// the ranges skip them.
const NO_TILE: u32 = 0xffffffffu;

// The frame's pair bookkeeping (TILE_STATE in src/render/frame-layouts.ts).
struct TileState {
  entries: u32,          // entries of the order drawn (copied in before the binning)
  capacity: u32,         // pair slots the pair buffers hold
  total: u32,            // slots this frame needs: every tile of the kept boxes (scan_boxes)
  pairs: u32,            // slots written and sorted: min(total, capacity)
  cut_entries: u32,      // entries at the order's back left out (tile_bin.wgsl)
  needed_candidates: u32, // candidates of every entry (at most 2^32 - 1)
  touched: u32,          // pairs written whose tile the splat touches (the rest are NO_TILE slots)
  entry_capacity: u32,   // the most entries (where the groups' words start)
  max_groups_x: u32,     // the device's workgroups per dimension
  background_r: f32,     // the premultiplied opaque background
  background_g: f32,
  background_b: f32,
  candidates: u32,       // (splat, tile) candidates binned: the tiles of each kept quad's box
  // The most candidates a frame bins (tile-pairs.ts): the nearest entries
  // whose candidates fit are kept, the rest cut_entries. The kept
  // candidates start at candidate_base within group first_group.
  candidate_budget: u32,
  first_group: u32,
  candidate_base: u32,
  // With direct entries (tile_bin.wgsl): the slots of the first kept
  // group's entries before the cut, which its entries' firsts skip.
  box_base: u32,
  // drawIndirect's arguments of the quads that draw a frame whose pairs did
  // not fit (no vertices when they did): src/render/tiles/tile-renderer.ts.
  fallback_vertices: u32,
  fallback_instances: u32,
  fallback_first_vertex: u32,
  fallback_first_instance: u32,
  // The raster's chunks (tile_chunk.wgsl): a run longer than a chunk is
  // split, chunk_min_pairs or more to a chunk (0: never split), into at
  // most max_chunks chunks past each run's first; 1 in chunk_look_back:
  // later chunks stop where the published ones before them turned opaque.
  chunk_min_pairs: u32,
  max_chunks: u32,
  chunk_look_back: u32,
  // With N = entry_capacity and G its groups of BIN_GROUP entries
  // (tile_bin.wgsl): per entry its first candidate within its group (N);
  // per group its boxes' total, then (with direct entries) its first slot
  // (G); per entry its first slot within its group (N, with direct
  // entries); per group its candidates' total, then first (G).
  words: array<u32>,
}

