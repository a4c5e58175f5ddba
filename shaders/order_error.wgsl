// Ordering error of a drawn order, on request: for every pair of adjacent
// entries of the order whose splats were both kept this frame, compares
// their exact f32 view depths (the projector's). Drawn back to front, a
// pair is inverted when the later splat is farther. Counts the pairs and
// the inversions, and finds the largest inversion as a fraction of the
// visible depth range. Inversions beyond one 16-bit key step are counted
// apart: those a 16-bit key over the visible range never makes. One step
// is 2^-16 of the range, plus what f32 resolves at that depth: the key is
// computed in f32 from depths f32 holds to 2^-24 of themselves, so two
// depths a step and a few ulps apart may share a key (4 ulps: 2^-22).

@group(0) @binding(0) var<storage, read> order: array<u32>;
@group(0) @binding(1) var<storage, read> depths: array<f32>;
@group(0) @binding(2) var<storage, read_write> state: VisibleState;
@group(0) @binding(3) var<storage, read_write> error: OrderError;

struct OrderError {
  count: u32,              // entries in the order (copied in before the pass)
  pairs: atomic<u32>,      // adjacent pairs of kept splats
  inverted: atomic<u32>,   // of those, drawn nearer before farther
  beyond: atomic<u32>,     // of those, by more than one 16-bit key step
  largest: atomic<u32>,    // f32 bits: the largest inversion / range
}

const TILE: u32 = 256u;
var<workgroup> tile_pairs: atomic<u32>;
var<workgroup> tile_inverted: atomic<u32>;
var<workgroup> tile_beyond: atomic<u32>;
var<workgroup> tile_largest: atomic<u32>;

@compute @workgroup_size(TILE)
fn main(
  @builtin(workgroup_id) wid: vec3<u32>,
  @builtin(num_workgroups) groups: vec3<u32>,
  @builtin(local_invocation_index) lid: u32,
) {
  if (lid == 0u) {
    atomicStore(&tile_pairs, 0u);
    atomicStore(&tile_inverted, 0u);
    atomicStore(&tile_beyond, 0u);
    atomicStore(&tile_largest, 0u);
  }
  workgroupBarrier();
  let k = flat_invocation(flat_group(wid, groups.x), TILE, lid);
  if (k + 1u < error.count) {
    let a = depths[order[k]];
    let b = depths[order[k + 1u]];
    if (a != CULLED_DEPTH && b != CULLED_DEPTH) {
      atomicAdd(&tile_pairs, 1u);
      if (b > a) {
        atomicAdd(&tile_inverted, 1u);
        let far = bitcast<f32>(atomicLoad(&state.depth_max));
        let range = far - bitcast<f32>(atomicLoad(&state.depth_min));
        let fraction = (b - a) / max(range, 1e-30);
        if (b - a > range / 65536.0 + far / 4194304.0) {
          atomicAdd(&tile_beyond, 1u);
        }
        atomicMax(&tile_largest, bitcast<u32>(fraction));
      }
    }
  }
  workgroupBarrier();
  if (lid == 0u) {
    atomicAdd(&error.pairs, atomicLoad(&tile_pairs));
    atomicAdd(&error.inverted, atomicLoad(&tile_inverted));
    atomicAdd(&error.beyond, atomicLoad(&tile_beyond));
    atomicMax(&error.largest, atomicLoad(&tile_largest));
  }
}
