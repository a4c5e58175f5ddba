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
// (4 vec4 each), then their SH floats from float sh_start[chunk] on.
struct SceneLayout {
  chunk_shift: u32,
  sh_floats: u32,          // higher-band SH floats per splat
  pad0: u32,
  pad1: u32,
  sh_start: vec4<u32>,     // per chunk: first SH float (16 * splats in the chunk)
}

@group(0) @binding(1) var<uniform> scene: SceneLayout;
// MAX_CHUNKS (4) chunk slots; unused ones repeat chunk 0 and are never read.
@group(0) @binding(2) var<storage, read> chunk0: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> chunk1: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> chunk2: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> chunk3: array<vec4<f32>>;

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

fn make_splat(r0: vec4<f32>, r1: vec4<f32>, r2: vec4<f32>, r3: vec4<f32>) -> Splat {
  return Splat(r0.xyz, r0.w, r1.xyz, 0.0, r2.xyz, 0.0, r3.xyz, 0.0);
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

// Where splat i's higher-band SH starts in its chunk, in floats (with the
// chunk: read coefficients with load_sh).
struct ShCursor {
  chunk: u32,
  at: u32,
}

fn sh_cursor(i: u32) -> ShCursor {
  let c = splat_chunk(i);
  return ShCursor(c, scene.sh_start[c] + splat_local(i) * scene.sh_floats);
}

// Higher-band coefficient k (1-based: 1..15) of the splat at `sh`, RGB.
fn load_sh(sh: ShCursor, k: u32) -> vec3<f32> {
  let a = sh.at + 3u * (k - 1u);
  let b = a + 1u;
  let c = a + 2u;
  switch sh.chunk {
    case 0u: { return vec3<f32>(chunk0[a >> 2u][a & 3u], chunk0[b >> 2u][b & 3u], chunk0[c >> 2u][c & 3u]); }
    case 1u: { return vec3<f32>(chunk1[a >> 2u][a & 3u], chunk1[b >> 2u][b & 3u], chunk1[c >> 2u][c & 3u]); }
    case 2u: { return vec3<f32>(chunk2[a >> 2u][a & 3u], chunk2[b >> 2u][b & 3u], chunk2[c >> 2u][c & 3u]); }
    default: { return vec3<f32>(chunk3[a >> 2u][a & 3u], chunk3[b >> 2u][b & 3u], chunk3[c >> 2u][c & 3u]); }
  }
}

// Near-plane cull distance along the view direction (the reference's 0.2).
const NEAR_CULL: f32 = 0.2;
