// The page pool's drawn mask, set on the GPU (src/scene/pool-mask.ts): a
// bit a splat of the pool, the words cleared before this pass. Each
// workgroup takes one piece, a stretch [first, end) of the pool's splats
// that a drawn run covers, and its lanes set the piece's words, a word a
// lane at a time. Two pieces can share a word only at their ends, so the
// words are set with atomicOr. After dispatch.wgsl.

struct Piece {
  first: u32,
  end: u32,
}

@group(0) @binding(0) var<storage, read> pieces: array<Piece>;
@group(0) @binding(1) var<storage, read_write> mask: array<atomic<u32>>;
// x: the pieces.
@group(0) @binding(2) var<uniform> piece_count: vec4<u32>;

const LANES: u32 = 64u;

@compute @workgroup_size(64)
fn set_pieces(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>, @builtin(local_invocation_index) lane: u32) {
  let p = flat_group(wid, groups.x);
  if (p >= piece_count.x) {
    return;
  }
  let piece = pieces[p];
  if (piece.end <= piece.first) {
    return;
  }
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
