// The tile renderer's pair state and sizes (src/render/tiles/), shared by
// all its passes; tile_footprint.wgsl has the splat's footprint.

const TILE_SIZE: u32 = 16u;
// Entries of the order per binning workgroup (and per group of the scan).
const BIN_GROUP: u32 = 256u;

// The frame's pair bookkeeping (TILE_STATE in src/render/frame-layouts.ts).
struct TileState {
  // The order's entries drawn, counted as drawIndirect counts them
  // (QUAD_VERTICES each): a draw's count on the GPU is the projector's
  // indirect arguments, copied in as they are before the binning.
  draw_vertices: u32,
  capacity: u32,         // pairs the pair buffers hold
  total: u32,            // pairs this frame needs (the scan)
  pairs: u32,            // pairs written and sorted: min(total, capacity)
  ranges_x: u32,         // the ranges dispatch's workgroups (indirect)
  ranges_y: u32,
  ranges_z: u32,
  entry_capacity: u32,   // the most entries (where the groups' words start)
  max_groups_x: u32,     // the device's workgroups per dimension
  background_r: f32,     // the premultiplied opaque background
  background_g: f32,
  background_b: f32,
  // Per entry: its first pair within its group; then per group of
  // BIN_GROUP entries: its pair total, then (after the scan) its first pair.
  words: array<u32>,
}

