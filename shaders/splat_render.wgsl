// Splat renderer: one instanced quad per splat, drawn in the sorted order
// (back to front), blended as premultiplied alpha "over". The math follows
// the reference 3D Gaussian Splatting rasterizer: EWA projection of the 3D
// covariance with the 1.3 tan(fov/2) clamp, +0.3 pixel dilation, SH colour
// with the view direction from the camera, clamped at 0 after the sum,
// alpha = min(0.99, opacity * gaussian), fragments under 1/255 dropped.

// The scene's bindings (1..5) are declared in splat_common.wgsl.
@group(0) @binding(0) var<uniform> frame: Frame;
@group(0) @binding(6) var<storage, read> order: array<u32>;

struct VertexOut {
  @builtin(position) position: vec4<f32>,
  @location(0) color: vec3<f32>,
  @location(1) opacity: f32,
  // Offset from the centre in standard deviations along the ellipse's axes.
  @location(2) sigma: vec2<f32>,
}

const SH_C0: f32 = 0.28209479177387814;
const SH_C1: f32 = 0.4886025119029199;
const SH_C2 = array<f32, 5>(1.0925484305920792, -1.0925484305920792, 0.31539156525252005, -1.0925484305920792, 0.5462742152960396);
const SH_C3 = array<f32, 7>(-0.5900435899266435, 2.890611442640554, -0.4570457994644658, 0.3731763325901154, -0.4570457994644658, 1.445305721320277, -0.5900435899266435);

fn splat_color(id: u32, splat: Splat) -> vec3<f32> {
  var c = SH_C0 * splat.dc;
  if (frame.sh_degree > 0u) {
    let sh = sh_cursor(id);
    let d = normalize(splat.position - frame.eye);
    let x = d.x;
    let y = d.y;
    let z = d.z;
    c += SH_C1 * (-y * load_sh(sh, 1u) + z * load_sh(sh, 2u) - x * load_sh(sh, 3u));
    if (frame.sh_degree > 1u) {
      let xx = x * x;
      let yy = y * y;
      let zz = z * z;
      c += SH_C2[0] * x * y * load_sh(sh, 4u)
        + SH_C2[1] * y * z * load_sh(sh, 5u)
        + SH_C2[2] * (2.0 * zz - xx - yy) * load_sh(sh, 6u)
        + SH_C2[3] * x * z * load_sh(sh, 7u)
        + SH_C2[4] * (xx - yy) * load_sh(sh, 8u);
      if (frame.sh_degree > 2u) {
        c += SH_C3[0] * y * (3.0 * xx - yy) * load_sh(sh, 9u)
          + SH_C3[1] * x * y * z * load_sh(sh, 10u)
          + SH_C3[2] * y * (4.0 * zz - xx - yy) * load_sh(sh, 11u)
          + SH_C3[3] * z * (2.0 * zz - 3.0 * xx - 3.0 * yy) * load_sh(sh, 12u)
          + SH_C3[4] * x * (4.0 * zz - xx - yy) * load_sh(sh, 13u)
          + SH_C3[5] * z * (xx - yy) * load_sh(sh, 14u)
          + SH_C3[6] * x * (xx - 3.0 * yy) * load_sh(sh, 15u);
      }
    }
  }
  return max(c + 0.5, vec3<f32>(0.0));
}

// How far past the window, in pixels, a splat's oriented quad may reach
// before it is drawn clipped, and how far the clipped rectangle reaches past
// it: set by src/render/splat-renderer.ts from CLIP_MARGIN_PX and
// CLIP_SLACK_PX (src/render/splat-size-cap.ts, where they are argued).
override clip_margin_px: f32;
override clip_slack_px: f32;

const CULLED = VertexOut(vec4<f32>(0.0, 0.0, 2.0, 1.0), vec3<f32>(0.0), 0.0, vec2<f32>(0.0));

