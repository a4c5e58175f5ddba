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
// counts[digit * num_tiles + tile]: digit counts per tile (phase 1), then
// their exclusive prefix along each digit's row (phase 2): where the tile's
// keys of that digit start among all keys of that digit.
@group(0) @binding(4) var<storage, read_write> counts: array<u32>;
// digit_totals[pass * RADIX + digit]: how many keys have this digit in that
// pass, counted once per sort by radix_histogram.wgsl. (Phase 1 used to add
// them up with one global atomic per (tile, digit); 5,462 tiles adding into
// the same 256 words serialised in the L2 and held the count phase at a
// quarter of memory speed: docs/benchmarks.md.)
@group(0) @binding(5) var<storage, read_write> digit_totals: array<atomic<u32>>;
@group(0) @binding(6) var<uniform> control: Control;
@group(0) @binding(7) var<uniform> pass_info: Pass;

fn digit_of(key: u32) -> u32 {
  return (key >> pass_info.shift) & pass_info.mask;
}

// The tile a workgroup owns; the tile grid is 2D when there are more tiles
// than one dispatch dimension allows.
fn tile_index(wid: vec3<u32>) -> u32 {
  return wid.y * control.tiles_x + wid.x;
}

// ---- the scatter's start of each digit in the output ----------------------
// Each invocation takes DIGITS_PER_INVOCATION consecutive digits (RADIX may
// be smaller or larger than WG).
const DIGITS_PER_INVOCATION: u32 = (RADIX + WG - 1u) / WG;

// counts[d * num_tiles + tile] (after the scan: where the tile's pairs of
// digit d start in the output) for this invocation's digits. The scatter
// phases call it before loading their keys and use it after ranking: read
// only then, it stalled every tile for a round trip to memory.
fn load_tile_counts(lid: u32, tile: u32, num_tiles: u32) -> array<u32, DIGITS_PER_INVOCATION> {
  var own: array<u32, DIGITS_PER_INVOCATION>;
  for (var i = 0u; i < DIGITS_PER_INVOCATION; i++) {
    let d = lid * DIGITS_PER_INVOCATION + i;
    if (d < RADIX) {
      own[i] = counts[d * num_tiles + tile];
    }
  }
  return own;
}

// ---- workgroup-wide exclusive scan of one u32 per invocation -------------
// Hillis–Steele over a double buffer, SCAN_FAN values added per step, so
// log_SCAN_FAN(WG) steps and barriers; portable (no subgroup operations).
// On an H100, 32-bit pairs, the whole sort with fans of 16 / 4 / 2: 4M
// 0.296 / 0.297 / 0.302 ms, 16M 1.016 / 1.036 / 1.023 ms. (A subgroup
// version of the scan measured no faster on an H200: the scans are not
// what bounds the sort.)
const SCAN_FAN: u32 = 16u;
var<workgroup> scan_buf: array<u32, 2 * WG>;

struct ScanResult {
  exclusive: u32,
  total: u32,
}

fn workgroup_exclusive_scan(lid: u32, value: u32) -> ScanResult {
  scan_buf[lid] = value;
  workgroupBarrier();
  var src = 0u;
  for (var stride = 1u; stride < WG; stride *= SCAN_FAN) {
    var sum = scan_buf[src * WG + lid];
    for (var m = 1u; m < SCAN_FAN; m++) {
      let reach = m * stride;
      let inside = lid >= reach;
      sum += select(0u, scan_buf[src * WG + select(0u, lid - reach, inside)], inside);
    }
    src ^= 1u;
    scan_buf[src * WG + lid] = sum;
    workgroupBarrier();
  }
  let inclusive = scan_buf[src * WG + lid];
  let total = scan_buf[src * WG + WG - 1u];
  workgroupBarrier();  // scan_buf may be reused right after
  return ScanResult(inclusive - value, total);
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
