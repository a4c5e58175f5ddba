// Declarations shared by the three phases of a radix pass. Prepended after
// the prelude (src/sort/radix-layout.ts), which defines the constants
// WG (invocations per workgroup), ITEMS (pairs per invocation), TILE
// (= WG * ITEMS, pairs per workgroup), DIGIT_BITS, RADIX (= 2^DIGIT_BITS).
//
// Bindings are the same for every phase (one layout, one bind group per
// ping-pong direction); a phase leaves out what it does not use.

// Control and Pass are declared in radix_structs.wgsl.

@group(0) @binding(0) var<storage, read> keys_in: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read> values_in: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> keys_out: array<u32>;
@group(0) @binding(3) var<storage, read_write> values_out: array<u32>;
// counts[tile * RADIX + digit]: digit counts per tile (phase 1), then each
// digit's base for the tile (phase 2); see "a tile's digit counts" below.
// Tile-major, so that a tile's counts go out and come back in whole
// sectors. (Digit-major, each tile wrote its 256 counts to 256 sectors:
// 13 of the count phase's 41 µs a pass at 16M pairs on an H200;
// docs/benchmarks.md.)
@group(0) @binding(4) var<storage, read_write> counts: array<u32>;
// block_sums[(pass * SCAN_BLOCKS + block) * RADIX + digit]: how many keys of
// the block's tiles have this digit in that pass, added up by the count
// phase and read by the scan phase (blocks: SCAN_BLOCKS in radix-layout.ts).
// Cleared before each sort.
@group(0) @binding(5) var<storage, read_write> block_sums: array<atomic<u32>>;
@group(0) @binding(6) var<uniform> control: Control;
@group(0) @binding(7) var<uniform> pass_info: Pass;

fn digit_of(key: u32) -> u32 {
  return (key >> pass_info.shift) & pass_info.mask;
}

// The tile a workgroup owns; the tile grid is 2D when there are more tiles
// than one dispatch dimension allows.
fn tile_index(wid: vec3<u32>) -> u32 {
  return flat_group(wid, control.tiles_x);
}

// ---- a tile's digit counts, between phases 1 and 3 --------------------------
// Phase 1 writes counts[tile * RADIX + digit] as the tile's count of the
// digit (low 16 bits) and how many of the tile's pairs have a smaller digit
// (high 16 bits; a tile holds at most 32,768 pairs, radix-layout.ts). Phase
// 2 replaces it with the digit's base for the tile: where the tile's pairs
// of that digit go in the output, less where their run starts in the ranked
// tile. Phase 3 adds a pair's place in the ranked tile to its digit's base,
// with no pass over its ranked tile to find where each run starts. On an
// H100 that pass cost 3-6 % of the scatter at 1M and 4M pairs; the scan
// that replaces it adds 4 % to the count phase at 16M pairs
// (docs/benchmarks.md).
fn pack_tile_count(count: u32, start_in_tile: u32) -> u32 {
  return count | (start_in_tile << 16u);
}

fn tile_count_of(packed: u32) -> u32 {
  return packed & 0xffffu;
}

fn start_in_tile_of(packed: u32) -> u32 {
  return packed >> 16u;
}

// Writes a tile's packed counts and adds them into its block's sums.
// own[i] is the tile's count of digit lid * DIGITS_PER_INVOCATION + i (zero
// past RADIX). Every invocation of the workgroup calls it (it scans the
// counts across the workgroup).
fn write_tile_counts(lid: u32, tile: u32, own: array<u32, DIGITS_PER_INVOCATION>) {
  var total = 0u;
  for (var i = 0u; i < DIGITS_PER_INVOCATION; i++) {
    total += own[i];
  }
  var start = workgroup_exclusive_scan(lid, total).exclusive;
  let sums = (pass_info.index * SCAN_BLOCKS + tile / control.block_tiles) * RADIX;
  for (var i = 0u; i < DIGITS_PER_INVOCATION; i++) {
    let d = lid * DIGITS_PER_INVOCATION + i;
    if (d < RADIX) {
      counts[tile * RADIX + d] = pack_tile_count(own[i], start);
      if (own[i] != 0u) {
        atomicAdd(&block_sums[sums + d], own[i]);
      }
    }
    start += own[i];
  }
}

