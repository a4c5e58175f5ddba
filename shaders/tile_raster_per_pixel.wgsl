// The tile raster's per-pixel order, in parts put into tile_raster.wgsl's
// main (src/gpu/wgsl-splice.ts): each pixel's own order, by the splat's
// depth along the pixel's ray (shaders/tile_ray_shape.wgsl). A pixel keeps
// the PIXEL_QUEUE nearest splats it has met and not yet blended, sorted by
// that depth; once full, each arrival pushes out the nearest of them (or
// itself), which is blended; after the run the queue is blended in order.
// Exact wherever no splat at a pixel is more than PIXEL_QUEUE places from
// its centre-depth place among the splats that reach that pixel. Its loops
// over the queue are unrolled in the source (src/gpu/wgsl-unroll.ts), so
// every index into the queue is a constant and the queue, main's own
// locals, stays in registers.

const PIXEL_QUEUE: u32 = 16u;
// Alphas a pixel works out ahead (tile_raster.wgsl's main): set when the
// module is made (rasterArrivals, src/render/tiles/tile-raster.ts).
const ARRIVALS: u32 = 1u;
// Where the pixels walk block lists, they walk their list's bits, splat
// by splat: an arrival is a queue insertion, and walked by groups (as the
// centre-depth order is) the replicated scene's raster took 1.11–1.13× its
// time (H200, 1920×1080; docs/benchmarks.md, "Block lists walked by groups").
const LISTS_BY_GROUPS: bool = false;

// The batch's ray shapes (tile_ray_shape.wgsl's four vec4).
var<workgroup> batch_axis_0: array<vec4<f32>, raster_batch>;
var<workgroup> batch_axis_1: array<vec4<f32>, raster_batch>;
var<workgroup> batch_axis_2: array<vec4<f32>, raster_batch>;
var<workgroup> batch_depth_reach: array<vec2<f32>, raster_batch>;

// blend with the queue's packed look: f16 pairs (r, g), (b, alpha).
fn blend_packed(px: ptr<function, Pixel>, rg: u32, ba: u32) {
  let b_alpha = unpack2x16float(ba);
  blend(px, b_alpha.y, vec3<f32>(unpack2x16float(rg), b_alpha.x));
}

// {{start}}
// The pixel's ray, d = (slope, −1) in view space: the projection's
// x_ndc = P00·x/−z − P20 inverted (P20, P21: its lens shift).
let ndc = px.p / (0.5 * frame.viewport);
let slope = (ndc + vec2<f32>(frame.projection[2][0], frame.projection[2][1])) / vec2<f32>(frame.projection[0][0], frame.projection[1][1]);
let ray = vec3<f32>(slope, -1.0);

// The queue, nearest last: depth, then the splat's look as two f16
// pairs: (r, g) and (b, alpha). The colour is f16 in the projector's
// records already; alpha in f16 is within 2^-11 of its f32 (a tenth of
// an 8-bit level). Three words a place, not four: the insertion below
// moves a place's words on every arrival, and the places are registers
// (measured on the H100: docs/benchmarks.md, per-pixel raster).
// Empty places hold depth −1e38 and alpha 0, so they sit at the end and
// push out nothing.
var queue_depth: array<f32, PIXEL_QUEUE>;
var queue_rg: array<u32, PIXEL_QUEUE>;
var queue_ba: array<u32, PIXEL_QUEUE>;
for (var i = 0u; i < PIXEL_QUEUE; i++) {
  queue_depth[i] = -1e38;
  queue_rg[i] = 0u;
  queue_ba[i] = 0u;
}

// {{load}}
batch_axis_0[lid] = ray_shapes[4u * id];
batch_axis_1[lid] = ray_shapes[4u * id + 1u];
batch_axis_2[lid] = ray_shapes[4u * id + 2u];
batch_depth_reach[lid] = ray_shapes[4u * id + 3u].xy;

// {{arrive}}
// Nothing where alpha is under 1/255 (no arrival at all past the batch's end).
if (alpha >= ALPHA_MIN) {
  // t* = Σ (k_i · d)(k_i · μ) / Σ (k_i · d)², within its reach of its
  // centre's depth (tile_ray_shape.wgsl); the sum of squares is at
  // least PER_PIXEL_FLATTEST · |d|².
  let k0 = batch_axis_0[j];
  let k1 = batch_axis_1[j];
  let k2 = batch_axis_2[j];
  let along = vec3<f32>(dot(k0.xyz, ray), dot(k1.xyz, ray), dot(k2.xyz, ray));
  let depth_reach = batch_depth_reach[j];
  let peak = dot(along, vec3<f32>(k0.w, k1.w, k2.w)) / max(dot(along, along), 1e-30);
  var carry_depth = clamp(peak, depth_reach.x - depth_reach.y, depth_reach.x + depth_reach.y);
  let look = batch_look[j].rgb;
  var carry_rg = pack2x16float(look.rg);
  var carry_ba = pack2x16float(vec2<f32>(look.b, alpha));
  // One pass of insertion: each place keeps the farther of itself and
  // the carry; what leaves the last place is the nearest of all.
  for (var i = 0u; i < PIXEL_QUEUE; i++) {
    let depth = queue_depth[i];
    let swap = carry_depth > depth;
    queue_depth[i] = max(depth, carry_depth);
    carry_depth = min(depth, carry_depth);
    let rg = queue_rg[i];
    let ba = queue_ba[i];
    queue_rg[i] = select(rg, carry_rg, swap);
    queue_ba[i] = select(ba, carry_ba, swap);
    carry_rg = select(carry_rg, rg, swap);
    carry_ba = select(carry_ba, ba, swap);
  }
  blend_packed(&px, carry_rg, carry_ba);
}

// {{finish}}
// The rest, nearest first (empty places have alpha 0: blend skips them).
for (var i = 0u; i < PIXEL_QUEUE; i++) {
  let at = PIXEL_QUEUE - 1u - i;
  blend_packed(&px, queue_rg[at], queue_ba[at]);
}
