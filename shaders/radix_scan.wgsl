// Radix pass, phase 2: turns the tiles' digit counts into each digit's base
// for each tile (radix_common.wgsl), in place. The tiles are split into
// blocks of control.block_tiles consecutive tiles, one workgroup each. A
// workgroup reads every block's sums (block_sums, added up by phase 1):
// over all blocks they give each digit's total, hence where each digit
// starts in the output; over the blocks before its own, how many pairs of
// each digit come before its first tile. Then it writes its own tiles'
// bases. No workgroup waits on another, so the sort needs no
// forward-progress guarantee.
//
// An invocation takes four digits at a time (one vec4 of a row) in one of
// LANES lanes: lane l reads every LANES-th block's sums and walks the l-th
// share of the block's tiles, twice (to add up its counts, then to write
// its bases). On an H200 (16M 32-bit pairs, whole sort) that took 0.729 ms
// against 0.748 with one digit per invocation walking all of the block's
// tiles; holding the share's rows in registers between the two walks
// instead was slower (0.751; docs/benchmarks.md).

// The same buffers as radix_common.wgsl's counts and block_sums, read here
// four words at a time (this phase uses no atomics on the sums).
@group(0) @binding(4) var<storage, read_write> counts4: array<vec4<u32>>;
@group(0) @binding(5) var<storage, read_write> block_sums4: array<vec4<u32>>;

// From the prelude (radix-layout.ts): QUADS (RADIX / 4), SCAN_LANES,
// QUADS_PER_LANE_ROW (invocations side by side in a lane, each taking
// QUADS_PER_INVOCATION quads). Invocations past SCAN_LANES lanes only
// join the barriers and the workgroup scan.
const LANES: u32 = SCAN_LANES;
// Block sums and tile rows each lane loads before using any: with at most
// SCAN_BLOCKS (64) blocks and 64-tile blocks at 16M pairs, one round each.
const SUM_LOADS: u32 = 16u;
const TILE_LOADS: u32 = 16u;

// [lane * QUADS + quad]: a lane's part of the digit totals (then of its
// share of this block's pairs), and of the pairs in blocks before this one.
var<workgroup> lane_totals: array<vec4<u32>, LANES * QUADS>;
var<workgroup> lane_before: array<vec4<u32>, LANES * QUADS>;
// Where each quad's four digits start in the output.
var<workgroup> quad_starts: array<vec4<u32>, QUADS>;

fn counts_of(packed: vec4<u32>) -> vec4<u32> {
  return packed & vec4<u32>(0xffffu);
}

fn starts_in_tile_of(packed: vec4<u32>) -> vec4<u32> {
  return packed >> vec4<u32>(16u);
}

// Adds up (write: false) or replaces with bases (write: true) the rows of
// one quad in tiles [begin, end); returns the counts' sum added to carry.
fn walk_tiles(quad: u32, begin: u32, end: u32, start: vec4<u32>, write: bool) -> vec4<u32> {
  var carry = start;
  for (var t0 = begin; t0 < end; t0 += TILE_LOADS) {
    var rows: array<vec4<u32>, TILE_LOADS>;
    for (var j = 0u; j < TILE_LOADS; j++) {
      rows[j] = vec4<u32>(0u);
      if (t0 + j < end) {
        rows[j] = counts4[(t0 + j) * QUADS + quad];
      }
    }
    for (var j = 0u; j < TILE_LOADS; j++) {
      if (write && t0 + j < end) {
        counts4[(t0 + j) * QUADS + quad] = carry - starts_in_tile_of(rows[j]);
      }
      carry += counts_of(rows[j]);
    }
  }
  return carry;
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
  let lane = lid / QUADS_PER_LANE_ROW;
  let in_lane = lane < LANES;
  let first_quad = (lid % QUADS_PER_LANE_ROW) * QUADS_PER_INVOCATION;
  let sums = pass_info.index * SCAN_BLOCKS * QUADS;

  // This lane's blocks: their sums, and those before this block.
  for (var qi = 0u; qi < QUADS_PER_INVOCATION; qi++) {
    if (!in_lane) {
      break;
    }
    let quad = first_quad + qi;
    var total = vec4<u32>(0u);
    var before = vec4<u32>(0u);
    for (var b0 = 0u; b0 < num_blocks; b0 += SUM_LOADS * LANES) {
      var got: array<vec4<u32>, SUM_LOADS>;
      for (var j = 0u; j < SUM_LOADS; j++) {
        let b = b0 + j * LANES + lane;
        got[j] = vec4<u32>(0u);
        if (b < num_blocks) {
          got[j] = block_sums4[sums + b * QUADS + quad];
        }
      }
      for (var j = 0u; j < SUM_LOADS; j++) {
        total += got[j];
        before += select(vec4<u32>(0u), got[j], b0 + j * LANES + lane < block);
      }
    }
    lane_totals[lane * QUADS + quad] = total;
    lane_before[lane * QUADS + quad] = before;
  }
  workgroupBarrier();

  // Where each digit starts: lane 0 adds up the lanes' totals of its quads,
  // and a workgroup scan (lane 0 is the first QUADS_PER_LANE_ROW
  // invocations, in quad order) gives the quads' starts.
  var quad_totals: array<vec4<u32>, QUADS_PER_INVOCATION>;
  var sum = 0u;
  for (var qi = 0u; qi < QUADS_PER_INVOCATION; qi++) {
    quad_totals[qi] = vec4<u32>(0u);
    if (lane == 0u) {
      for (var l = 0u; l < LANES; l++) {
        quad_totals[qi] += lane_totals[l * QUADS + first_quad + qi];
      }
    }
    let t = quad_totals[qi];
    sum += t.x + t.y + t.z + t.w;
  }
  var start = workgroup_exclusive_scan(lid, sum).exclusive;
  if (lane == 0u) {
    for (var qi = 0u; qi < QUADS_PER_INVOCATION; qi++) {
      let t = quad_totals[qi];
      quad_starts[first_quad + qi] = vec4<u32>(start, start + t.x, start + t.x + t.y, start + t.x + t.y + t.z);
      start += t.x + t.y + t.z + t.w;
    }
  }

  // This lane's share of the block's tiles: first its pairs of each digit
  // (into lane_totals, whose totals lane 0 has read), then their bases.
  let first = block * block_tiles;
  let end = min(num_tiles, first + block_tiles);
  let share = (block_tiles + LANES - 1u) / LANES;
  let mine = min(end, first + lane * share);
  let mine_end = min(end, mine + share);
  // No barrier before these writes: lane 0 read lane_totals before the
  // workgroup scan, whose barriers every invocation has passed since.
  for (var qi = 0u; qi < QUADS_PER_INVOCATION; qi++) {
    if (!in_lane) {
      break;
    }
    let quad = first_quad + qi;
    lane_totals[lane * QUADS + quad] = walk_tiles(quad, mine, mine_end, vec4<u32>(0u), false);
  }
  workgroupBarrier();
  for (var qi = 0u; qi < QUADS_PER_INVOCATION; qi++) {
    if (!in_lane) {
      break;
    }
    let quad = first_quad + qi;
    var carry = quad_starts[quad];
    for (var l = 0u; l < LANES; l++) {
      carry += lane_before[l * QUADS + quad];
      if (l < lane) {
        carry += lane_totals[l * QUADS + quad];
      }
    }
    walk_tiles(quad, mine, mine_end, carry, true);
  }
}
