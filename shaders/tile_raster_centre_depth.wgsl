// The tile raster's centre-depth order (put after tile_raster.wgsl, whose
// main calls these): each splat is blended as it arrives, front to back by
// its centre's depth. A pixel holds nothing back; its `held` is a word no
// function reads (WGSL has no empty type), which the compiler drops with
// the empty calls.

fn order_start(px: Pixel) -> u32 {
  return 0u;
}

fn order_load(id: u32, slot: u32) {}

fn order_arrive(px: ptr<function, Pixel>, held: ptr<function, u32>, j: u32) {
  blend(px, alpha_at(j, (*px).p), batch_look[j].rgb);
}

fn order_finish(px: ptr<function, Pixel>, held: ptr<function, u32>) {}
