// Radix pass, phase 3: each workgroup ranks the pairs of its tile by digit,
// stably, and writes them to their places in the other ping-pong buffer.
//
// Ranking is portable (no subgroup operations): the tile is sorted locally
// by 4-bit nibbles of the digit, low nibble first (one nibble for 4-bit
// digits, two for 8-bit), each with per-invocation counters in the manner of
// a classic block radix rank. Each invocation owns ITEMS consecutive pairs
// of the tile, counts them in order, and a scan over (nibble, invocation)
// gives every pair its rank: stable by construction.
//
// The ranked tile is staged in workgroup memory so that the global writes
// of a digit's run are consecutive addresses.

// Counters: nibble d of invocation t is the 16-bit half (d >> 3) of word
// (d & 7) * WG + t; a scan over the words in index order scans nibbles 0..7
// in the low halves and 8..15 in the high halves at once. The same memory
// later stages the tile's items, ranks, keys and values.
var<workgroup> shared_words: array<u32, SHARED_WORDS>;

// Word i of the staging area lives at padded(i): one spare word after every
// 32 makes the strided patterns here free of bank conflicts (an invocation's
// ITEMS consecutive places, the 8 counter words it scans), which they are
// not on a GPU with 32 banks of 4 bytes without it. SHARED_WORDS includes
// the padding.
fn padded(i: u32) -> u32 {
  return i + (i >> 5u);
}
// Each digit's base for this tile (radix_common.wgsl): output place minus
// place in the ranked tile.
var<workgroup> digit_base: array<u32, RADIX>;

// Per-invocation state, kept in registers (ITEMS is a small constant): an
// item is (rank << RANK_SHIFT) | (position in tile << 4) | nibble, the
// nibble being ranked and the rank by it; before the items move to their
// ranked places, each takes its pair's next nibble from the key, which the
// invocation holding the pair still has. One word per pair for both leaves
// room for the values to be held from the start of the tile: on an H100 the
// driver's count stayed at 127 registers (two workgroups per
// multiprocessor), and the values' load overlaps the ranking
// (docs/benchmarks.md). Rank and position take TILE_BITS (the prelude)
// each, so tiles hold at most MAX_PORTABLE_TILE (16,384) pairs.
var<private> items: array<u32, ITEMS>;
const RANK_SHIFT: u32 = 4u + TILE_BITS;
const ITEM_BITS: u32 = (1u << RANK_SHIFT) - 1u;

// words[i] for i < 8, by selects: indexed by a value, a private array may
// be placed in memory rather than registers.
fn pick_of_eight(words: array<u32, 8>, i: u32) -> u32 {
  let b0 = (i & 1u) != 0u;
  let b1 = (i & 2u) != 0u;
  let low = select(select(words[0], words[1], b0), select(words[2], words[3], b0), b1);
  let high = select(select(words[4], words[5], b0), select(words[6], words[7], b0), b1);
  return select(low, high, (i & 4u) != 0u);
}

