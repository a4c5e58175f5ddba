// One workgroup: turns the projector's per-tile kept counts into each tile's
// first slot (an exclusive prefix sum, in place), so kept splats are keyed
// in splat order: a deterministic order, so the stable sort breaks equal
// keys the same way every frame (no flicker between splats of equal key).
// Writes the visible count (clamped to the capacity) for the sort and the
// draw's instance count.

@group(0) @binding(0) var<uniform> frame: Frame;
@group(0) @binding(1) var<storage, read_write> state: VisibleState;

// One thread per tile run; tile_inclusive_sum (tile_scan.wgsl) sums over them.
const SCAN_THREADS: u32 = PROJECT_TILE;

@compute @workgroup_size(SCAN_THREADS)
fn main(@builtin(local_invocation_index) lid: u32) {
  let tiles = (frame.count + PROJECT_TILE - 1u) / PROJECT_TILE;
  // Each thread owns a contiguous run of tiles.
  let run = (tiles + SCAN_THREADS - 1u) / SCAN_THREADS;
  let first = min(lid * run, tiles);
  let end = min(first + run, tiles);
  var total = 0u;
  for (var t = first; t < end; t++) {
    total += state.tiles[t];
  }
  let through = tile_inclusive_sum(lid, total);
  var offset = through - total;
  for (var t = first; t < end; t++) {
    let kept = state.tiles[t];
    state.tiles[t] = offset;
    offset += kept;
  }
  if (lid == SCAN_THREADS - 1u) {
    let visible = min(through, state.capacity);
    state.visible = visible;
    state.draw_vertex_count = 4u;
    state.draw_instance_count = visible;
    state.draw_first_vertex = 0u;
    state.draw_first_instance = 0u;
  }
}
