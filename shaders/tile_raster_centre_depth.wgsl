// The tile raster's centre-depth order, in parts put into tile_raster.wgsl's
// main (src/gpu/wgsl-splice.ts): each splat is blended as it arrives, front
// to back by its centre's depth. A pixel holds nothing back.

// Alphas a pixel works out ahead (tile_raster.wgsl's main): set when the
// module is made (rasterArrivals, src/render/tiles/tile-raster.ts).
const ARRIVALS: u32 = 1u;

// {{start}}
// {{load}}
// {{arrive}}
blend(&px, alpha, batch_look[j].rgb);
// {{finish}}
