// Splat renderer: one quad (two triangles, six vertices) per entry of the
// draw order (back to front), blended as premultiplied alpha "over".
// Everything per splat was computed once by the projector
// (shaders/splat_project.wgsl); the vertex shader finds its entry and
// corner from the vertex index (no instancing: src/render/splat-renderer.ts
// says why), reads that ProjectedSplat and places the corner. The
// fragment follows the reference 3D Gaussian Splatting rasterizer:
// alpha = min(0.99, opacity * gaussian), fragments under 1/255 dropped.

@group(0) @binding(0) var<uniform> frame: Frame;
@group(0) @binding(1) var<storage, read> records: array<ProjectedSplat>;
@group(0) @binding(2) var<storage, read> order: array<u32>;

struct VertexOut {
  @builtin(position) position: vec4<f32>,
  @location(0) color: vec3<f32>,
  @location(1) opacity: f32,
  // Offset from the centre in standard deviations along the ellipse's axes.
  @location(2) sigma: vec2<f32>,
}

const CULLED = VertexOut(vec4<f32>(0.0, 0.0, 2.0, 1.0), vec3<f32>(0.0), 0.0, vec2<f32>(0.0));

@vertex
fn vs_main(@builtin(vertex_index) vertex: u32) -> VertexOut {
  return quad_corner(vertex);
}

// The quads of a frame drawn over another renderer's picture (src/lib/
// engine.ts): each splat's quad at the depth the frame's projection gives
// its centre, so the caller's depth buffer (read only) hides the splats
// behind its meshes. The projection's own depth range applies (WebGPU's
// 0..1, reversed or not: the pipeline's compare function says which).
@group(0) @binding(3) var<storage, read> depths: array<f32>;

@vertex
fn vs_depth_tested(@builtin(vertex_index) vertex: u32) -> VertexOut {
  var out = quad_corner(vertex);
  if (out.opacity <= 0.0) {
    return out;
  }
  let view_z = -depths[order[vertex / QUAD_VERTICES]];
  let p = frame.projection;
  out.position.z = (p[2].z * view_z + p[3].z) / (p[2].w * view_z + p[3].w);
  return out;
}

fn quad_corner(vertex: u32) -> VertexOut {
  // Corners 0 1 2 and 1 3 2 of the quad (bit 0: x, bit 1: y), two bits each.
  let corner_index = (0xb64u >> (2u * (vertex % QUAD_VERTICES))) & 3u;
  let splat = records[order[vertex / QUAD_VERTICES]];
  let look = vec4<f32>(unpack2x16float(splat.look.x), unpack2x16float(splat.look.y));
  if (look.w <= 0.0) {
    return CULLED;  // culled this frame (an order that names every splat)
  }
  let corner = vec2<f32>(f32(corner_index & 1u), f32(corner_index >> 1u)) * 2.0 - 1.0;
  let px = splat.centre + corner.x * unpack2x16float(splat.edges.x) + corner.y * unpack2x16float(splat.edges.y);
  var out: VertexOut;
  // The quad is flat on screen: every corner at w = 1, so sigma is
  // interpolated linearly in pixels, as it varies over the ellipse.
  out.position = vec4<f32>(px / (0.5 * frame.viewport), 0.5, 1.0);
  out.color = look.rgb;
  out.opacity = look.w;
  out.sigma = select(unpack2x16float(splat.sigma_box.x), unpack2x16float(splat.sigma_box.y), corner > vec2<f32>(0.0));
  return out;
}

@fragment
fn fs_main(in: VertexOut) -> @location(0) vec4<f32> {
  let alpha = min(0.99, in.opacity * exp(-0.5 * dot(in.sigma, in.sigma)));
  if (alpha < 1.0 / 255.0) {
    discard;
  }
  return vec4<f32>(in.color * alpha, alpha);
}

// Reference for benchmarks: the same quads and blending with the cheapest
// fragment, so the raster cost of a GPU can be told apart from the splat
// math (src/render/splat-renderer.ts, variant 'flat').
@fragment
fn fs_flat(in: VertexOut) -> @location(0) vec4<f32> {
  return vec4<f32>(0.004, 0.004, 0.004, 0.004);
}
