// Resolve: the splats are blended into a float accumulation target (every
// layer kept at f16 or f32 precision, as the reference rasterizer keeps it
// in registers); this last pass writes that picture to the canvas or PNG
// format, rounding once instead of once per layer.
//
// fs_picture copies the accumulated picture. fs_difference draws the sort
// difference view: `picture` holds the frame drawn in the order on screen,
// `exact` the same frame drawn in the exact back-to-front order; where they
// differ by a visible step (one 8-bit level or more) the pixel gets a heat
// colour over a dimmed grey copy of the exact picture, and the pass counts
// those pixels, the largest and the summed difference (DifferenceStats).

struct DifferenceStats {
  pixels: atomic<u32>,     // pixels that differ by one level or more
  largest: atomic<u32>,    // the largest difference, levels
  total: atomic<u32>,      // the differences summed, levels
  pad0: u32,
}

@group(0) @binding(0) var picture: texture_2d<f32>;

// One triangle covering the target: no vertex buffer.
@vertex
fn vs_main(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
  let uv = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
  return vec4<f32>(uv * 2.0 - 1.0, 0.0, 1.0);
}

@fragment
fn fs_picture(@builtin(position) position: vec4<f32>) -> @location(0) vec4<f32> {
  return vec4<f32>(textureLoad(picture, vec2<i32>(position.xy), 0).rgb, 1.0);
}

// The splats' own picture (cleared to transparent: its alpha is their
// coverage), blended "over" another renderer's picture by the pipeline
// (src/lib/engine.ts draws splats into a caller's pass this way).
@fragment
fn fs_over(@builtin(position) position: vec4<f32>) -> @location(0) vec4<f32> {
  return textureLoad(picture, vec2<i32>(position.xy), 0);
}

// The tile renderer's picture (src/render/tiles/), unless the frame's pairs
// did not fit its buffers: then the tile picture was not written, the pixel
// is left to the cleared background, and the quads drawn next in this same
// pass make the frame (SplatResolve.encodeTilePicture). The words of the
// tile renderer's TileState are read at the indices the pipeline is made
// with (TILE_STATE in src/render/frame-layouts.ts).
@group(0) @binding(3) var<storage, read> tile_words: array<u32>;
override tile_total_word: u32 = 0u;
override tile_capacity_word: u32 = 0u;

@fragment
fn fs_tile_picture(@builtin(position) position: vec4<f32>) -> @location(0) vec4<f32> {
  if (tile_words[tile_total_word] > tile_words[tile_capacity_word]) {
    discard;
  }
  return vec4<f32>(textureLoad(picture, vec2<i32>(position.xy), 0).rgb, 1.0);
}

@group(0) @binding(1) var exact: texture_2d<f32>;
@group(0) @binding(2) var<storage, read_write> stats: DifferenceStats;

// The picture as a unorm target stores it: round to nearest 8-bit level.
fn levels(c: vec3<f32>) -> vec3<f32> {
  return round(clamp(c, vec3<f32>(0.0), vec3<f32>(1.0)) * 255.0);
}

// Heat colours from one level (dark blue) through 4 (violet) and 16
// (orange) to 64 and more (pale yellow), on a log scale: small
// differences, the common case of a slightly stale order, stay visible
// beside the large ones of a wrong order.
fn heat(d: f32) -> vec3<f32> {
  let t = clamp(log2(d) / 6.0, 0.0, 1.0) * 3.0;
  let stops = array<vec3<f32>, 4>(
    vec3<f32>(0.10, 0.25, 0.95),
    vec3<f32>(0.70, 0.15, 0.85),
    vec3<f32>(1.00, 0.55, 0.10),
    vec3<f32>(1.00, 1.00, 0.60),
  );
  let i = min(u32(t), 2u);
  return mix(stops[i], stops[i + 1u], t - f32(i));
}

@fragment
fn fs_difference(@builtin(position) position: vec4<f32>) -> @location(0) vec4<f32> {
  let at = vec2<i32>(position.xy);
  let shown = levels(textureLoad(picture, at, 0).rgb);
  let truth = levels(textureLoad(exact, at, 0).rgb);
  let d = max(max(abs(shown.r - truth.r), abs(shown.g - truth.g)), abs(shown.b - truth.b));
  let grey = vec3<f32>(0.3 * dot(truth / 255.0, vec3<f32>(0.299, 0.587, 0.114)));
  if (d < 1.0) {
    return vec4<f32>(grey, 1.0);
  }
  atomicAdd(&stats.pixels, 1u);
  atomicMax(&stats.largest, u32(d));
  atomicAdd(&stats.total, u32(d));
  return vec4<f32>(heat(d), 1.0);
}