// ---- the scatter's start of each digit in the output ----------------------
// Each invocation takes DIGITS_PER_INVOCATION consecutive digits (RADIX may
// be smaller or larger than WG).
const DIGITS_PER_INVOCATION: u32 = (RADIX + WG - 1u) / WG;

// counts[tile * RADIX + d] (after the scan: digit d's base for the tile,
// see write_tile_counts) for this invocation's digits. The scatter phases
// call it before loading their keys and use it after ranking: read only
// then, it stalled every tile for a round trip to memory.
fn load_tile_counts(lid: u32, tile: u32) -> array<u32, DIGITS_PER_INVOCATION> {
  var own: array<u32, DIGITS_PER_INVOCATION>;
  for (var i = 0u; i < DIGITS_PER_INVOCATION; i++) {
    let d = lid * DIGITS_PER_INVOCATION + i;
    if (d < RADIX) {
      own[i] = counts[tile * RADIX + d];
    }
  }
  return own;
}

// ---- workgroup-wide exclusive scan of one u32 per invocation -------------
// Two levels over groups of 16 invocations, read four values at a time:
// each invocation adds the values of its group below it, then the totals
// of the groups below its group. Two barriers and 4 + WG / 64 four-word
// reads per invocation; portable (no subgroup operations). The buffers
// need no barrier after the scan: an invocation's next write to either
// comes after a barrier that every read of this scan precedes.
//
// On an H100, whole sort of 32-bit pairs with 16 per invocation, against
// Hillis-Steele adding 16 values per step (2 steps, 3 barriers, 30
// one-word reads): 1M 0.106 → 0.100 ms, 4M 0.304 → 0.284, 16M 0.941 →
// 0.892. A tree of fours (one four-word read and one barrier per level)
// was slower than either. (A subgroup-operation scan measured no faster on
// an H200.)

const SCAN_GROUPS: u32 = WG / 16u;
var<workgroup> scan_values: array<vec4<u32>, WG / 4u>;
var<workgroup> scan_group_totals: array<vec4<u32>, (SCAN_GROUPS + 3u) / 4u>;

struct ScanResult {
  exclusive: u32,
  total: u32,
}

fn workgroup_exclusive_scan(lid: u32, value: u32) -> ScanResult {
  scan_values[lid / 4u][lid % 4u] = value;
  workgroupBarrier();
  let group = lid / 16u;
  let in_group = lid % 16u;
  var below = 0u;
  var group_total = 0u;
  for (var q = 0u; q < 4u; q++) {
    let v = scan_values[4u * group + q];
    for (var c = 0u; c < 4u; c++) {
      below += select(0u, v[c], 4u * q + c < in_group);
      group_total += v[c];
    }
  }
  if (in_group == 0u) {
    scan_group_totals[group / 4u][group % 4u] = group_total;
  }
  workgroupBarrier();
  var total = 0u;
  for (var q = 0u; q < (SCAN_GROUPS + 3u) / 4u; q++) {
    let v = scan_group_totals[q];
    for (var c = 0u; c < 4u; c++) {
      let other = 4u * q + c;
      if (other < SCAN_GROUPS) {
        below += select(0u, v[c], other < group);
        total += v[c];
      }
    }
  }
  return ScanResult(below, total);
}

// Exclusive scan of one value per digit, in place. Each invocation takes
// DIGITS_PER_INVOCATION consecutive digits.
fn exclusive_scan_digits(lid: u32, digits: ptr<workgroup, array<u32, RADIX>>) {
  let first = lid * DIGITS_PER_INVOCATION;
  var own: array<u32, DIGITS_PER_INVOCATION>;
  var sum = 0u;
  for (var i = 0u; i < DIGITS_PER_INVOCATION; i++) {
    own[i] = sum;
    if (first + i < RADIX) {
      sum += (*digits)[first + i];
    }
  }
  let scan = workgroup_exclusive_scan(lid, sum);
  for (var i = 0u; i < DIGITS_PER_INVOCATION; i++) {
    if (first + i < RADIX) {
      (*digits)[first + i] = scan.exclusive + own[i];
    }
  }
  workgroupBarrier();
}
