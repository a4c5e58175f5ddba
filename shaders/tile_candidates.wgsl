// The binning's candidates (tile_bin.wgsl): which entry of the order, and
// which tile of its box, each candidate thread of write_pairs stands for.
// Only the boxes larger than direct_tiles have candidates (a direct entry
// has none). Kept candidate k is candidate k + candidate_base
// counted from first_group: the entries' firsts are their in-group firsts
// (state.words[entry]) plus their group's first (scan_boxes).

// Candidate k: its entry (the last whose first candidate is at most k)
// and the tile of that entry's box it stands for.
struct Candidate {
  entry: u32,
  tile: vec2<u32>,
  binned: Binned,
}

// The last index i in [lo, hi) whose word state.words[base + i] is at
// most `value` (lo where none is; the words rise with i).
fn last_at_most(base: u32, lo: u32, hi: u32, value: u32) -> u32 {
  var a = lo;
  var b = hi;
  while (b - a > 1u) {
    let mid = (a + b) / 2u;
    if (state.words[base + mid] <= value) {
      a = mid;
    } else {
      b = mid;
    }
  }
  return a;
}

// The entry of candidate k (counted from first_group, candidate_base
// included): a search over the groups' firsts, then over the group's
// entries, in global memory.
fn entry_of(k: u32) -> u32 {
  let base = candidate_groups();
  let group = last_at_most(base, state.first_group, group_count(), k);
  let first = group * BIN_GROUP;
  return first + last_at_most(first, 0u, min(BIN_GROUP, entry_count() - first), k - state.words[base + group]);
}

// Entry e's first candidate, counted as entry_of's k (e in a kept group).
fn entry_first(e: u32) -> u32 {
  return state.words[candidate_groups() + e / BIN_GROUP] + state.words[e];
}

// The workgroup's candidates are BIN_GROUP in a row: two invocations find
// the entries of the first and the last (entry_of), the entries between
// put their firsts in workgroup memory, and each invocation finds its own
// entry there. A workgroup of small splats spans a few hundred entries at
// most; where more lie between (entries without candidates), each
// invocation searches global memory alone.
var<workgroup> span_count: u32;
var<workgroup> span_entries: array<u32, 2>;
var<workgroup> span_firsts: array<u32, BIN_GROUP>;

// Candidate `kept` + lid of the workgroup whose first is `kept` (the same
// in every invocation); has_candidate false past the frame's candidates.
// Call from uniform control flow.
struct Found {
  has_candidate: bool,
  candidate: Candidate,
}

fn workgroup_candidate(first_kept: u32, lid: u32) -> Found {
  var found: Found;
  if (lid == 0u) {
    span_count = state.candidates;
  }
  let n = workgroupUniformLoad(&span_count);
  if (first_kept >= n) {
    return found;
  }
  let k0 = first_kept + state.candidate_base;
  let last = min(first_kept + BIN_GROUP, n) - 1u + state.candidate_base;
  if (lid < 2u) {
    span_entries[lid] = entry_of(select(k0, last, lid == 1u));
  }
  workgroupBarrier();
  let e0 = span_entries[0];
  let m = span_entries[1] - e0 + 1u;
  if (m <= BIN_GROUP && lid < m) {
    span_firsts[lid] = entry_first(e0 + lid);
  }
  workgroupBarrier();
  if (first_kept + lid >= n) {
    return found;
  }
  let k = k0 + lid;
  var entry: u32;
  if (m > BIN_GROUP) {
    entry = entry_of(k);
  } else {
    var lo = 0u;
    var hi = m;
    while (hi - lo > 1u) {
      let mid = (lo + hi) / 2u;
      if (span_firsts[mid] <= k) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    entry = e0 + lo;
  }
  found.has_candidate = true;
  found.candidate = candidate_of(k, entry);
  return found;
}

fn candidate_of(k: u32, entry: u32) -> Candidate {
  var c: Candidate;
  c.entry = entry;
  c.binned = binned(entry);
  c.tile = box_tile(c.binned, k - entry_first(entry));
  return c;
}
