// The tile raster's per-pixel order, in parts put into tile_raster.wgsl's
// main (src/gpu/wgsl-splice.ts): each pixel's own order, by the splat's
// depth along the pixel's ray (shaders/tile_ray_shape.wgsl). A pixel keeps
// the PIXEL_QUEUE farthest splats it has met and not yet blended, sorted by
// that depth; once full, each arrival pushes out the nearest of them (or
// itself), which is blended; after the run the queue is blended in order.
// Exact wherever no splat at a pixel is more than PIXEL_QUEUE places from
// its centre-depth place among the splats that reach that pixel. Its loops
// over the queue are unrolled in the source (src/gpu/wgsl-unroll.ts), so
// every index into the queue is a constant and the queue, main's own
// locals, stays in registers.
//
// Only keys move through the queue: one word a place, the splat's depth
// above the slot (slot_look) its look is kept in, written once when it
// arrives and read once when it leaves. On an H200 at 1920×1080 queue 16
// drew the frame in 0.66–0.83× the time of places that each moved a depth
// and a look (three words), 9k-outside in 1.05–1.07× (a slot indexed at
// run time lives in the invocation's memory, not in registers); queues of
// 4 and 8 in 0.95–1.08× (docs/benchmarks.md, "The per-pixel queue moves
// keys").

const PIXEL_QUEUE: u32 = 16u;
// Bits of a key that name its slot: PIXEL_QUEUE + 1 slots, so queues of
// at most 31 (MAX_PIXEL_QUEUE in src/render/tiles/tile-raster.ts).
const SLOT_BITS: u32 = 5u;
const SLOT_MASK: u32 = (1u << SLOT_BITS) - 1u;
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

// A depth as a key above the slot bits: a positive f32's bits order as
// its value, and depths in [2^-20, 2^20) span 40 binades of 2^23 steps;
// less 2 mantissa bits, they fit the 27 bits above SLOT_BITS 5 (the depth
// to 2^-21 of itself). The f32 with its own low bits given to the slot
// (2^-18) popped 3 pixels where this pops 1 (the 150k scene looking down,
// 30 frames at 256×144; the queue of three words a place: 0). 0 is left
// for the empty places, which are the nearest.
const KEY_LOW: u32 = 0x35800000u;  // the bits of 2^-20
fn depth_key(depth: f32) -> u32 {
  let bits = bitcast<u32>(clamp(depth, 9.5367431640625e-7, 1048575.9));
  return (1u + ((bits - KEY_LOW) >> 2u)) << SLOT_BITS;
}

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

// The queue, nearest last: keys (depth_key | slot). The places start
// empty, each with a slot of its own whose look has alpha 0, so they sit
// at the near end and push out nothing; the last slot is free.
var queue_key: array<u32, PIXEL_QUEUE>;
var slot_look: array<vec2<u32>, PIXEL_QUEUE + 1u>;
for (var i = 0u; i < PIXEL_QUEUE; i++) {
  queue_key[i] = i;
  slot_look[i] = vec2<u32>(0u);
}
slot_look[PIXEL_QUEUE] = vec2<u32>(0u);
var free_slot = PIXEL_QUEUE;

// {{load}}
// The splat's shape is at its slot among the splats kept (tile_ray_shape.wgsl).
let shape = 4u * ray_slots[id];
batch_axis_0[lid] = ray_shapes[shape];
batch_axis_1[lid] = ray_shapes[shape + 1u];
batch_axis_2[lid] = ray_shapes[shape + 2u];
batch_depth_reach[lid] = ray_shapes[shape + 3u].xy;

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
  let depth = clamp(peak, depth_reach.x - depth_reach.y, depth_reach.x + depth_reach.y);
  // The look as f16 pairs (r, g), (b, alpha): the colour is f16 in the
  // projector's records already; alpha in f16 is within 2^-11 of its f32
  // (a tenth of an 8-bit level).
  let look = batch_look[j].rgb;
  slot_look[free_slot] = vec2<u32>(pack2x16float(look.rg), pack2x16float(vec2<f32>(look.b, alpha)));
  // One arrival in, the nearest of all out. The places are sorted
  // farthest first, so place p becomes the arrival clamped between its own
  // key and the next farther place's: every place is worked out from the
  // keys before the arrival, none waits on another: 0.97–1.00× the frame
  // of a carry passed from place to place, a chain of 16 dependent steps
  // (H200, docs/benchmarks.md, "What the per-pixel order's frame is made
  // of"). The nearest leaves, and its slot is the free one.
  let arrival = depth_key(depth) | free_slot;
  let nearest = min(arrival, queue_key[PIXEL_QUEUE - 1u]);
  for (var i = 0u; i < PIXEL_QUEUE - 1u; i++) {
    queue_key[PIXEL_QUEUE - 1u - i] = min(max(arrival, queue_key[PIXEL_QUEUE - 1u - i]), queue_key[PIXEL_QUEUE - 2u - i]);
  }
  queue_key[0] = max(arrival, queue_key[0]);
  free_slot = nearest & SLOT_MASK;
  let out = slot_look[free_slot];
  blend_packed(&px, out.x, out.y);
}

// {{finish}}
// The rest, nearest first (the empty places' looks have alpha 0: blend skips them).
for (var i = 0u; i < PIXEL_QUEUE; i++) {
  let out = slot_look[queue_key[PIXEL_QUEUE - 1u - i] & SLOT_MASK];
  blend_packed(&px, out.x, out.y);
}
