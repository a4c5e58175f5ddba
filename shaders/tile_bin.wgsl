// Tile binning: turns the frame's draw order (back to front) into
// (tile, splat) pairs in that same order, for the pair sort. Every tile of
// a kept entry's quad box is a pair slot of its own, the entry's slots one
// after another in the order's order, and a tile its splat does not touch
// is written as NO_TILE (tile_state.wgsl), which the sort puts after every
// tile: so nothing is counted before it is written (box slots: BIN_STEPS
// in src/render/tiles/tile-binning.ts has the figures). An entry whose box
// holds at most direct_tiles tiles (most small splats) is binned by its own
// thread, which tests each tile of its box. A larger box is spread over
// (splat, tile) candidates, a thread per tile of the box: a splat near the
// camera covers thousands of tiles, and a thread per splat left the GPU
// idle behind a few such threads (9k scene, 1920×1080, close: 6.3 ms
// binning on an H200 with a thread per splat). A candidate thread first
// finds its entry by searches over the scanned boxes, a chain of dependent
// reads that a small splat's own thread does without.
// Three dispatches, so no workgroup waits on another:
//
//   count_boxes (a workgroup per BIN_GROUP entries of the order): each
//     entry's box, its candidates (the larger boxes' tiles) and its first
//     candidate within its group, with direct entries its first slot
//     within its group; the group's totals of boxes and of candidates;
//   scan_boxes (one workgroup, tile_bin_budget.wgsl): the nearest entries
//     whose boxes fit the budget, each kept group's first candidate (and
//     first slot), the kept candidates, the slots to write and sort (no
//     more than the buffers hold), the dispatches' sizes, the kept
//     entries' quads;
//   write_pairs (a workgroup per kept group of entries, then a thread per
//     candidate): the footprint test; the tile (or NO_TILE) written as the
//     key and the splat as the value, at the tile's slot.
//
// The stable sort by tile keeps each tile's splats exactly as the order
// has them. A frame needing more slots than the buffers hold writes what
// fits, says so in `total`, and keeps the fallback draw's vertices: quads
// draw that frame, and the raster leaves their picture
// (src/render/tiles/tile-renderer.ts).
//
// workgroup_sum.wgsl gives the workgroup's prefix sum, saturating_sum.wgsl
// its saturating suffix sum; dispatch.wgsl a workgroup's place in its
// dispatch; tile_candidates.wgsl each candidate's entry and tile;
// tile_state.wgsl and tile_footprint.wgsl the rest. Slots: TILE_BIN_SLOTS in src/render/frame-layouts.ts.

@group(0) @binding(0) var<uniform> frame: Frame;
@group(0) @binding(1) var<storage, read> records: array<ProjectedSplat>;
@group(0) @binding(2) var<storage, read> order: array<u32>;
@group(0) @binding(3) var<storage, read_write> state: TileState;
@group(0) @binding(4) var<storage, read_write> keys: array<u32>;
@group(0) @binding(5) var<storage, read_write> values: array<u32>;

// The indirect dispatches' sizes, written by scan_boxes (a buffer of its
// own, in a group of its own: the dispatches that read it as their
// indirect size may not also bind it): write_pairs', a workgroup per kept
// group of entries first, then a thread per kept candidate; the ranges',
// a thread per slot sorted (the ranges pass writes the state, so its size
// may not lie there).
struct BinArgs {
  write_x: u32,
  write_y: u32,
  write_z: u32,
  ranges_x: u32,
  ranges_y: u32,
  ranges_z: u32,
}
@group(1) @binding(0) var<storage, read_write> bin_args: BinArgs;

// False bins each splat into every tile of its quad's bounding box, without
// the footprint test: the benchmark's measure of the pairs the test saves.
override footprint_test: bool = true;
// The largest box an entry's own thread bins (directTiles in
// src/render/tiles/tile-binning.ts, which records the measurement); 0:
// none, every box is spread over candidates.
override direct_tiles: u32 = 0u;
// The quad renderer's cut (src/render/tiles/quad-cut.ts): count_boxes and
// scan_boxes alone, whose kept quads are drawn; no pair is written.
override cut_only: bool = false;

fn entry_count() -> u32 {
  return min(state.entries, state.entry_capacity);
}

fn group_count() -> u32 {
  return (entry_count() + BIN_GROUP - 1u) / BIN_GROUP;
}

// Where each part of state.words starts (tile_state.wgsl).
fn capacity_groups() -> u32 {
  return (state.entry_capacity + BIN_GROUP - 1u) / BIN_GROUP;
}

fn box_groups() -> u32 {
  return state.entry_capacity;
}

fn slot_firsts() -> u32 {
  return state.entry_capacity + capacity_groups();
}

fn candidate_groups() -> u32 {
  return slot_firsts() + state.entry_capacity;
}

// Where each group's boxes are counted: with no direct entries, a group's
// boxes are its candidates.
fn box_totals() -> u32 {
  return select(box_groups(), candidate_groups(), direct_tiles == 0u);
}

