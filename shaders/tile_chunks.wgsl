// Splits the tiles' long runs into chunks (tile_chunk.wgsl): an invocation
// per tile, after the ranges. A run of more than chunk_pairs() pairs gets a
// split (its partials, and the word where the raster marks it opaque) and
// a chunk item for each chunk past its first. Slots: TILE_CHUNKS_SLOTS.

@group(0) @binding(0) var<storage, read> state: TileState;
@group(0) @binding(1) var<storage, read> ranges: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read_write> chunk_words: array<atomic<u32>>;
// The window (the tile grid): the only words of the frame this pass needs.
@group(0) @binding(3) var<uniform> frame: Frame;

@compute @workgroup_size(BIN_GROUP)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let tile = gid.x;
  if (tile >= tile_count() || state.total > state.capacity) {
    return;
  }
  let range = ranges[tile];
  let run = select(0u, range.y - range.x, range.y > range.x);
  let size = chunk_pairs();
  if (run <= size) {
    atomicStore(&chunk_words[CHUNK_HEADER + tile], NO_SPLIT);
    return;
  }
  let chunks = (run - 1u) / size + 1u;
  let split = atomicAdd(&chunk_words[CHUNK_SPLITS], 1u);
  let first_partial = atomicAdd(&chunk_words[CHUNK_PARTIALS], chunks);
  let first_item = atomicAdd(&chunk_words[CHUNK_ITEMS], chunks - 1u);
  let at = split_word(split);
  atomicStore(&chunk_words[at], tile);
  atomicStore(&chunk_words[at + 1u], first_partial);
  atomicStore(&chunk_words[at + 2u], chunks);
  atomicStore(&chunk_words[at + 3u], chunks);
  atomicStore(&chunk_words[CHUNK_HEADER + tile], split);
  for (var k = 1u; k < chunks; k++) {
    let item = item_word(first_item + k - 1u);
    atomicStore(&chunk_words[item], split);
    atomicStore(&chunk_words[item + 1u], k);
  }
}
