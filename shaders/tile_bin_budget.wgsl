// The binning's candidate budget (tile_bin.wgsl, its second dispatch):
// which entries a frame bins, the kept groups' first candidates (and
// slots), the slots to sort and the dispatches' sizes. In the binning's
// module, after tile_bin.wgsl.

// Where scan_boxes cuts the order: the group holding the nearest entry
// left out (NO_CUT: none is), and the boxes of the groups after it.
const NO_CUT: u32 = 0xffffffffu;
var<workgroup> cut_group: u32;
var<workgroup> kept_after: u32;
// The first group binned (the cut's, or the one after it), and the
// candidates of its entries before the cut.
var<workgroup> first_kept_group: u32;
var<workgroup> skipped_candidates: u32;

// The entries the frame bins: the nearest (at the order's end) whose boxes
// fit state.candidate_budget; the farther ones are cut (cut_entries), so a
// view whose splats cover the window many times over costs at most the
// budget, not splats × tiles. Sums are taken from the order's front,
// saturating (they may pass 2^32 before the cut). The kept groups' first
// candidates are then counted from the first kept group, so they stay
// within the budget plus a group. Kept candidate k is candidate
// k + candidate_base counted from first_group (entry_of).
@compute @workgroup_size(BIN_GROUP)
fn scan_boxes(@builtin(local_invocation_index) lid: u32) {
  if (lid == 0u) {
    cut_group = NO_CUT;
  }
  let base = box_totals();
  let run = group_run(lid);
  let first = run.x;
  let end = run.y;
  workgroup_saturating_suffix_sum(lid, run_sum(base, first, end));
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
  // The cut group's boxes, entry by entry (sum_scratch: each entry's boxes
  // from the group's first through its own): the cut falls between entries.
  let cut_at = workgroupUniformLoad(&cut_group);
  if (cut_at != NO_CUT) {
    let e = cut_at * BIN_GROUP + lid;
    var boxes = 0u;
    if (e < entry_count()) {
      boxes = binned(e).boxes;
    }
    workgroup_inclusive_sum(lid, boxes);
  }
  if (lid == 0u) {
    var group = 0u;
    var cut = 0u;
    var skipped = 0u;
    var skipped_slots = 0u;
    if (cut_at != NO_CUT) {
      // Within the cut group, the first entry whose boxes to the group's end
      // fit what the later groups left of the budget.
      group = cut_at;
      let group_total = state.words[base + group];
      let room = budget - kept_after;
      let start = group * BIN_GROUP;
      let n = min(BIN_GROUP, entry_count() - start);
      var a = 0u;
      var b = n;
      while (a < b) {
        let mid = (a + b) / 2u;
        let before = select(0u, sum_scratch[max(mid, 1u) - 1u], mid > 0u);
        if (group_total - before <= room) {
          b = mid;
        } else {
          a = mid + 1u;
        }
      }
      if (a == n) {
        group += 1u;
        cut = min(group * BIN_GROUP, entry_count());
      } else {
        cut = start + a;
        skipped = state.words[cut];
        if (direct_tiles > 0u) {
          skipped_slots = state.words[slot_firsts() + cut];
        }
      }
    }
    first_kept_group = group;
    skipped_candidates = skipped;
    state.box_base = skipped_slots;
    state.needed_candidates = needed;
    state.cut_entries = cut;
    state.first_group = group;
    state.candidate_base = skipped;
    // The kept entries' quads: what the quad renderer draws (src/render/
    // tiles/quad-cut.ts), and a tile frame whose pairs do not fit.
    state.fallback_vertices = QUAD_VERTICES * (entry_count() - cut);
    state.fallback_instances = 1u;
    state.fallback_first_vertex = QUAD_VERTICES * cut;
    state.fallback_first_instance = 0u;
  }
  // Each kept group's first candidate, counted from the first kept group.
  let first_kept = workgroupUniformLoad(&first_kept_group);
  let from_first_kept = scan_group_totals(lid, candidate_groups(), first_kept);
  // With direct entries: each kept group's first slot, likewise.
  var slots_from_first_kept = 0u;
  if (direct_tiles > 0u && !cut_only) {
    slots_from_first_kept = scan_group_totals(lid, box_groups(), first_kept);
  }
  if (lid == 0u) {
    let kept = from_first_kept - skipped_candidates;
    state.candidates = kept;
    let write = dispatch_groups(direct_groups_from(first_kept) + (kept + BIN_GROUP - 1u) / BIN_GROUP);
    bin_args.write_x = write.x;
    bin_args.write_y = write.y;
    bin_args.write_z = write.z;
    // Every tile of a kept box is a slot: without direct entries the kept candidates.
    if (!cut_only) {
      set_pair_total(select(kept, slots_from_first_kept - state.box_base, direct_tiles > 0u));
    }
  }
}