// Sets the rank field of items[k] to the stable rank within the tile of
// items[k] by its nibble, given that invocation lid owns
// tile positions lid * ITEMS .. lid * ITEMS + ITEMS - 1 in order.
//
// An invocation counts its own items' nibbles in two registers of eight
// 4-bit counters (nibbles 0..7, 8..15) rather than in workgroup memory,
// whose read-add-write per item is a dependent chain. Its last item is left
// out of them and added when they are written out, so 4 bits hold up to 16
// items (radix-layout.ts limits the portable ranking to that). On an H100,
// this and a Hillis–Steele scan of 16 values per step (since replaced)
// took a sort of 4M 32-bit pairs from 0.311 to 0.296 ms.
fn rank_by_nibble(lid: u32) {
  // The rank starts as the number of this invocation's earlier items with
  // the same nibble.
  var low_counts = 0u;
  var high_counts = 0u;
  for (var k = 0u; k < ITEMS; k++) {
    let d = items[k] & 15u;
    let shift = (d & 7u) * 4u;
    let high = d >= 8u;
    items[k] = (items[k] & ITEM_BITS) | (((select(low_counts, high_counts, high) >> shift) & 15u) << RANK_SHIFT);
    if (k + 1u < ITEMS) {
      let one = 1u << shift;
      low_counts += select(one, 0u, high);
      high_counts += select(0u, one, high);
    }
  }
  // Counter word (d & 7) * WG + lid holds nibble d's count in half d >> 3.
  // Only this invocation's column is written, and the phase before ended
  // on a barrier: none is needed here.
  let last = items[ITEMS - 1u] & 15u;
  for (var w = 0u; w < 8u; w++) {
    let shift = w * 4u;
    let word = ((low_counts >> shift) & 15u) | (((high_counts >> shift) & 15u) << 16u);
    shared_words[padded(w * WG + lid)] = word + select(0u, 1u << ((last >> 3u) * 16u), (last & 7u) == w);
  }
  workgroupBarrier();

  // Exclusive scan of all counter words in index order; invocation lid owns
  // words 8 lid .. 8 lid + 7.
  var own: array<u32, 8>;
  var sum = 0u;
  for (var i = 0u; i < 8u; i++) {
    let c = shared_words[padded(8u * lid + i)];
    own[i] = sum;
    sum += c;
  }
  let scan = workgroup_exclusive_scan(lid, sum);
  for (var i = 0u; i < 8u; i++) {
    shared_words[padded(8u * lid + i)] = scan.exclusive + own[i];
  }
  workgroupBarrier();

  // This invocation's eight counter words, now where each of its nibbles
  // starts; high halves (nibbles 8..15) start after every low-half nibble.
  // The eight are read once, in this invocation's column (no bank
  // conflicts), and each item picks its word with three selects: read per
  // item, the words' rows differ from lane to lane and collide in banks. On
  // an H200 (one run, three alternations) that took 16M 32-bit pairs from
  // 0.7215 to 0.7161 ms, 4M from 0.2396 to 0.2347 (docs/benchmarks.md).
  let low_total = (scan.total & 0xffffu) << 16u;
  var starts: array<u32, 8>;
  for (var w = 0u; w < 8u; w++) {
    starts[w] = shared_words[padded(w * WG + lid)] + low_total;
  }
  for (var k = 0u; k < ITEMS; k++) {
    let d = items[k] & 15u;
    let half = (d >> 3u) * 16u;
    let start = pick_of_eight(starts, d & 7u);
    items[k] += ((start >> half) & 0xffffu) << RANK_SHIFT;
  }
  workgroupBarrier();
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let tile = tile_index(wid);
  if (tile >= control.num_tiles) {
    return;
  }
  let n = control.n;
  let tile_start = tile * TILE;
  let valid = min(TILE, n - tile_start);

  let tile_counts = load_tile_counts(lid, tile);

  // Load this invocation's ITEMS consecutive pairs. Positions past n get the
  // largest key: they rank after every real pair and are never written. The
  // values are loaded now too, so that their latency overlaps the ranking
  // (loaded after it, they stalled the staging of every tile).
  var keys: array<u32, ITEMS>;
  var values: array<u32, ITEMS>;
  let own_first = lid * ITEMS;
  for (var q = 0u; q < ITEMS / 4u; q++) {
    let first = tile_start + own_first + 4u * q;
    var k4 = vec4<u32>(0xffffffffu);
    var v4 = vec4<u32>(0u);
    if (first < n) {
      k4 = keys_in[first / 4u];
      v4 = values_in[first / 4u];
    }
    for (var c = 0u; c < 4u; c++) {
      let k = 4u * q + c;
      keys[k] = select(0xffffffffu, k4[c], first + c < n);
      items[k] = ((own_first + k) << 4u) | (digit_of(keys[k]) & 15u);
      values[k] = v4[c];
    }
  }

  for (var i = 0u; i < DIGITS_PER_INVOCATION; i++) {
    let d = lid * DIGITS_PER_INVOCATION + i;
    if (d < RADIX) {
      digit_base[d] = tile_counts[i];
    }
  }

  // Rank by the digit's nibbles, low first; between nibbles the items move
  // to their ranked places so the next count sees them in that order.
  for (var nibble = 0u; nibble < DIGIT_BITS / 4u; nibble++) {
    rank_by_nibble(lid);
    if (nibble + 1u < DIGIT_BITS / 4u) {
      // items[k] is still the pair at position own_first + k (8-bit digits
      // have two nibbles), whose key this invocation holds.
      for (var k = 0u; k < ITEMS; k++) {
        let next = (digit_of(keys[k]) >> (4u * (nibble + 1u))) & 15u;
        shared_words[padded(items[k] >> RANK_SHIFT)] = (items[k] & (ITEM_BITS & ~15u)) | next;
      }
      workgroupBarrier();
      for (var k = 0u; k < ITEMS; k++) {
        items[k] = shared_words[padded(own_first + k)];
      }
      workgroupBarrier();
    }
  }
  // The rank field of items[k] is now the final place of the pair at its
  // tile position; hand each rank back to the invocation holding that pair.
  var ranks: array<u32, ITEMS>;
  if (DIGIT_BITS > 4u) {
    for (var k = 0u; k < ITEMS; k++) {
      shared_words[padded((items[k] & ITEM_BITS) >> 4u)] = items[k] >> RANK_SHIFT;
    }
    workgroupBarrier();
    for (var k = 0u; k < ITEMS; k++) {
      ranks[k] = shared_words[padded(own_first + k)];
    }
    workgroupBarrier();
  } else {
    for (var k = 0u; k < ITEMS; k++) {
      ranks[k] = items[k] >> RANK_SHIFT;
    }
  }

  // Keys: stage in ranked order, then write the key at ranked place j to
  // its digit's base plus j: the count phase found where each digit's run
  // starts in the tile, so no pass over the staged keys looks for it.
  // (keys[] then holds each written key's destination: the array is reused
  // to keep register use down.)
  for (var k = 0u; k < ITEMS; k++) {
    shared_words[padded(ranks[k])] = keys[k];
  }
  workgroupBarrier();
  for (var k = 0u; k < ITEMS; k++) {
    let j = k * WG + lid;
    let key = shared_words[padded(j)];
    let place = digit_base[digit_of(key)] + j;
    if (j < valid) {
      keys_out[place] = key;
    }
    keys[k] = place;
  }
  // Every staged key is read before the values are staged over them.
  workgroupBarrier();

  // Values follow the same ranks.
  for (var k = 0u; k < ITEMS; k++) {
    shared_words[padded(ranks[k])] = values[k];
  }
  workgroupBarrier();
  for (var k = 0u; k < ITEMS; k++) {
    let j = k * WG + lid;
    if (j < valid) {
      values_out[keys[k]] = shared_words[padded(j)];
    }
  }
}
