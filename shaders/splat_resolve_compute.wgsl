// Resolve by compute: the copies of splat_resolve.wgsl's fs_picture and
// fs_tile_picture, written into an output a compute pass may write (one
// made with STORAGE_BINDING; src/render/output-target.ts says why: on an
// H200 a full-window render pass costs ten times this). OUTPUT_FORMAT is
// replaced by the output's format when the pipeline is made
// (SplatResolve.create). Slots: RESOLVE_COMPUTE_SLOTS.

@group(0) @binding(0) var picture: texture_2d<f32>;
@group(0) @binding(1) var output: texture_storage_2d<OUTPUT_FORMAT, write>;

// The accumulated picture, opaque.
@compute @workgroup_size(8, 8)
fn cs_picture(@builtin(global_invocation_id) id: vec3<u32>) {
  if (any(id.xy >= textureDimensions(output))) {
    return;
  }
  textureStore(output, id.xy, vec4<f32>(textureLoad(picture, id.xy, 0).rgb, 1.0));
}

// The tile renderer's picture, unless the frame's pairs did not fit its
// buffers: then the tile picture was not written, the pixel gets the
// background (kept in the TileState's header), and the quads drawn next,
// in a render pass that loads this, make the frame
// (SplatResolve.encodeTilePicture). The TileState words are read at the
// indices the pipeline is made with (TILE_STATE in src/render/frame-layouts.ts).
@group(0) @binding(2) var<storage, read> tile_words: array<u32>;
override tile_total_word: u32 = 0u;
override tile_capacity_word: u32 = 0u;
override tile_background_word: u32 = 0u;

@compute @workgroup_size(8, 8)
fn cs_tile_picture(@builtin(global_invocation_id) id: vec3<u32>) {
  if (any(id.xy >= textureDimensions(output))) {
    return;
  }
  var colour: vec3<f32>;
  if (tile_words[tile_total_word] > tile_words[tile_capacity_word]) {
    let b = tile_background_word;
    colour = vec3<f32>(bitcast<f32>(tile_words[b]), bitcast<f32>(tile_words[b + 1u]), bitcast<f32>(tile_words[b + 2u]));
  } else {
    colour = textureLoad(picture, id.xy, 0).rgb;
  }
  textureStore(output, id.xy, vec4<f32>(colour, 1.0));
}
