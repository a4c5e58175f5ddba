// Tile binning: turns the frame's draw order (back to front) into
// (tile, splat) pairs in that same order, for the pair sort. The work is
// spread over (splat, tile) candidates, the tiles of each splat's quad box,
// not over splats: a splat near the camera covers thousands of tiles, and a
// thread per splat left the GPU idle behind a few such threads (9k scene,
// 1920×1080, close: 6.3 ms binning on an H200 with a thread per splat).
// Six dispatches, so no workgroup waits on another:
//
//   count_boxes (a workgroup per BIN_GROUP entries of the order): each
//     entry's candidates, its first candidate within its group, the
//     group's total; its pair counter cleared;
//   scan_boxes (one workgroup): the nearest entries whose candidates fit
//     the budget, each kept group's first candidate, the kept total, the
//     candidate dispatches' size, the kept entries' quads;
//   count_touched (a thread per candidate): footprint_touches, counted into
//     the entry's pair counter;
//   scan_pairs (as count_boxes): each entry's first pair within its group,
//     the group's total; the counter cleared again (the write's cursor);
//   scan_pair_groups (one workgroup): each group's first pair, the frame's
//     pair total, the pairs to write and sort (no more than the buffers
//     hold), the ranges dispatch's size;
//   write_pairs (a thread per candidate): the same test again; a touched
//     tile is written as the key and the splat as the value, at the entry's
//     first pair plus its cursor.
//
// An entry's pairs land in its own slots, in the order's order across
// entries (within an entry, in whatever order its threads come: its tiles
// differ, so the sort by tile puts them apart anyway), so the stable sort by
// tile keeps each tile's splats exactly as the order has them. A frame
// needing more pairs than the buffers hold writes what fits, says so in
// `total`, and sets the fallback draw's vertices: quads draw that frame,
// and the raster leaves their picture (src/render/tiles/tile-renderer.ts).
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
// Per entry: its pairs, counted, then its cursor while they are written.
@group(0) @binding(6) var<storage, read_write> entry_pairs: array<atomic<u32>>;

// The candidate dispatches' size, written by scan_boxes alone (a buffer of
// its own, in a group of its own: the dispatches that read it as their
// indirect size may not also bind it).
struct BinArgs {
  x: u32,
  y: u32,
  z: u32,
}
@group(1) @binding(0) var<storage, read_write> bin_args: BinArgs;

// False bins each splat into every tile of its quad's bounding box, without
// the footprint test: the benchmark's measure of the pairs the test saves.
override footprint_test: bool = true;

fn entry_count() -> u32 {
  return min(state.entries, state.entry_capacity);
}

fn group_count() -> u32 {
  return (entry_count() + BIN_GROUP - 1u) / BIN_GROUP;
}

// Where each part of state.words starts (tile_state.wgsl).
fn box_groups() -> u32 {
  return state.entry_capacity;
}

fn pair_firsts() -> u32 {
  return state.entry_capacity + (state.entry_capacity + BIN_GROUP - 1u) / BIN_GROUP;
}

