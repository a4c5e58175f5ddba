// Experiment: the scan phase with four digits per invocation (vec4 loads)
// and LANES invocations per group of four digits, each taking every LANES-th
// block's sums and a quarter of the block's tiles. Needs RADIX % 4 == 0 and
// WG a multiple of RADIX / 4 (d8 with 256 invocations: 4 lanes).

@group(0) @binding(4) var<storage, read_write> counts_v: array<vec4<u32>>;
@group(0) @binding(5) var<storage, read_write> sums_v: array<vec4<u32>>;

const QUADS: u32 = RADIX / 4u;
const LANES: u32 = WG / QUADS;
const SB: u32 = 16u;
const TB: u32 = 16u;

var<workgroup> lane_total: array<vec4<u32>, WG>;
var<workgroup> lane_before: array<vec4<u32>, WG>;
var<workgroup> digit_starts: array<u32, RADIX>;

fn tile_counts4(p: vec4<u32>) -> vec4<u32> {
  return p & vec4<u32>(0xffffu);
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let block = wid.x;
  let num_tiles = control.num_tiles;
  let block_tiles = control.block_tiles;
  let num_blocks = (num_tiles + block_tiles - 1u) / block_tiles;
  if (block >= num_blocks) {
    return;
  }
  let q = lid % QUADS;
  let lane = lid / QUADS;
  let sums = pass_info.index * SCAN_BLOCKS * QUADS;

  var total = vec4<u32>(0u);
  var before = vec4<u32>(0u);
  for (var b0 = 0u; b0 < num_blocks; b0 += SB * LANES) {
    var got: array<vec4<u32>, SB>;
    for (var j = 0u; j < SB; j++) {
      got[j] = vec4<u32>(0u);
      let b = b0 + j * LANES + lane;
      if (b < num_blocks) {
        got[j] = sums_v[sums + b * QUADS + q];
      }
    }
    for (var j = 0u; j < SB; j++) {
      let b = b0 + j * LANES + lane;
      total += got[j];
      before += select(vec4<u32>(0u), got[j], b < block);
    }
  }
  lane_total[lid] = total;
  lane_before[lid] = before;
  workgroupBarrier();
  var all_before = vec4<u32>(0u);
  if (lane == 0u) {
    var t = vec4<u32>(0u);
    for (var l = 0u; l < LANES; l++) {
      t += lane_total[l * QUADS + q];
      all_before += lane_before[l * QUADS + q];
    }
    digit_starts[4u * q] = t.x;
    digit_starts[4u * q + 1u] = t.y;
    digit_starts[4u * q + 2u] = t.z;
    digit_starts[4u * q + 3u] = t.w;
  }
  workgroupBarrier();
  exclusive_scan_digits(lid, &digit_starts);

  // This lane's share of the block's tiles, and their counts' sum.
  let first = block * block_tiles;
  let end = min(num_tiles, first + block_tiles);
  let share = (block_tiles + LANES - 1u) / LANES;
  let mine = min(end, first + lane * share);
  let mine_end = min(end, mine + share);
  var own = vec4<u32>(0u);
  for (var t0 = mine; t0 < mine_end; t0 += TB) {
    var p: array<vec4<u32>, TB>;
    for (var j = 0u; j < TB; j++) {
      p[j] = vec4<u32>(0u);
      if (t0 + j < mine_end) {
        p[j] = counts_v[(t0 + j) * QUADS + q];
      }
    }
    for (var j = 0u; j < TB; j++) {
      own += tile_counts4(p[j]);
    }
  }
  workgroupBarrier();
  lane_total[lid] = own;
  if (lane == 0u) {
    lane_before[q] = all_before + vec4<u32>(digit_starts[4u * q], digit_starts[4u * q + 1u], digit_starts[4u * q + 2u], digit_starts[4u * q + 3u]);
  }
  workgroupBarrier();
  var carry = lane_before[q];
  for (var l = 0u; l < LANES; l++) {
    if (l < lane) {
      carry += lane_total[l * QUADS + q];
    }
  }
  for (var t0 = mine; t0 < mine_end; t0 += TB) {
    var p: array<vec4<u32>, TB>;
    for (var j = 0u; j < TB; j++) {
      p[j] = vec4<u32>(0u);
      if (t0 + j < mine_end) {
        p[j] = counts_v[(t0 + j) * QUADS + q];
      }
    }
    for (var j = 0u; j < TB; j++) {
      if (t0 + j < mine_end) {
        counts_v[(t0 + j) * QUADS + q] = carry - (p[j] >> vec4<u32>(16u));
        carry += tile_counts4(p[j]);
      }
    }
  }
}