// The kept groups of entries whose direct entries write_pairs writes.
fn direct_groups_from(first_kept_group: u32) -> u32 {
  return select(0u, group_count() - first_kept_group, direct_tiles > 0u);
}

// With direct entries: kept entry e's first slot, from its group's first
// (scan_boxes) and its own within the group (count_boxes).
fn box_slot_first(e: u32) -> u32 {
  return state.words[box_groups() + e / BIN_GROUP] + state.words[slot_firsts() + e] - state.box_base;
}

// An entry's splat as binning sees it: its footprint, reach and tile box.
struct Binned {
  splat: u32,
  footprint: Footprint,
  reach2: f32,
  span: TileSpan,
  boxes: u32,       // tiles in the box (0: draws nothing)
}

fn binned(i: u32) -> Binned {
  var b: Binned;
  b.splat = order[i];
  b.footprint = footprint(records[b.splat]);
  b.reach2 = footprint_reach2(b.footprint);
  b.span = tile_span(b.footprint);
  let size = max(b.span.last - b.span.first + 1, vec2<i32>(0));
  b.boxes = select(0u, u32(size.x) * u32(size.y), b.reach2 >= 0.0);
  return b;
}

// Binned by its own thread, not by candidates.
fn is_direct(b: Binned) -> bool {
  return b.boxes <= direct_tiles;
}

// Tile `local` of the entry's box, row by row.
fn box_tile(b: Binned, local: u32) -> vec2<u32> {
  let width = u32(b.span.last.x - b.span.first.x + 1);
  return vec2<u32>(b.span.first) + vec2<u32>(local % width, local / width);
}

fn touches(b: Binned, tile: vec2<u32>) -> bool {
  return !footprint_test || footprint_touches(b.footprint, b.reach2, tile_rect(tile));
}

// The groups invocation lid scans: a contiguous run [x, y) (at most a few
// hundred: 65,536 groups hold 16.7M entries).
fn group_run(lid: u32) -> vec2<u32> {
  let groups = group_count();
  let run = (groups + BIN_GROUP - 1u) / BIN_GROUP;
  let first = min(lid * run, groups);
  return vec2<u32>(first, min(first + run, groups));
}

// Words of a run read at once. A loop that reads one word a step waits
// out the memory's latency at every step (the next read waits on the last
// one's sum), and a run is up to a few hundred groups (110 at 7.2M
// entries). With READ_AHEAD reads in flight at once (its loops unrolled:
// src/gpu/wgsl-unroll.ts) the replicated scene's binning took 0.92–0.99×
// its time (H200, 1920×1080), the real scenes' 1.00–1.03× (0.001–0.002
// ms); 16 was no faster (docs/benchmarks.md, "The binning's scan reads
// ahead").
const READ_AHEAD: u32 = 8u;

// The `count` (at most READ_AHEAD) words from state.words[at] on, 0 past them.
fn words_ahead(at: u32, count: u32) -> array<u32, READ_AHEAD> {
  var words: array<u32, READ_AHEAD>;
  for (var k = 0u; k < READ_AHEAD; k++) {
    words[k] = select(0u, state.words[at + min(k, count - 1u)], k < count);
  }
  return words;
}

// The sum of state.words[base + g] over the run [first, end), saturating
// at 2^32 - 1 (add_saturating, saturating_sum.wgsl): the budget's sums
// from the order's front may pass it; the kept groups' sums, within the
// budget plus a group, never do.
fn run_sum(base: u32, first: u32, end: u32) -> u32 {
  var total = 0u;
  for (var g = first; g < end; g += READ_AHEAD) {
    let words = words_ahead(base + g, min(READ_AHEAD, end - g));
    for (var k = 0u; k < READ_AHEAD; k++) {
      total = add_saturating(total, words[k]);
    }
  }
  return total;
}

// Turns the per-group totals at state.words[base ..], from group from_group on,
// into each group's first slot counted from it, in place; returns their
// sum. The groups before it are left as they are.
fn scan_group_totals(lid: u32, base: u32, from_group: u32) -> u32 {
  let run = group_run(lid);
  let first = max(run.x, from_group);
  let end = run.y;
  let total = run_sum(base, first, end);
  let through = workgroup_inclusive_sum(lid, total);
  var offset = through - total;
  for (var g = first; g < end; g += READ_AHEAD) {
    let n = min(READ_AHEAD, end - g);
    let sums = words_ahead(base + g, n);
    for (var k = 0u; k < READ_AHEAD; k++) {
      if (k < n) {
        state.words[base + g + k] = offset;
      }
      offset += sums[k];
    }
  }
  return workgroupUniformLoad(&sum_scratch[BIN_GROUP - 1u]);
}

// Entry i's `n` items (candidates, pairs) in its group of BIN_GROUP entries:
// its first item within the group at state.words[firsts + i], the group's
// total at state.words[totals + group] (scan_group_totals turns the totals
// into firsts). Call from uniform control flow.
fn place_in_group(lid: u32, group: u32, i: u32, n: u32, firsts: u32, totals: u32) {
  let through = workgroup_inclusive_sum(lid, n);
  if (i < entry_count()) {
    state.words[firsts + i] = through - n;
  }
  if (lid == BIN_GROUP - 1u && group < group_count()) {
    state.words[totals + group] = through;
  }
}

