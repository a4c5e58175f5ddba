// The tile raster's block lists (tile_raster.wgsl): where a frame's splats
// are small, each batch's splats are listed per 4×4 block of the tile
// (BLOCK_SIDE, tile_chunk.wgsl), and each pixel walks its block's list
// alone. In the raster's module, after tile_raster.wgsl.

// Whether this pipeline walks each batch by block lists (BLOCK_LISTS_BELOW
// in src/render/tiles/tile-raster.ts says where that pays), a pipeline of
// its own so that the other keeps none of its code and, its arrays sized 1
// by list_slots, none of its workgroup memory.
override walk_lists: bool;
// Where a pipeline walks its batches by block lists: the blocks
// each batch splat's quad box reaches (block_mask), then the same as a list
// per block: bit i of word g of block b says batch splat 32 g + i reaches
// block b. A pixel walks only its block's bits, in order. list_slots is
// raster_batch where the pipeline walks lists, else 1.
override list_slots: u32;
override block_words: u32 = max(1u, BLOCKS * (list_slots / 32u));
var<workgroup> batch_mask: array<u32, list_slots>;
var<workgroup> block_bits: array<u32, block_words>;

// The blocks of `tile` the footprint's quad box reaches, bit
// by * BLOCKS_ACROSS + bx (every pixel where alpha_at is not 0 lies in the
// box: pixel_box).
fn block_mask(f: Footprint, tile: vec2<u32>) -> u32 {
  let box = pixel_box(f);
  let origin = vec2<f32>(tile * TILE_SIZE);
  let lo = max(box.lo - origin, vec2<f32>(0.0));
  let hi = min(box.hi - origin, vec2<f32>(f32(TILE_SIZE - 1u)));
  if (any(hi < lo) || f.opacity <= 0.0) {
    return 0u;
  }
  let first = vec2<u32>(lo) / BLOCK_SIDE;
  let last = vec2<u32>(hi) / BLOCK_SIDE;
  let row = ((2u << last.x) - 1u) & ~((1u << first.x) - 1u);
  var mask = 0u;
  for (var by = first.y; by <= last.y; by++) {
    mask |= row << (by * BLOCKS_ACROSS);
  }
  return mask;
}

// The batch's masks turned into the blocks' lists (block_bits), a word per
// invocation, for the words the batch's `batch` splats fill.
fn list_blocks(lid: u32, batch: u32) {
  let words = raster_batch / 32u;
  if (lid < block_words && lid % words < (batch + 31u) / 32u) {
    let block = lid / words;
    let first = (lid % words) * 32u;
    var bits = 0u;
    for (var i = 0u; i < 32u; i++) {
      bits |= ((batch_mask[first + i] >> block) & 1u) << i;
    }
    block_bits[lid] = bits;
  }
}