fn pair_groups() -> u32 {
  return pair_firsts() + state.entry_capacity;
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

// The groups invocation lid scans: a contiguous run [x, y) (at most a few
// hundred: 65,536 groups hold 16.7M entries).
fn group_run(lid: u32) -> vec2<u32> {
  let groups = group_count();
  let run = (groups + BIN_GROUP - 1u) / BIN_GROUP;
  let first = min(lid * run, groups);
  return vec2<u32>(first, min(first + run, groups));
}

// Turns the per-group totals at state.words[base ..], from group from_group on,
// into each group's first slot counted from it, in place; returns their
// sum. The groups before it are left as they are.
fn scan_group_totals(lid: u32, base: u32, from_group: u32) -> u32 {
  let run = group_run(lid);
  let first = max(run.x, from_group);
  let end = run.y;
  var total = 0u;
  for (var g = first; g < end; g++) {
    total += state.words[base + g];
  }
  let through = workgroup_inclusive_sum(lid, total);
  var offset = through - total;
  for (var g = first; g < end; g++) {
    let sum = state.words[base + g];
    state.words[base + g] = offset;
    offset += sum;
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

// An indirect dispatch of a thread per item, BIN_GROUP to a workgroup.
fn dispatch_size(items: u32) -> vec3<u32> {
  let workgroups = (items + BIN_GROUP - 1u) / BIN_GROUP;
  let x = min(workgroups, state.max_groups_x);
  return vec3<u32>(x, select(1u, (workgroups + x - 1u) / x, x > 0u), 1u);
}

@compute @workgroup_size(BIN_GROUP)
fn count_boxes(
  @builtin(workgroup_id) wid: vec3<u32>,
  @builtin(num_workgroups) groups: vec3<u32>,
  @builtin(local_invocation_index) lid: u32,
) {
  let group = flat_group(wid, groups.x);
  let i = flat_invocation(group, BIN_GROUP, lid);
  let entries = entry_count();
  var boxes = 0u;
  if (i < entries) {
    boxes = binned(i).boxes;
    atomicStore(&entry_pairs[i], 0u);
  }
  place_in_group(lid, group, i, boxes, 0u, box_groups());
}

// Where scan_boxes cuts the order: the group holding the nearest entry
// left out, and the candidates of the groups after it.
var<workgroup> cut_group: u32;
var<workgroup> kept_after: u32;
// The first group binned (the cut's, or the one after it).
var<workgroup> first_kept_group: u32;

// The candidates the frame bins: the nearest entries (at the order's end)
// whose candidates fit state.candidate_budget; the farther ones are cut
// (cut_entries), so a view whose splats cover the window many times over
// costs at most the budget, not splats × tiles. Sums are taken from the
// order's front, saturating (they may pass 2^32 before the cut); the
// groups' firsts are then counted from the first kept group, so they stay
// within the budget plus a group. Kept candidate k is candidate
// k + candidate_base counted from first_group (entry_of).
@compute @workgroup_size(BIN_GROUP)
fn scan_boxes(@builtin(local_invocation_index) lid: u32) {
  let base = box_groups();
  let run = group_run(lid);
  let first = run.x;
  let end = run.y;
  var run_total = 0u;
  for (var g = first; g < end; g++) {
    run_total = add_saturating(run_total, state.words[base + g]);
  }
  workgroup_saturating_suffix_sum(lid, run_total);
  var after = 0u;
  if (lid + 1u < BIN_GROUP) {
    after = sum_scratch[lid + 1u];
  }
  let needed = workgroupUniformLoad(&sum_scratch[0]);
  let budget = state.candidate_budget;
  // The one run where the count from the front passes the budget finds its group.
  if (needed > budget && after <= budget) {
    var through = after;
    for (var g = end; g > first; g--) {
      let next = add_saturating(through, state.words[base + g - 1u]);
      if (next > budget) {
        cut_group = g - 1u;
        kept_after = through;
        break;
      }
      through = next;
    }
  }
  workgroupBarrier();
  if (lid == 0u) {
    var kept = needed;
    var group = 0u;
    var cut = 0u;
    var skipped = 0u;
    if (needed > budget) {
      // Within the cut group, the first entry whose candidates to the group's
      // end fit what the later groups left of the budget (in-group firsts rise).
      group = cut_group;
      let group_total = state.words[base + group];
      let room = budget - kept_after;
      let start = group * BIN_GROUP;
      let n = min(BIN_GROUP, entry_count() - start);
      var a = 0u;
      var b = n;
      while (a < b) {
        let mid = (a + b) / 2u;
        if (group_total - state.words[start + mid] <= room) {
          b = mid;
        } else {
          a = mid + 1u;
        }
      }
      if (a == n) {
        group += 1u;
        cut = min(group * BIN_GROUP, entry_count());
        kept = kept_after;
      } else {
        cut = start + a;
        skipped = state.words[cut];
        kept = kept_after + group_total - skipped;
      }
    }
    first_kept_group = group;
    state.needed_candidates = needed;
    state.candidates = kept;
    state.cut_entries = cut;
    state.first_group = group;
    state.candidate_base = skipped;
    // The kept entries' quads: what the quad renderer draws (src/render/
    // tiles/quad-cut.ts), and a tile frame whose pairs do not fit.
    state.fallback_vertices = QUAD_VERTICES * (entry_count() - cut);
    state.fallback_instances = 1u;
    state.fallback_first_vertex = QUAD_VERTICES * cut;
    state.fallback_first_instance = 0u;
    let size = dispatch_size(kept);
    bin_args.x = size.x;
    bin_args.y = size.y;
    bin_args.z = size.z;
  }
  // Each kept group's first candidate, counted from the first kept group.
  scan_group_totals(lid, base, workgroupUniformLoad(&first_kept_group));
}

fn touched(c: Candidate) -> bool {
  return !footprint_test || footprint_touches(c.binned.footprint, c.binned.reach2, tile_rect(c.tile));
}

@compute @workgroup_size(BIN_GROUP)
fn count_touched(
  @builtin(workgroup_id) wid: vec3<u32>,
  @builtin(num_workgroups) groups: vec3<u32>,
  @builtin(local_invocation_index) lid: u32,
) {
  let found = workgroup_candidate(flat_invocation(flat_group(wid, groups.x), BIN_GROUP, 0u), lid);
  if (found.has_candidate && touched(found.candidate)) {
    atomicAdd(&entry_pairs[found.candidate.entry], 1u);
  }
}

@compute @workgroup_size(BIN_GROUP)
fn scan_pairs(
  @builtin(workgroup_id) wid: vec3<u32>,
  @builtin(num_workgroups) groups: vec3<u32>,
  @builtin(local_invocation_index) lid: u32,
) {
  let group = flat_group(wid, groups.x);
  let i = flat_invocation(group, BIN_GROUP, lid);
  let entries = entry_count();
  var n = 0u;
  if (i < entries) {
    n = atomicLoad(&entry_pairs[i]);
    atomicStore(&entry_pairs[i], 0u);
  }
  place_in_group(lid, group, i, n, pair_firsts(), pair_groups());
}

@compute @workgroup_size(BIN_GROUP)
fn scan_pair_groups(@builtin(local_invocation_index) lid: u32) {
  let total = scan_group_totals(lid, pair_groups(), 0u);
  if (lid == 0u) {
    state.total = total;
    let pairs = min(total, state.capacity);
    state.pairs = pairs;
    let size = dispatch_size(pairs);
    state.ranges_x = size.x;
    state.ranges_y = size.y;
    state.ranges_z = size.z;
    // scan_boxes set the kept entries' quads: they draw the frame only where its pairs did not fit.
    if (total <= state.capacity) {
      state.fallback_vertices = 0u;
    }
  }
}

@compute @workgroup_size(BIN_GROUP)
fn write_pairs(
  @builtin(workgroup_id) wid: vec3<u32>,
  @builtin(num_workgroups) groups: vec3<u32>,
  @builtin(local_invocation_index) lid: u32,
) {
  let found = workgroup_candidate(flat_invocation(flat_group(wid, groups.x), BIN_GROUP, 0u), lid);
  let c = found.candidate;
  if (!found.has_candidate || !touched(c)) {
    return;
  }
  let slot = state.words[pair_groups() + c.group] + state.words[pair_firsts() + c.entry] + atomicAdd(&entry_pairs[c.entry], 1u);
  if (slot < state.capacity) {
    keys[slot] = c.tile.y * tile_grid().x + c.tile.x;
    values[slot] = c.binned.splat;
  }
}
