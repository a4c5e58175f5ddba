// Projector: once per splat and frame, culls and projects. A splat is kept
// when it is in front of the near plane (view depth > 0.2, as the
// reference), its opacity can reach 1/255, and its quad overlaps the window
// (the quad's full extent: nothing visible is lost). For a kept splat it
// writes the ProjectedSplat the vertex shader draws (EWA projection of the
// 3D covariance with the reference's 1.3 tan(fov/2) clamp and the frame's
// screen filter, +0.3 px² as the reference unless the scene is anti-aliased;
// the quad, the SH colour for this camera, the opacity) and its exact view
// depth; each tile counts its kept splats and folds their depth range into
// the frame's VisibleState. A culled splat gets depth CULLED_DEPTH (and,
// when the draw order may name it, a record marked culled).
//
// The scene's bindings (1..5) are declared in splat_common.wgsl, the
// record types in splat_records.wgsl; the slots below follow the scene's
// (PROJECT_SLOTS in src/render/frame-layouts.ts).

@group(0) @binding(0) var<uniform> frame: Frame;
@group(0) @binding(6) var<storage, read_write> records: array<ProjectedSplat>;
@group(0) @binding(7) var<storage, read_write> depths: array<f32>;
@group(0) @binding(8) var<storage, read_write> state: VisibleState;
// For a scene of which each frame draws a part (a world's page pool): one
// bit per splat, set for those drawn this frame (GpuSplats.drawnMask);
// after its words, a byte per splat that scales its opacity (255: whole),
// for levels fading in and out (src/scene/splat-pool.ts).
@group(0) @binding(9) var<storage, read> drawn_mask: array<u32>;

// The opacity scale of a drawn splat of a masked scene: its byte after the
// mask's words, of which there are max(4, ⌈count / 32⌉) (drawnMaskWords in
// src/scene/splat-pool.ts).
fn opacity_scale(id: u32) -> f32 {
  let scales = max(4u, (frame.count + 31u) / 32u);
  return f32((drawn_mask[scales + (id >> 2u)] >> (8u * (id & 3u))) & 255u) / 255.0;
}

// After the scales, on a 256-byte boundary, the list of the tiles that hold
// a drawn splat (drawnTilesOffset in src/scene/splat-pool.ts): its word 0,
// then the tiles. A frame that keys its kept splats runs only those tiles.
fn listed_tile(group: u32) -> u32 {
  if (!masked || mark_culled) {
    return group;
  }
  let words = max(4u, (frame.count + 31u) / 32u) + (frame.count + 3u) / 4u;
  return drawn_mask[(words + 63u) / 64u * 64u + 1u + group];
}

// True when the frame draws an order that may name any splat (the CPU sort,
// a frozen order): culled splats then get a record the vertex shader skips.
override mark_culled: bool;
// True when the scene has a drawn mask: splats without their bit are culled
// before they are read.
override masked: bool;
// How far past the window, in pixels, a splat's quad may reach before it is
// clipped, and how far the clipped rectangle reaches past it: from
// CLIP_MARGIN_PX and CLIP_SLACK_PX (src/render/splat-size-cap.ts).
override clip_margin_px: f32;
override clip_slack_px: f32;
// False keeps splats whatever their place on screen (tests compare the
// picture with and without culling).
override frustum_cull: bool = true;

const SH_C0: f32 = 0.28209479177387814;
const SH_C1: f32 = 0.4886025119029199;
const SH_C2 = array<f32, 5>(1.0925484305920792, -1.0925484305920792, 0.31539156525252005, -1.0925484305920792, 0.5462742152960396);
const SH_C3 = array<f32, 7>(-0.5900435899266435, 2.890611442640554, -0.4570457994644658, 0.3731763325901154, -0.4570457994644658, 1.445305721320277, -0.5900435899266435);

// The colour of splat `id` seen from the camera: SH with the view direction
// from the eye, clamped at 0 after the sum (not above 1), as the reference.
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

struct Projection {
  kept: bool,
  depth: f32,
  record: ProjectedSplat,
}

const CULL = Projection(false, CULLED_DEPTH, ProjectedSplat(vec2<f32>(0.0), vec2<u32>(0u), vec2<u32>(0u), vec2<u32>(0u)));