// An indirect dispatch of `workgroups` workgroups.
fn dispatch_groups(workgroups: u32) -> vec3<u32> {
  let x = min(workgroups, state.max_groups_x);
  return vec3<u32>(x, select(1u, (workgroups + x - 1u) / x, x > 0u), 1u);
}

// An indirect dispatch of a thread per item, BIN_GROUP to a workgroup.
fn dispatch_size(items: u32) -> vec3<u32> {
  return dispatch_groups((items + BIN_GROUP - 1u) / BIN_GROUP);
}

@compute @workgroup_size(BIN_GROUP)
fn count_boxes(
  @builtin(workgroup_id) wid: vec3<u32>,
  @builtin(num_workgroups) groups: vec3<u32>,
  @builtin(local_invocation_index) lid: u32,
) {
  let group = flat_group(wid, groups.x);
  let i = flat_invocation(group, BIN_GROUP, lid);
  var boxes = 0u;
  var candidates = 0u;
  if (i < entry_count()) {
    let b = binned(i);
    boxes = b.boxes;
    if (!is_direct(b)) {
      candidates = boxes;
    }
  }
  place_in_group(lid, group, i, candidates, 0u, candidate_groups());
  // With direct entries: each entry's first slot within its group, and the
  // group's boxes, for the budget (scan_boxes).
  if (direct_tiles > 0u) {
    place_in_group(lid, group, i, boxes, slot_firsts(), box_groups());
  }
}

// The frame's slots: written and sorted as far as the buffers hold them,
// the ranges dispatched over those. Until the ranges pass finds the first
// NO_TILE slot, every slot written counts as touched.
fn set_pair_total(total: u32) {
  state.total = total;
  let pairs = min(total, state.capacity);
  state.pairs = pairs;
  state.touched = pairs;
  let size = dispatch_size(pairs);
  bin_args.ranges_x = size.x;
  bin_args.ranges_y = size.y;
  bin_args.ranges_z = size.z;
  // scan_boxes set the kept entries' quads: they draw the frame only where its slots did not fit.
  if (total <= state.capacity) {
    state.fallback_vertices = 0u;
  }
}

// A slot: the tile, or NO_TILE where the splat does not touch it.
fn write_slot(slot: u32, tile: vec2<u32>, splat: u32, touched: bool) {
  if (slot < state.capacity) {
    keys[slot] = select(NO_TILE, tile.y * tile_grid().x + tile.x, touched);
    values[slot] = splat;
  }
}

// A kept direct entry's slots: every tile of its box, from its first slot on.
fn write_direct(i: u32) {
  if (i >= entry_count() || i < state.cut_entries) {
    return;
  }
  let b = binned(i);
  if (!is_direct(b) || b.boxes == 0u) {
    return;
  }
  var slot = box_slot_first(i);
  for (var y = b.span.first.y; y <= b.span.last.y; y++) {
    for (var x = b.span.first.x; x <= b.span.last.x; x++) {
      let tile = vec2<u32>(vec2<i32>(x, y));
      write_slot(slot, tile, b.splat, touches(b, tile));
      slot++;
    }
  }
}

// A candidate's slot: its place among the kept candidates, or with direct
// entries its entry's first slot plus its tile's place in the box.
fn candidate_slot(c: Candidate, kept: u32) -> u32 {
  if (direct_tiles == 0u) {
    return kept;
  }
  let width = u32(c.binned.span.last.x - c.binned.span.first.x + 1);
  let local = c.tile - vec2<u32>(c.binned.span.first);
  return box_slot_first(c.entry) + local.y * width + local.x;
}

// The kept groups of entries this dispatch's first workgroups take.
var<workgroup> direct_groups: u32;

@compute @workgroup_size(BIN_GROUP)
fn write_pairs(
  @builtin(workgroup_id) wid: vec3<u32>,
  @builtin(num_workgroups) groups: vec3<u32>,
  @builtin(local_invocation_index) lid: u32,
) {
  let w = flat_group(wid, groups.x);
  // Without direct entries the candidates' workgroups start at once: a
  // barrier at each one's start took the real scenes' binning to
  // 1.08–1.11× on an H200 (docs/benchmarks.md).
  var direct = 0u;
  if (direct_tiles > 0u) {
    if (lid == 0u) {
      direct_groups = direct_groups_from(state.first_group);
    }
    direct = workgroupUniformLoad(&direct_groups);
  }
  if (w < direct) {
    write_direct((state.first_group + w) * BIN_GROUP + lid);
    return;
  }
  let first = flat_invocation(w - direct, BIN_GROUP, 0u);
  let found = workgroup_candidate(first, lid);
  if (found.has_candidate) {
    let c = found.candidate;
    write_slot(candidate_slot(c, first + lid), c.tile, c.binned.splat, touches(c.binned, c.tile));
  }
}
