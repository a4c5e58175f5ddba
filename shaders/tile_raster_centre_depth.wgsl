// The tile raster's centre-depth order, in parts put into tile_raster.wgsl's
// main (src/gpu/wgsl-splice.ts): each splat is blended as it arrives, front
// to back by its centre's depth. A pixel holds nothing back.

// Alphas a pixel works out ahead (tile_raster.wgsl's main): set when the
// module is made (rasterArrivals, src/render/tiles/tile-raster.ts).
const ARRIVALS: u32 = 1u;
// Where the pixels walk block lists, each group of ARRIVALS splats is
// worked out unless none of them reaches the pixel's block: an arrival
// here is cheap, and walking the list's bits one splat at a time cost more
// (H200, 1920×1080: the replicated scene's raster from outside took 0.85×
// its time this way; docs/benchmarks.md, "Block lists walked by groups").
const LISTS_BY_GROUPS: bool = true;

// {{start}}
// {{load}}
// {{arrive}}
blend(&px, alpha, batch_look[j].rgb);
// {{finish}}
