// Per-pixel order, first step: for each splat the order draws, what its
// depth at any pixel needs (src/render/tiles/tile-ray-shapes.ts). Along a
// pixel's ray o + t·d (view space, o the eye, d = (x, y, −1) with x, y the
// pixel's slopes, so t is the view depth), a Gaussian of mean μ and
// covariance Σ peaks where
//
//   t* = dᵀ P μ / (dᵀ P d),   P = Σ⁻¹ up to scale,
//
// the splat's depth at that pixel (StopThePop's definition). P is the
// adjugate of Σ + τ I, normalised to trace 1: no division by a determinant
// that a flat splat drives to 0 (its adjugate is then about n nᵀ, n the
// normal, and t* the ray's hit of its plane), and τ = flattest · tr Σ
// makes no splat thinner than √flattest of its size, so the adjugate's
// differences of products lose at most f32's rounding times 1/flattest
// (PER_PIXEL_FLATTEST in src/render/frame-renderer.ts says why and what
// it measured).
//
// Both products are sums of squares, never differences of large terms:
// P = L Lᵀ (Cholesky, in world space), so with the view's rotation W and
// the camera-space axes k_i = W L_i (L_i the columns of L),
//
//   dᵀ P d = Σ (k_i · d)²,   dᵀ P μ = Σ (k_i · d)(k_i · μ).
//
// A ray almost in a flat splat's plane has k · d near 0; expanded as a
// quadratic form in d, that small result is the difference of terms near
// 1, and f32 rounding that changes with every camera flipped such a splat
// between the front and the back of its neighbours from frame to frame
// (pops along its edge-on line). The factor is worked out in world space
// from the scene's own covariance, the same every frame; only rotations
// and dot products see the camera.
//
// The splat scale scales Σ and leaves t* as it is (and scales the clamp
// below). The raster keeps t* within reach_sigmas standard deviations of
// the splat's depth (σ² = Σzz in view space) of its centre's depth
// (PER_PIXEL_DEPTH_REACH in src/render/frame-renderer.ts says why).
//
// Per splat kept, 4 vec4: (k_0, k_0 · μ), (k_1, k_1 · μ), (k_2, k_2 · μ),
// (centre depth, reach, 0, 0), μ in view space; at the splat's slot among
// the splats the projector kept, and that slot at ray_slots[id].
//
// An invocation per splat of the scene, in id order, for each one the
// projector kept (its depth not CULLED_DEPTH): the scene's records and the
// shapes are read and written in runs, where an invocation per entry of the
// draw order gathered and scattered them by id. The drawn splats are among
// those kept. (H200, 1920×1080, the 7.2M-splat replicated scene: 0.12–0.36
// ms in id order, 0.26–0.90 by the order; docs/benchmarks.md, "The
// per-pixel order: what each queue costs".)
//
// The slot is the one the projector's keys dispatch gave it
// (visible_keys.wgsl: its tile's first slot and its rank among the tile's
// kept splats, the same workgroup width), so the shapes take room for the
// splats the projector keeps at most (its capacity: a world's budget), not
// for every splat of the scene (a world's whole pool, 2.5 times the
// budget); a splat past the capacity is in no order, and gets none.
// Slots: TILE_RAY_SHAPE_SLOTS (after the scene's).

@group(0) @binding(0) var<uniform> frame: Frame;
@group(0) @binding(6) var<storage, read> depths: array<f32>;
@group(0) @binding(7) var<storage, read_write> ray_shapes: array<vec4<f32>>;
// The projector's counters and per-tile first slots (read only; atomic fields need read_write).
@group(0) @binding(8) var<storage, read_write> state: VisibleState;
@group(0) @binding(9) var<storage, read_write> ray_slots: array<u32>;

override reach_sigmas: f32;
override flattest: f32;

