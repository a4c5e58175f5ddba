// What the projector (shaders/splat_project.wgsl) leaves for the rest of the
// frame: one ProjectedSplat per splat, the splats' exact view depths, and the
// VisibleState counters. Layouts are described once in TypeScript
// (src/render/frame-layouts.ts); a unit test checks these declarations
// against that description.

// One projected splat: the quad the vertex shader draws, in pixels from the
// window's middle (y up). Corner c (each component ±1) lies at
// centre + c.x * edge_x + c.y * edge_y, and carries the Gaussian's offset in
// standard deviations sigma_lo (c = -1) or sigma_hi (c = +1) along the
// ellipse's axes. 32 bytes; three f16 pairs, which keep the picture
// (src/render/frame-layouts.ts has the measurement).
struct ProjectedSplat {
  centre: vec2<f32>,
  edges: vec2<u32>,        // f16 pairs: edge_x (x, y), edge_y (x, y), pixels
  sigma_box: vec2<u32>,    // f16 pairs: sigma_lo (x, y), sigma_hi (x, y)
  look: vec2<u32>,         // f16 pairs: colour (r, g), (b, opacity); opacity 0: culled
}

// Counters of one frame's visible splats. depth_min and depth_max are the
// f32 bits of the nearest and farthest kept depth (positive floats order as
// their bits); the CPU resets them before the projector runs.
struct VisibleState {
  depth_min: atomic<u32>,
  depth_max: atomic<u32>,
  visible: u32,            // splats kept, clamped to capacity (written by the scan)
  capacity: u32,           // the most the key and sort buffers hold
  // drawIndirect's arguments: QUAD_VERTICES per visible splat, one instance.
  draw_vertex_count: u32,
  draw_instance_count: u32,
  draw_first_vertex: u32,
  draw_first_instance: u32,
  // Per projector tile (256 splats): kept splats, then (after the scan) the
  // tile's first slot within its block of tiles; after them, per block of
  // tiles, its total, then its first slot (shaders/visible_scan.wgsl).
  tiles: array<u32>,
}

// Vertices drawn a splat: two triangles (QUAD_VERTICES in src/render/frame-layouts.ts).
const QUAD_VERTICES: u32 = 6u;

// The depth recorded for a splat the projector culled.
const CULLED_DEPTH: f32 = -1.0;
// Splats per projector tile (its workgroup size).
const PROJECT_TILE: u32 = 256u;