@vertex
fn vs_main(@builtin(vertex_index) corner_index: u32, @builtin(instance_index) instance: u32) -> VertexOut {
  let id = order[instance];
  let splat = load_splat(id);
  let view_pos = (frame.view * vec4<f32>(splat.position, 1.0)).xyz;
  let depth = -view_pos.z;
  if (depth <= NEAR_CULL) {
    return CULLED;
  }

  // Covariance in view space: W Σ Wᵀ with W the view rotation.
  let w = mat3x3<f32>(frame.view[0].xyz, frame.view[1].xyz, frame.view[2].xyz);
  let s2 = frame.splat_scale * frame.splat_scale;
  let sigma = mat3x3<f32>(
    vec3<f32>(splat.cov_a.x, splat.cov_a.y, splat.cov_a.z),
    vec3<f32>(splat.cov_a.y, splat.cov_b.x, splat.cov_b.y),
    vec3<f32>(splat.cov_a.z, splat.cov_b.y, splat.cov_b.z),
  ) * s2;
  let cov_view = w * sigma * transpose(w);

  // Jacobian of the perspective projection to pixels at the (clamped) point.
  let limit = 1.3 * frame.tan_half_fov;
  let tx = clamp(view_pos.x / depth, -limit.x, limit.x) * depth;
  let ty = clamp(view_pos.y / depth, -limit.y, limit.y) * depth;
  let f = frame.focal;
  let j = mat3x2<f32>(
    vec2<f32>(f.x / depth, 0.0),
    vec2<f32>(0.0, f.y / depth),
    vec2<f32>(f.x * tx / (depth * depth), f.y * ty / (depth * depth)),
  );
  let cov2 = j * cov_view * transpose(j);
  let a = cov2[0][0] + 0.3;
  let b = cov2[0][1];
  let c = cov2[1][1] + 0.3;

  // Axes of the screen-space ellipse.
  let mid = 0.5 * (a + c);
  let radius = length(vec2<f32>(0.5 * (a - c), b));
  let lambda1 = mid + radius;
  let lambda2 = max(mid - radius, 0.0);
  var axis = select(vec2<f32>(0.0, 1.0), vec2<f32>(1.0, 0.0), a >= c);
  if (abs(b) > 1e-9 * (a + c)) {
    axis = normalize(vec2<f32>(b, lambda1 - a));
  }
  // The reference draws a splat's pixels where alpha >= 1/255 inside a
  // square of half-size 3 sigma of the major axis: so along the major axis
  // the quad stops at 3 sigma (or earlier where alpha falls below 1/255),
  // along the minor axis only the alpha threshold bounds it.
  let opacity = splat.opacity;
  let threshold = sqrt(max(0.0, 2.0 * log(255.0 * opacity)));
  if (threshold <= 0.0) {
    return CULLED;
  }
  let extent = vec2<f32>(min(3.0, threshold), min(threshold, 3.0 * sqrt(lambda1 / max(lambda2, 1e-12))));
  let corner = vec2<f32>(f32(corner_index & 1u), f32(corner_index >> 1u)) * 2.0 - 1.0;
  let perp = vec2<f32>(-axis.y, axis.x);
  let centre = frame.projection * vec4<f32>(view_pos, 1.0);
  // Where the quad's corner lies, in standard deviations along (axis, perp).
  var corner_sigma = extent * corner;

  // The size cap (src/render/splat-size-cap.ts). Pixels here are measured
  // from the window's middle, y up: the window is |p| <= half_view.
  let half_view = 0.5 * frame.viewport;
  let centre_px = centre.xy / centre.w * half_view;
  let std_px = sqrt(vec2<f32>(lambda1, lambda2));
  let half_px = extent * std_px;
  // Half-size of the quad's axis-aligned bounding box: its corners lie
  // within the window + margin exactly when this box does.
  let box_px = abs(axis) * half_px.x + abs(perp) * half_px.y;
  if (any(abs(centre_px) + box_px > half_view + clip_margin_px)) {
    // Clip the quad along its own axes to the window's extent along them
    // (the window + slack, projected on axis and perp), in sigma units: the
    // rectangle left is part of the quad, holds all of the quad that is on
    // screen, and its corners carry the true sigma, which the rasterizer
    // interpolates linearly (all four vertices share the centre's w). The
    // slack grows with the centre's distance, which f32 knows only to a few
    // 1e-8 of itself (it may be 1e9 px away).
    let reach = half_view + (clip_slack_px + 1e-6 * (abs(centre_px.x) + abs(centre_px.y)));
    if (any(abs(centre_px) - box_px > reach)) {
      return CULLED;  // the whole quad is off screen
    }
    let window_mid = vec2<f32>(dot(-centre_px, axis), dot(-centre_px, perp));
    let window_half = vec2<f32>(dot(abs(axis), reach), dot(abs(perp), reach));
    // The floor keeps the division finite where rounding drove lambda2 to 0
    // (then the quad has no width and the minor offset is 0 anyway).
    let std_floor = max(std_px, vec2<f32>(1e-30));
    let lo = max(-extent, (window_mid - window_half) / std_floor);
    let hi = min(extent, (window_mid + window_half) / std_floor);
    if (any(lo > hi)) {
      return CULLED;  // the window lies beside the quad along one of its axes
    }
    corner_sigma = select(lo, hi, corner > vec2<f32>(0.0));
  }
  // Unclipped, corner_sigma.x * sqrt(lambda1) is corner.x * extent.x * sqrt(lambda1)
  // as before the cap, bit for bit: the normal picture does not change.
  let offset_px = corner_sigma.x * sqrt(lambda1) * axis + corner_sigma.y * sqrt(lambda2) * perp;
  var out: VertexOut;
  out.position = centre + vec4<f32>(offset_px * 2.0 / frame.viewport * centre.w, 0.0, 0.0);
  out.color = splat_color(id, splat);
  out.opacity = opacity;
  out.sigma = corner_sigma;
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
