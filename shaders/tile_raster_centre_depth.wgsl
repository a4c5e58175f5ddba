// The tile raster's centre-depth order, in parts put into tile_raster.wgsl's
// main (src/gpu/wgsl-splice.ts): each splat is blended as it arrives, front
// to back by its centre's depth. A pixel holds nothing back.

// Alphas a pixel works out ahead (tile_raster.wgsl's main): on an H200
// (1920×1080, docs/benchmarks.md) four drew the raster in 0.82–0.91× the
// time of one; eight drew no faster than four, and slower where the
// pixels walk block lists (1.07×).
const ARRIVALS: u32 = 4u;

// {{start}}
// {{load}}
// {{arrive}}
blend(&px, alpha, batch_look[j].rgb);
// {{finish}}
