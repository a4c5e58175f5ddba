// The tile raster's centre-depth order, in parts put into tile_raster.wgsl's
// main (src/gpu/wgsl-splice.ts): each splat is blended as it arrives, front
// to back by its centre's depth. A pixel holds nothing back.

// {{start}}
// {{load}}
// {{arrive}}
blend(&px, alpha_at(j, px.p), batch_look[j].rgb);
// {{finish}}
