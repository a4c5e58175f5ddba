// The page pool's drawn mask and opacity scales, set on the GPU
// (src/scene/pool-mask.ts). The buffer holds a bit a splat of the pool,
// then a byte a splat that scales its opacity (from word `scales_at`).
// Each workgroup takes one piece, a stretch [first, end) of the pool's
// splats that a drawn run covers at one opacity scale, and its lanes set
// the piece's mask words (when the pass sets the mask: its words were
// cleared before it) and its scale bytes, a word a lane at a time. Two
// pieces can share a word only at their ends, so words shared are set with
// atomics: bits by atomicOr, bytes by clearing theirs and setting them
// (the other piece's bytes of the word are not touched). After dispatch.wgsl.

struct Piece {
  first: u32,
  end: u32,
  // The opacity scale of its splats, 0-255.
  scale: u32,
}

struct PieceCount {
  count: u32,
  // 1: set the pieces' mask bits too (their words cleared before); 0: their scales alone.
  set_mask: u32,
  // The word where the scales start, after the mask's.
  scales_at: u32,
  pad: u32,
}

@group(0) @binding(0) var<storage, read> pieces: array<Piece>;
@group(0) @binding(1) var<storage, read_write> mask: array<atomic<u32>>;
@group(0) @binding(2) var<uniform> piece_count: PieceCount;

const LANES: u32 = 64u;

@compute @workgroup_size(64)
fn set_pieces(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>, @builtin(local_invocation_index) lane: u32) {
  let p = flat_group(wid, groups.x);
  if (p >= piece_count.count) {
    return;
  }
  let piece = pieces[p];
  if (piece.end <= piece.first) {
    return;
  }
  if (piece_count.set_mask != 0u) {
    let first_word = piece.first >> 5u;
    let last_word = (piece.end - 1u) >> 5u;
    for (var w = first_word + lane; w <= last_word; w += LANES) {
      var bits = 0xffffffffu;
      if (w == first_word) {
        bits &= 0xffffffffu << (piece.first & 31u);
      }
      if (w == last_word) {
        bits &= 0xffffffffu >> (31u - ((piece.end - 1u) & 31u));
      }
      atomicOr(&mask[w], bits);
    }
  }
  let bytes = (piece.scale & 255u) * 0x01010101u;
  let first_word = piece.first >> 2u;
  let last_word = (piece.end - 1u) >> 2u;
  for (var w = first_word + lane; w <= last_word; w += LANES) {
    var lanes = 0xffffffffu;
    if (w == first_word) {
      lanes &= 0xffffffffu << (8u * (piece.first & 3u));
    }
    if (w == last_word) {
      lanes &= 0xffffffffu >> (8u * (3u - ((piece.end - 1u) & 3u)));
    }
    let at = piece_count.scales_at + w;
    if (lanes == 0xffffffffu) {
      // The word is this piece's alone.
      atomicStore(&mask[at], bytes);
    } else {
      atomicAnd(&mask[at], ~lanes);
      atomicOr(&mask[at], bytes & lanes);
    }
  }
}
