// Radix pass, phase 3, ranked with subgroup operations: each workgroup
// ranks the pairs of its tile by digit, stably, and writes them to their
// places in the other ping-pong buffer. Same inputs and outputs as
// radix_scatter.wgsl; chosen when the device has subgroups and this shader
// passes the sorter's self-test (src/sort/subgroup-check.ts).
//
// Ranking (a warp-level multisplit): every subgroup owns a run of
// subgroup_size * ITEMS consecutive tile positions and walks it in ITEMS
// rounds of one pair per lane. In a round, DIGIT_BITS ballots find the lanes
// holding the same digit; the lowest of them adds their number to the
// subgroup's own digit histogram and hands the old value to the others,
// which add their place among those lanes. After the rounds, a scan over
// (subgroup, digit) turns the histograms into the tile-wide start of each
// subgroup's pairs of each digit. No workgroup barrier inside the rounds:
// a subgroup's rounds depend only on its own lanes.
//
// Prelude constants used here: MAX_SUBGROUPS (workgroup size / the smallest
// subgroup size) and the LaneMask helpers (ballot, lane_count, lanes_below,
// lowest_lane), one u32 or vec4 wide as the widest subgroup needs.

// subgroup_hist[s * RADIX + d]: pairs of digit d that subgroup s has ranked,
// then (after the scan) where its first pair of digit d goes in the tile.
var<workgroup> subgroup_hist: array<atomic<u32>, MAX_SUBGROUPS * RADIX>;
// Hands out subgroup numbers: lanes need not map to local_invocation_index
// in any particular way, so each subgroup takes the next number.
var<workgroup> next_subgroup: atomic<u32>;
// The tile, staged in ranked order (keys, then values).
var<workgroup> staged: array<u32, TILE>;
// Per digit: the tile's count, then its first place in the tile.
var<workgroup> tile_first: array<u32, RADIX>;
// Per digit: output place minus place in the tile for this tile's pairs.
var<workgroup> digit_base: array<u32, RADIX>;

@compute @workgroup_size(WG)
fn main(
  @builtin(workgroup_id) wid: vec3<u32>,
  @builtin(local_invocation_index) lid: u32,
  @builtin(subgroup_invocation_id) lane: u32,
  @builtin(subgroup_size) lanes: u32,
) {
  let tile = tile_index(wid);
  if (tile >= control.num_tiles) {
    return;
  }
  // subgroup_hist and next_subgroup start at zero: WebGPU zero-fills
  // workgroup memory when a workgroup starts (as the count phase relies on).

  var taken = 0u;
  if (subgroupElect()) {
    taken = atomicAdd(&next_subgroup, 1u);
  }
  let subgroup = subgroupBroadcastFirst(taken);

  let n = control.n;
  let tile_start = tile * TILE;
  let run_start = subgroup * lanes * ITEMS;

  // Where this tile's pairs of each digit start in the output, fetched
  // with the keys so that the latencies overlap (read after the ranking,
  // it stalled every tile for a round trip to memory).
  let tile_counts = load_tile_counts(lid, tile);

  // Positions past n get the largest key: they rank after every real pair
  // (last in the tile, largest digit) and are never written.
  var keys: array<u32, ITEMS>;
  for (var k = 0u; k < ITEMS; k++) {
    let at = tile_start + run_start + k * lanes + lane;
    var key = 0xffffffffu;
    if (at < n) {
      key = keys_in[at / 4u][at % 4u];
    }
    keys[k] = key;
  }
  // The values too, now: their latency then overlaps the ranking.
  var values: array<u32, ITEMS>;
  for (var k = 0u; k < ITEMS; k++) {
    let at = tile_start + run_start + k * lanes + lane;
    if (at < n) {
      values[k] = values_in[at / 4u][at % 4u];
    }
  }

  // ranks[k]: first the digit (low 8 bits) and the pair's place among the
  // subgroup's pairs of that digit (above), then its place in the tile.
  var ranks: array<u32, ITEMS>;
  let below = lanes_below(lane);
  let hist_row = subgroup * RADIX;
  for (var k = 0u; k < ITEMS; k++) {
    let d = digit_of(keys[k]);
    var peers = ballot(true);
    for (var b = 0u; b < DIGIT_BITS; b++) {
      let bit_set = ((d >> b) & 1u) != 0u;
      let votes = ballot(bit_set);
      peers &= select(~votes, votes, bit_set);
    }
    let leader = lowest_lane(peers);
    var before = 0u;
    if (lane == leader) {
      before = atomicAdd(&subgroup_hist[hist_row + d], lane_count(peers));
    }
    before = subgroupShuffle(before, leader);
    ranks[k] = ((before + lane_count(peers & below)) << 8u) | d;
  }
  workgroupBarrier();

  // Exclusive scan over subgroups per digit (the tile's count of each digit
  // on the way), then over digits.
  for (var d = lid; d < RADIX; d += WG) {
    var sum = 0u;
    for (var s = 0u; s < MAX_SUBGROUPS; s++) {
      sum += atomicExchange(&subgroup_hist[s * RADIX + d], sum);
    }
    tile_first[d] = sum;
  }
  workgroupBarrier();
  exclusive_scan_digits(lid, &tile_first);
  for (var i = 0u; i < DIGITS_PER_INVOCATION; i++) {
    let d = lid * DIGITS_PER_INVOCATION + i;
    if (d < RADIX) {
      let first = tile_first[d];
      for (var s = 0u; s < MAX_SUBGROUPS; s++) {
        atomicAdd(&subgroup_hist[s * RADIX + d], first);
      }
      digit_base[d] = tile_counts[i];
    }
  }
  workgroupBarrier();

  // Keys: stage in ranked order, then write out in tile order, so that the
  // global writes of a digit's run are consecutive addresses.
  for (var k = 0u; k < ITEMS; k++) {
    let d = ranks[k] & 0xffu;
    ranks[k] = atomicLoad(&subgroup_hist[hist_row + d]) + (ranks[k] >> 8u);
    staged[ranks[k]] = keys[k];
  }
  workgroupBarrier();
  let valid = min(TILE, n - tile_start);
  var places: array<u32, ITEMS>;
  for (var k = 0u; k < ITEMS; k++) {
    let j = k * WG + lid;
    let key = staged[j];
    places[k] = digit_base[digit_of(key)] + j;
    if (j < valid) {
      keys_out[places[k]] = key;
    }
  }

  // Values follow the same ranks.
  workgroupBarrier();
  for (var k = 0u; k < ITEMS; k++) {
    staged[ranks[k]] = values[k];
  }
  workgroupBarrier();
  for (var k = 0u; k < ITEMS; k++) {
    let j = k * WG + lid;
    if (j < valid) {
      values_out[places[k]] = staged[j];
    }
  }
}
