// The tile raster's chunks: how a tile whose run of pairs is long is drawn
// by several workgroups at once. A tile's run is cut into chunks of
// chunk_pairs() pairs; its first chunk is drawn by the tile's own
// workgroup, the others by workgroups past the tile grid, each from its
// own first pair with a transmittance of 1, into a partial picture of the
// tile (colour, transmittance), and publishes the transmittance it left
// (transmittance_word) for the later chunks to stop where it turned
// opaque; tile_merge.wgsl then blends the partials in order. Without this
// the frame waits on its longest run: seen from outside, the replicated
// 7.2M-splat scene fills 941 of 8160 tiles at 1080p, one with 59K pairs,
// and its raster took 8.7 ms on an H200 (4.6 with chunks:
// docs/benchmarks.md).
//
// chunk_words, one buffer of u32 (TileChunks in src/render/tiles/tile-chunks.ts):
//   [0] chunk items, [1] split tiles, [2] partials: counts (cleared each frame)
//   [CHUNK_HEADER + tile]: the tile's split, or NO_SPLIT
//   then per split tile (max_chunks of them): its tile, first partial,
//     chunks, and the first chunk that left every pixel of it opaque
//     (chunks while none has)
//   then per chunk item past a run's first (max_chunks): its split, chunk
//   then per partial (2 · max_chunks), per pixel: transmittance_word.
// A partial is TILE_SIZE² vec4<f32>, by invocation (tile_pixel): the
// colour blended and the transmittance left, negated where the pixel
// stopped.

const CHUNK_HEADER: u32 = 4u;
const CHUNK_ITEMS: u32 = 0u;
const CHUNK_SPLITS: u32 = 1u;
const CHUNK_PARTIALS: u32 = 2u;
const NO_SPLIT: u32 = 0xffffffffu;
const SPLIT_WORDS: u32 = 4u;
const ITEM_WORDS: u32 = 2u;

fn tile_count() -> u32 {
  let grid = tile_grid();
  return grid.x * grid.y;
}

fn split_word(split: u32) -> u32 {
  return CHUNK_HEADER + tile_count() + SPLIT_WORDS * split;
}

fn item_word(item: u32) -> u32 {
  return CHUNK_HEADER + tile_count() + SPLIT_WORDS * state.max_chunks + ITEM_WORDS * item;
}

// Where a finished chunk publishes the transmittance it left at each pixel
// (by invocation): the f32's bits, negated where the pixel stopped; 0: not
// published (yet). A later chunk of the tile stops a pixel once the chunks
// before it that have published leave it under T_STOP, so chunks drawn one
// after another stop where the whole run would. The merge puts the 0s back.
fn transmittance_word(partial: u32, lid: u32) -> u32 {
  return CHUNK_HEADER + tile_count() + (SPLIT_WORDS + ITEM_WORDS) * state.max_chunks + partial * TILE_SIZE * TILE_SIZE + lid;
}

// Pairs to a chunk this frame: at least chunk_min_pairs, and enough that no
// frame needs more than max_chunks chunks past the runs' first (each such
// chunk holds chunk_pairs() pairs of the frame's). 0xffffffff: never split.
fn chunk_pairs() -> u32 {
  if (state.chunk_min_pairs == 0u) {
    return 0xffffffffu;
  }
  return max(state.chunk_min_pairs, (state.pairs + state.max_chunks - 1u) / state.max_chunks);
}

// Invocation lid's pixel in its tile (the raster's and the merge's: a
// partial is written and read by invocation): 4×4 blocks of pixels, block
// by block, each block row by row, so a subgroup of 32 invocations draws
// an 8×4 rectangle, not two rows of 16. Its pixels then meet much the same
// splats and stop at much the same time, and the raster drew 1–6 % faster
// in the centre-depth order and up to 16 % in the per-pixel order (H200,
// 1920×1080; docs/benchmarks.md, "The raster's pixels by blocks").
const BLOCK_SIDE: u32 = 4u;
override BLOCKS_ACROSS: u32 = TILE_SIZE / BLOCK_SIDE;
override BLOCKS: u32 = BLOCKS_ACROSS * BLOCKS_ACROSS;

fn tile_pixel(lid: u32) -> vec2<u32> {
  let block = lid / (BLOCK_SIDE * BLOCK_SIDE);
  let within = lid % (BLOCK_SIDE * BLOCK_SIDE);
  let corner = vec2<u32>(block % BLOCKS_ACROSS, block / BLOCKS_ACROSS) * BLOCK_SIDE;
  return corner + vec2<u32>(within % BLOCK_SIDE, within / BLOCK_SIDE);
}

// The block of invocation lid's pixel (tile_pixel), row by row.
fn pixel_block(lid: u32) -> u32 {
  return lid / (BLOCK_SIDE * BLOCK_SIDE);
}