// A workgroup per projector tile (PROJECT_TILE splats), as the keys
// dispatch; one whose tile kept nothing returns at once. (Its storage
// buffers are the 8 a stage may have by default: it cannot also read a
// world pool's tile list, tile_list.wgsl.)
@compute @workgroup_size(PROJECT_TILE)
fn main(
  @builtin(workgroup_id) wid: vec3<u32>,
  @builtin(num_workgroups) groups: vec3<u32>,
  @builtin(local_invocation_index) lid: u32,
) {
  let tile = flat_group(wid, groups.x);
  let id = flat_invocation(tile, PROJECT_TILE, lid);
  if (tile_is_empty(tile, lid)) {
    return;
  }
  var kept = false;
  if (id < frame.count) {
    kept = depths[id] != CULLED_DEPTH;
  }
  // Kept splats of the tile up to and including this one, as visible_keys.wgsl counts them.
  let through = workgroup_inclusive_sum(lid, select(0u, 1u, kept));
  if (!kept) {
    return;
  }
  let slot = tile_first_slot(tile) + through - 1u;
  if (slot >= state.visible) {
    return;
  }
  ray_slots[id] = slot;
  let splat = load_splat(id);
  let mean = (frame.view * vec4<f32>(splat.position, 1.0)).xyz;
  let w = mat3x3<f32>(frame.view[0].xyz, frame.view[1].xyz, frame.view[2].xyz);
  // Scaled to a largest variance of 1 first: the adjugate's products stay in range.
  var c = mat3x3<f32>(
    vec3<f32>(splat.cov_a.x, splat.cov_a.y, splat.cov_a.z),
    vec3<f32>(splat.cov_a.y, splat.cov_b.x, splat.cov_b.y),
    vec3<f32>(splat.cov_a.z, splat.cov_b.y, splat.cov_b.z),
  );
  // σ² of the depth: the view's z row through Σ.
  let view_z = vec3<f32>(w[0].z, w[1].z, w[2].z);
  let reach = reach_sigmas * frame.splat_scale * sqrt(max(dot(view_z, c * view_z), 0.0));
  c = c * (1.0 / max(max(c[0][0], c[1][1]), max(c[2][2], 1e-30)));
  // No splat flatter than `flattest`: each axis's variance gains that share of their sum.
  let thicken = flattest * (c[0][0] + c[1][1] + c[2][2]);
  c[0][0] += thicken;
  c[1][1] += thicken;
  c[2][2] += thicken;
  let a00 = c[1][1] * c[2][2] - c[1][2] * c[1][2];
  let a11 = c[0][0] * c[2][2] - c[0][2] * c[0][2];
  let a22 = c[0][0] * c[1][1] - c[0][1] * c[0][1];
  let a01 = c[0][2] * c[1][2] - c[0][1] * c[2][2];
  let a02 = c[0][1] * c[1][2] - c[0][2] * c[1][1];
  let a12 = c[0][1] * c[0][2] - c[0][0] * c[1][2];
  let norm = 1.0 / max(a00 + a11 + a22, 1e-30);
  let p00 = a00 * norm;
  let p11 = a11 * norm;
  let p22 = a22 * norm;
  let p01 = a01 * norm;
  let p02 = a02 * norm;
  let p12 = a12 * norm;
  // P = L Lᵀ. The floor keeps f32 rounding of a pivot's differences from
  // taking it to 0 or below (P's smallest eigenvalue is about flattest²).
  let pivot_floor = 1e-12;
  let l00 = sqrt(max(p00, pivot_floor));
  let l10 = p01 / l00;
  let l20 = p02 / l00;
  let l11 = sqrt(max(p11 - l10 * l10, pivot_floor));
  let l21 = (p12 - l20 * l10) / l11;
  let l22 = sqrt(max(p22 - l20 * l20 - l21 * l21, pivot_floor));
  let k0 = w * vec3<f32>(l00, l10, l20);
  let k1 = w * vec3<f32>(0.0, l11, l21);
  let k2 = w * vec3<f32>(0.0, 0.0, l22);
  let at = 4u * slot;
  ray_shapes[at] = vec4<f32>(k0, dot(k0, mean));
  ray_shapes[at + 1u] = vec4<f32>(k1, dot(k1, mean));
  ray_shapes[at + 2u] = vec4<f32>(k2, dot(k2, mean));
  ray_shapes[at + 3u] = vec4<f32>(-mean.z, reach, 0.0, 0.0);
}
