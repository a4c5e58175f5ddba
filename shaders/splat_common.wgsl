// Declarations shared by the depth-key pass and the splat renderer: the
// per-frame camera (layout written by src/render/frame-uniforms.ts) and the
// splat record (layout in src/scene/gpu-splats.ts).

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
  key_shift: u32,          // 32 - key bits: the depth key keeps its high bits
  sh_floats: u32,          // higher-band SH floats per splat in the scene
  pad0: u32,
  pad1: u32,
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

// Near-plane cull distance along the view direction (the reference's 0.2).
const NEAR_CULL: f32 = 0.2;
