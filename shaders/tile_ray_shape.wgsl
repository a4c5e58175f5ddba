// Per-pixel order, first step: for each splat the order draws, what its
// depth at any pixel needs (src/render/tiles/tile-ray-shapes.ts). Along a
// pixel's ray o + t·d (view space, o the eye, d = (x, y, −1) with x, y the
// pixel's slopes, so t is the view depth), a Gaussian of mean μ and
// covariance Σ peaks where
//
//   t* = dᵀ Σ⁻¹ μ / (dᵀ Σ⁻¹ d),
//
// the splat's depth at that pixel (StopThePop's definition). t* does not
// change when Σ⁻¹ is scaled, so the adjugate of Σ (normalised to trace 1)
// stands for it: no division by a determinant that a flat splat drives to
// 0 (its adjugate is then n nᵀ, n the normal, and t* the ray's hit of its
// plane), and no f32 overflow for a thin one. The splat scale scales Σ and
// leaves t* as it is (and scales the clamp below).
//
// The raster keeps t* within reach_sigmas standard deviations of the
// splat's depth (σ² = Σzz in view space) of its centre's depth
// (PER_PIXEL_DEPTH_REACH in src/render/frame-renderer.ts says why).
//
// Per splat id, 3 vec4: (A00, A01, A11, A02), (A12, A22, u.x, u.y),
// (u.z, centre depth, reach, 0) with A the normalised adjugate and
// u = A μ.
// Slots: TILE_RAY_SHAPE_SLOTS (after the scene's).

@group(0) @binding(0) var<uniform> frame: Frame;
@group(0) @binding(6) var<storage, read> state: TileState;
@group(0) @binding(7) var<storage, read> order: array<u32>;
@group(0) @binding(8) var<storage, read_write> ray_shapes: array<vec4<f32>>;

override reach_sigmas: f32;

@compute @workgroup_size(BIN_GROUP)
fn main(
  @builtin(workgroup_id) wid: vec3<u32>,
  @builtin(num_workgroups) groups: vec3<u32>,
  @builtin(local_invocation_index) lid: u32,
) {
  let i = (wid.y * groups.x + wid.x) * BIN_GROUP + lid;
  if (i >= state.entries) {
    return;
  }
  let id = order[i];
  let splat = load_splat(id);
  let mean = (frame.view * vec4<f32>(splat.position, 1.0)).xyz;
  let w = mat3x3<f32>(frame.view[0].xyz, frame.view[1].xyz, frame.view[2].xyz);
  let sigma = mat3x3<f32>(
    vec3<f32>(splat.cov_a.x, splat.cov_a.y, splat.cov_a.z),
    vec3<f32>(splat.cov_a.y, splat.cov_b.x, splat.cov_b.y),
    vec3<f32>(splat.cov_a.z, splat.cov_b.y, splat.cov_b.z),
  );
  // Scaled to a largest variance of 1 first: the adjugate's products stay in range.
  var c = w * sigma * transpose(w);
  let reach = reach_sigmas * frame.splat_scale * sqrt(max(c[2][2], 0.0));
  c = c * (1.0 / max(max(c[0][0], c[1][1]), max(c[2][2], 1e-30)));
  let a00 = c[1][1] * c[2][2] - c[1][2] * c[1][2];
  let a11 = c[0][0] * c[2][2] - c[0][2] * c[0][2];
  let a22 = c[0][0] * c[1][1] - c[0][1] * c[0][1];
  let a01 = c[0][2] * c[1][2] - c[0][1] * c[2][2];
  let a02 = c[0][1] * c[1][2] - c[0][2] * c[1][1];
  let a12 = c[0][1] * c[0][2] - c[0][0] * c[1][2];
  let norm = 1.0 / max(a00 + a11 + a22, 1e-30);
  let r0 = vec3<f32>(a00, a01, a02) * norm;
  let r1 = vec3<f32>(a01, a11, a12) * norm;
  let r2 = vec3<f32>(a02, a12, a22) * norm;
  let u = vec3<f32>(dot(r0, mean), dot(r1, mean), dot(r2, mean));
  ray_shapes[3u * id] = vec4<f32>(r0.x, r0.y, r1.y, r0.z);
  ray_shapes[3u * id + 1u] = vec4<f32>(r1.z, r2.z, u.x, u.y);
  ray_shapes[3u * id + 2u] = vec4<f32>(u.z, -mean.z, reach, 0.0);
}