fn project(id: u32) -> Projection {
  if (masked && ((drawn_mask[id >> 5u] >> (id & 31u)) & 1u) == 0u) {
    return CULL;
  }
  let splat = load_splat(id);
  let view_pos = (frame.view * vec4<f32>(splat.position, 1.0)).xyz;
  let depth = -view_pos.z;
  // The opacity test first: the cheapest, and a splat that never reaches
  // 1/255 draws no pixel in the reference. (An anti-aliased filter only
  // lowers the opacity: it is tested again once that is known.)
  var opacity = splat.opacity;
  if (masked) {
    opacity *= opacity_scale(id);
  }
  var threshold = sqrt(max(0.0, 2.0 * log(255.0 * opacity)));
  if (depth <= NEAR_CULL || threshold <= 0.0) {
    return CULL;
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
  // The screen filter (src/scene/anti-aliasing.ts).
  let a = cov2[0][0] + frame.filter_variance;
  let b = cov2[0][1];
  let c = cov2[1][1] + frame.filter_variance;
  if (frame.filter_compensate != 0u) {
    // The opacity keeps the splat's integral through the blur.
    let det_before = max(cov2[0][0] * cov2[1][1] - b * b, 0.0);
    opacity *= sqrt(det_before / (a * c - b * b));
    threshold = sqrt(max(0.0, 2.0 * log(255.0 * opacity)));
    if (threshold <= 0.0) {
      return CULL;
    }
  }

  // Axes of the screen-space ellipse.
  let mid = 0.5 * (a + c);
  let radius = length(vec2<f32>(0.5 * (a - c), b));
  let lambda1 = mid + radius;
  let lambda2 = max(mid - radius, 0.0);
  var axis = select(vec2<f32>(0.0, 1.0), vec2<f32>(1.0, 0.0), a >= c);
  if (abs(b) > 1e-9 * (a + c)) {
    axis = normalize(vec2<f32>(b, lambda1 - a));
  }
  let perp = vec2<f32>(-axis.y, axis.x);
  // The reference draws a splat's pixels where alpha >= 1/255 inside a
  // square of half-size 3 sigma of the major axis: so along the major axis
  // the quad stops at 3 sigma (or earlier where alpha falls below 1/255),
  // along the minor axis only the alpha threshold bounds it.
  let extent = vec2<f32>(min(3.0, threshold), min(threshold, 3.0 * sqrt(lambda1 / max(lambda2, 1e-12))));

  // Pixels from the window's middle, y up: the window is |p| <= half_view.
  let clip = frame.projection * vec4<f32>(view_pos, 1.0);
  let half_view = 0.5 * frame.viewport;
  let centre_px = clip.xy / clip.w * half_view;
  let std_px = sqrt(vec2<f32>(lambda1, lambda2));
  let half_px = extent * std_px;

  // Cull by the quad's full extent, exactly: the quad and the window (+1 px
  // for the rasterizer's rounding) are rectangles, and they overlap unless
  // one of the four axes (the window's and the quad's) separates them.
  let window = half_view + 1.0;
  let box_px = abs(axis) * half_px.x + abs(perp) * half_px.y;
  let window_mid = vec2<f32>(dot(-centre_px, axis), dot(-centre_px, perp));
  let window_half = vec2<f32>(dot(abs(axis), window), dot(abs(perp), window));
  if (frustum_cull && (any(abs(centre_px) - box_px > window) || any(abs(window_mid) - window_half > half_px))) {
    return CULL;
  }

  var lo = -extent;
  var hi = extent;
  var centre = centre_px;
  // The size cap (src/render/splat-size-cap.ts): a quad reaching more than
  // the margin past the window is cut, along its own axes, to the window's
  // extent along them plus the slack, so its corners carry the true sigma.
  if (any(abs(centre_px) + box_px > half_view + clip_margin_px)) {
    // The slack grows with the centre's distance, which f32 knows only to a
    // few 1e-8 of itself (it may be 1e9 px away), and with the window's
    // size, which covers the f16 rounding of the cut quad's edges (2^-11
    // of their length, under 1e-3 of the window's half-perimeter).
    let slack = clip_slack_px + 1e-6 * (abs(centre_px.x) + abs(centre_px.y)) + 2e-3 * (half_view.x + half_view.y);
    let reach = half_view + slack;
    let cut_half = vec2<f32>(dot(abs(axis), reach), dot(abs(perp), reach));
    // The floor keeps the division finite where rounding drove lambda2 to 0
    // (then the quad has no width and the minor offset is 0 anyway).
    let std_floor = max(std_px, vec2<f32>(1e-30));
    lo = max(-extent, (window_mid - cut_half) / std_floor);
    hi = min(extent, (window_mid + cut_half) / std_floor);
    if (any(lo > hi)) {
      return CULL;  // the window lies beside the quad along one of its axes
    }
    // Centred on the cut rectangle, so the f16 edges are short.
    let middle = 0.5 * (lo + hi);
    centre = centre_px + middle.x * std_px.x * axis + middle.y * std_px.y * perp;
  }
  let half_sigma = 0.5 * (hi - lo);
  let edge_x = half_sigma.x * std_px.x * axis;
  let edge_y = half_sigma.y * std_px.y * perp;
  let color = splat_color(id, splat);
  var out: Projection;
  out.kept = true;
  out.depth = depth;
  out.record = ProjectedSplat(
    centre,
    vec2<u32>(pack2x16float(edge_x), pack2x16float(edge_y)),
    vec2<u32>(pack2x16float(lo), pack2x16float(hi)),
    vec2<u32>(pack2x16float(color.rg), pack2x16float(vec2<f32>(color.b, opacity))),
  );
  return out;
}

var<workgroup> tile_kept: atomic<u32>;
var<workgroup> tile_min: atomic<u32>;
var<workgroup> tile_max: atomic<u32>;

@compute @workgroup_size(PROJECT_TILE)
fn main(
  @builtin(workgroup_id) wid: vec3<u32>,
  @builtin(num_workgroups) groups: vec3<u32>,
  @builtin(local_invocation_index) lid: u32,
) {
  let tile = listed_tile(flat_group(wid, groups.x));
  let id = flat_invocation(tile, PROJECT_TILE, lid);
  if (lid == 0u) {
    atomicStore(&tile_kept, 0u);
    atomicStore(&tile_min, 0x7f800000u);  // +inf
    atomicStore(&tile_max, 0u);
  }
  workgroupBarrier();
  if (id < frame.count) {
    let p = project(id);
    depths[id] = p.depth;
    if (p.kept) {
      records[id] = p.record;
      atomicAdd(&tile_kept, 1u);
      atomicMin(&tile_min, bitcast<u32>(p.depth));
      atomicMax(&tile_max, bitcast<u32>(p.depth));
    } else if (mark_culled) {
      records[id] = CULL.record;
    }
  }
  workgroupBarrier();
  let tiles = (frame.count + PROJECT_TILE - 1u) / PROJECT_TILE;
  if (lid == 0u && tile < tiles) {
    let kept = atomicLoad(&tile_kept);
    state.tiles[tile] = kept;
    if (kept > 0u) {
      atomicMin(&state.depth_min, atomicLoad(&tile_min));
      atomicMax(&state.depth_max, atomicLoad(&tile_max));
    }
  }
}
