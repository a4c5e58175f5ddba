// The tile raster's splats at its pixels (tile_raster.wgsl): how a batch
// holds a splat's footprint, the splat's alpha at a pixel, and its blend
// into the pixel. The rules are the reference rasterizer's: alpha =
// min(0.99, opacity * gaussian), nothing under 1/255, and a pixel stops,
// without that splat, once its transmittance would fall under 1e-4. In the
// raster's module, after tile_raster.wgsl.

const ALPHA_MAX: f32 = 0.99;
const ALPHA_MIN: f32 = 1.0 / 255.0;
const T_STOP: f32 = 1e-4;

// Loads the run's splat `k` (its footprint, and with `lists` the blocks it
// reaches) into batch slot `slot`; returns its id.
fn load_footprint(run: Run, k: u32, slot: u32, lists: bool) -> u32 {
  let id = sorted_splats[run.first - k];
  let f = footprint(records[id]);
  batch_centre_mid[slot] = vec4<f32>(f.centre, EXP2_SIGMA * f.mid);
  batch_to_sigma[slot] = EXP2_SIGMA * vec4<f32>(f.to_sigma_x, f.to_sigma_y);
  batch_look[slot] = vec4<f32>(f.color, log2(max(f.opacity, 1e-20)));
  batch_half[slot] = EXP2_SIGMA * f.half;
  if (lists) {
    batch_mask[slot] = block_mask(f, run.tile);
  }
  return id;
}

// The batch holds a footprint's offsets in standard deviations times
// EXP2_SIGMA, and its opacity as log2: then o · exp(-|s|²/2) is
// exp2(log2 o - |s'|²), two fused multiply-adds and an exp2 where it took
// three products more (the raster's time is these chains: ARRIVALS below).
const EXP2_SIGMA: f32 = 0.8493218;  // sqrt(log2(e) / 2)
// The log2 opacity of a batch slot past the run's end: exp2 of it is 0.
const NO_OPACITY: f32 = -1e30;

// Batch splat j's alpha at p, as the quad path's fragment has it; 0 outside
// its quad. Without a branch: the raster asks for ARRIVALS of these at a
// time before it blends any, and straight-line code lets them overlap
// (with a branch the raster drew 1.02–1.09× slower on an H200).
fn alpha_at(j: u32, p: vec2<f32>) -> f32 {
  let centre_mid = batch_centre_mid[j];
  let to_sigma = batch_to_sigma[j];
  let d = p - centre_mid.xy;
  let along = vec2<f32>(dot(d, to_sigma.xy), dot(d, to_sigma.zw));
  let sigma = centre_mid.zw + along;
  let alpha = min(ALPHA_MAX, exp2(fma(-sigma.x, sigma.x, fma(-sigma.y, sigma.y, batch_look[j].w))));
  return select(alpha, 0.0, any(abs(along) > batch_half[j]));
}

// Blends one splat into the pixel, front to back; the pixel stops (without it) once opaque.
// T (1 - alpha) is taken as T - alpha T, the weight the colour is added
// with: a product fewer a splat (the raster in 0.98–0.99× its time, H200).
fn blend(px: ptr<function, Pixel>, alpha: f32, color: vec3<f32>) {
  if ((*px).done || alpha < ALPHA_MIN) {
    return;
  }
  let weight = alpha * (*px).transmittance;
  let next = (*px).transmittance - weight;
  if (next < (*px).stop_below) {
    (*px).done = true;
    atomicAdd(&pixels_done, 1u);
    return;
  }
  (*px).color += color * weight;
  (*px).transmittance = next;
}
