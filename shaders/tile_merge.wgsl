// Blends each split tile's partials (tile_chunk.wgsl) front to back into
// the picture: a workgroup per split tile, an invocation per pixel, as the
// raster would have: colour + transmittance · (the next chunk's colour),
// up to the chunk where the pixel stopped (or its transmittance fell under
// T_STOP), then the background. A chunk starts at a transmittance of 1, so
// it blends splats the whole run would have stopped before; each is weighed
// here by what the chunks before left, under T_STOP (1e-4), so the picture
// differs from one workgroup's by less than 1e-4 of a colour. Slots:
// TILE_MERGE_SLOTS.

@group(0) @binding(0) var<uniform> frame: Frame;
@group(0) @binding(1) var<storage, read> state: TileState;
@group(0) @binding(2) var<storage, read_write> chunk_words: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read> partials: array<vec4<f32>>;
@group(0) @binding(4) var picture: texture_storage_2d<PICTURE_FORMAT, write>;

const T_STOP: f32 = 1e-4;

@compute @workgroup_size(TILE_SIZE * TILE_SIZE)
fn main(
  @builtin(workgroup_id) wid: vec3<u32>,
  @builtin(num_workgroups) groups: vec3<u32>,
  @builtin(local_invocation_index) lid: u32,
) {
  let split = flat_group(wid, groups.x);
  if (state.total > state.capacity || split >= atomicLoad(&chunk_words[CHUNK_SPLITS])) {
    return;
  }
  let at = split_word(split);
  let tile_index = atomicLoad(&chunk_words[at]);
  let first = atomicLoad(&chunk_words[at + 1u]);
  let chunks = atomicLoad(&chunk_words[at + 2u]);
  // The published transmittances back to 0 for the next frame.
  for (var k = 0u; k < chunks; k++) {
    atomicStore(&chunk_words[transmittance_word(first + k, lid)], 0u);
  }
  let grid = tile_grid();
  let xy = vec2<u32>(tile_index % grid.x, tile_index / grid.x) * TILE_SIZE + tile_pixel(lid);
  if (any(xy >= vec2<u32>(frame.viewport))) {
    return;
  }
  var color = vec3<f32>(0.0);
  var transmittance = 1.0;
  for (var k = 0u; k < chunks; k++) {
    let part = partials[(first + k) * TILE_SIZE * TILE_SIZE + lid];
    color += transmittance * part.rgb;
    transmittance *= abs(part.w);
    if (part.w < 0.0 || transmittance < T_STOP) {
      break;
    }
  }
  let background = vec3<f32>(state.background_r, state.background_g, state.background_b);
  textureStore(picture, xy, vec4<f32>(color + transmittance * background, 1.0));
}
