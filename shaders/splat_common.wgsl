// Declarations shared by the frame's shaders: the per-frame camera (written
// by src/render/frame-uniforms.ts), and the scene's chunk buffers with the
// functions that read a splat from them (src/scene/gpu-splats.ts), which
// the projector binds at group-0 slots 1 and 2..5. Layouts and slots are
// described once, the camera's in src/render/frame-layouts.ts, the
// scene's in src/scene/splat-layouts.ts.

struct Frame {
  view: mat4x4<f32>,
  projection: mat4x4<f32>,
  eye: vec3<f32>,          // camera position in scene coordinates
  sh_degree: u32,          // bands evaluated: min(scene, chosen)
  viewport: vec2<f32>,     // pixels
  focal: vec2<f32>,        // pixels per unit of x/z and y/z
  tan_half_fov: vec2<f32>,
  splat_scale: f32,
  count: u32,              // splats in the scene
  key_shift: u32,          // 32 - key bits (shaders/visible_keys.wgsl)
  filter_variance: f32,    // px² added to each 2D covariance (src/scene/anti-aliasing.ts)
  filter_compensate: u32,  // 1: opacity × sqrt(det before / det after)
  pad0: u32,
}

struct Splat {
  position: vec3<f32>,
  opacity: f32,
  cov_a: vec3<f32>,        // xx xy xz
  pad0: f32,
  cov_b: vec3<f32>,        // yy yz zz
  pad1: f32,
  dc: vec3<f32>,           // SH degree-0 coefficients
  pad2: f32,
}

// Where splat i lives: chunk i >> chunk_shift, at local index
// i & (2^chunk_shift - 1). A chunk buffer holds the records of its splats
// (4 vec4 each), then their higher-band SH from word sh_start[chunk] on,
// sh_words words a splat, two half floats to a word (src/scene/gpu-splats.ts).
// The chunks are read as words: a record's floats are bitcast from them.
struct SceneLayout {
  chunk_shift: u32,
  sh_words: u32,           // words of higher-band SH per splat
  pad0: u32,
  pad1: u32,
  sh_start: vec4<u32>,     // per chunk: its first SH word (16 * splats in the chunk)
}

@group(0) @binding(1) var<uniform> scene: SceneLayout;
// MAX_CHUNKS (4) chunk slots; unused ones repeat chunk 0 and are never read.
@group(0) @binding(2) var<storage, read> chunk0: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read> chunk1: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read> chunk2: array<vec4<u32>>;
@group(0) @binding(5) var<storage, read> chunk3: array<vec4<u32>>;

// The projector's pipelines are specialised on this (src/render/splat-projector.ts): false for a scene
// in one chunk, where every splat is in chunk0 and the switches below fold
// away, so a scene that fits one buffer costs what it did before chunking;
// true for a split scene.
override chunked: bool;

fn splat_chunk(i: u32) -> u32 {
  if (!chunked) {
    return 0u;
  }
  return i >> scene.chunk_shift;
}

fn splat_local(i: u32) -> u32 {
  if (!chunked) {
    return i;
  }
  return i & ((1u << scene.chunk_shift) - 1u);
}

fn make_splat(w0: vec4<u32>, w1: vec4<u32>, w2: vec4<u32>, w3: vec4<u32>) -> Splat {
  let r0 = bitcast<vec4<f32>>(w0);
  return Splat(r0.xyz, r0.w, bitcast<vec3<f32>>(w1.xyz), 0.0, bitcast<vec3<f32>>(w2.xyz), 0.0, bitcast<vec3<f32>>(w3.xyz), 0.0);
}

fn load_splat(i: u32) -> Splat {
  let at = 4u * splat_local(i);
  switch splat_chunk(i) {
    case 0u: { return make_splat(chunk0[at], chunk0[at + 1u], chunk0[at + 2u], chunk0[at + 3u]); }
    case 1u: { return make_splat(chunk1[at], chunk1[at + 1u], chunk1[at + 2u], chunk1[at + 3u]); }
    case 2u: { return make_splat(chunk2[at], chunk2[at + 1u], chunk2[at + 2u], chunk2[at + 3u]); }
    default: { return make_splat(chunk3[at], chunk3[at + 1u], chunk3[at + 2u], chunk3[at + 3u]); }
  }
}

// Where splat i's higher-band SH starts in its chunk, in words (with the
// chunk: read coefficients with load_sh).
struct ShCursor {
  chunk: u32,
  at: u32,
}

fn sh_cursor(i: u32) -> ShCursor {
  let c = splat_chunk(i);
  return ShCursor(c, scene.sh_start[c] + splat_local(i) * scene.sh_words);
}

fn sh_word(chunk: u32, w: u32) -> u32 {
  switch chunk {
    case 0u: { return chunk0[w >> 2u][w & 3u]; }
    case 1u: { return chunk1[w >> 2u][w & 3u]; }
    case 2u: { return chunk2[w >> 2u][w & 3u]; }
    default: { return chunk3[w >> 2u][w & 3u]; }
  }
}

// Higher-band coefficient k (1-based: 1..15) of the splat at `sh`, RGB:
// its three half floats start at half 3 (k - 1), in two words.
fn load_sh(sh: ShCursor, k: u32) -> vec3<f32> {
  let half = 3u * (k - 1u);
  let w = sh.at + (half >> 1u);
  let a = unpack2x16float(sh_word(sh.chunk, w));
  let b = unpack2x16float(sh_word(sh.chunk, w + 1u));
  return select(vec3<f32>(a.x, a.y, b.x), vec3<f32>(a.y, b.x, b.y), (half & 1u) == 1u);
}

// Near-plane cull distance along the view direction (the reference's 0.2).
const NEAR_CULL: f32 = 0.2;
