// Tile raster: one workgroup per 16×16 tile, an invocation per pixel. The
// tile's pairs (sorted by tile, each tile's run back to front) are read
// from the run's end, so splats arrive front to back by their centres'
// depths; batches of raster_batch footprints go through workgroup memory,
// each loaded once for all 256 pixels. A long run is cut into chunks drawn
// by several workgroups at once (tile_chunk.wgsl): the workgroups of the
// tile grid draw each run's first chunk, those in the rows past it the
// rest. Each pixel blends by the reference rasterizer's rules
// (tile_raster_splat.wgsl); the workgroup stops when all its pixels have
// stopped. The sum stays
// in f32 registers and each pixel is written once: colour + transmittance
// * background.
//
// A batch splat at a pixel (how the batch holds it, its alpha, its blend)
// is in tile_raster_splat.wgsl; the block lists a pipeline may walk its
// batches by are in tile_block_lists.wgsl.
//
// Two orders (src/render/frame-renderer.ts, SplatOrder), one loop (main,
// below), written once. What an order does with the splats as they arrive
// is in a file of its own, whose parts are put into main's `// {{name}}`
// lines when the order's module is made (src/gpu/wgsl-splice.ts,
// src/render/tiles/tile-raster.ts):
// - tile_raster_centre_depth.wgsl: the centre-depth order, each splat
//   blended as it arrives;
// - tile_raster_per_pixel.wgsl: each pixel's own order, by the splat's
//   depth along the pixel's ray (shaders/tile_ray_shape.wgsl), through a
//   queue of the PIXEL_QUEUE nearest splats the pixel has met and not yet
//   blended.
// The parts: start (what the pixel holds back, before the run), load
// (what the batch holds of splat `id` besides its footprint, in the
// invocation that loads it into slot `lid`), arrive (batch splat j at the
// pixel, `alpha` there: 0 for an arrival past the batch's end, which must
// then change nothing) and finish (after the run). Each order's ARRIVALS,
// set when the module is made (rasterArrivals in
// src/render/tiles/tile-raster.ts), is how many splats' alphas a pixel
// works out before it blends any of them: the raster's time is the
// latency of each splat's chain of reads and arithmetic, not its
// throughput. So each pipeline compiles its own order's loop, with no
// branch on the order, and the per-pixel queue is the entry point's own
// locals (wgsl-splice.ts says why that matters). Not
// one module with a constant to branch on: an entry point uses every
// binding and workgroup array its code names, even in a branch a constant
// rules out, so the centre-depth pipeline would bind ray_shapes and hold
// the per-pixel arrays too (28 KiB of workgroup memory at its batch of
// 256, past the 16 KiB every device gives).
//
// A frame whose pairs did not fit (total > capacity) writes the background
// alone: the quads draw it over that (src/render/tiles/tile-renderer.ts),
// so no tile is ever shown with pairs missing, and the buffers grow for the
// next frame. PICTURE_FORMAT, and the per-pixel order's PIXEL_QUEUE, are set
// when the module is made.
// Slots: TILE_RASTER_SLOTS (ray_shapes and ray_slots: the per-pixel order only).

@group(0) @binding(0) var<uniform> frame: Frame;
@group(0) @binding(1) var<storage, read> state: TileState;
@group(0) @binding(2) var<storage, read> ranges: array<vec2<u32>>;
@group(0) @binding(3) var<storage, read> sorted_splats: array<u32>;
@group(0) @binding(4) var<storage, read> records: array<ProjectedSplat>;
@group(0) @binding(5) var picture: texture_storage_2d<PICTURE_FORMAT, write>;
@group(0) @binding(6) var<storage, read> ray_shapes: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read_write> chunk_words: array<atomic<u32>>;
@group(0) @binding(8) var<storage, read_write> partials: array<vec4<f32>>;
@group(0) @binding(9) var<storage, read> ray_slots: array<u32>;

// Footprints a batch holds: 256 for the centre-depth order (14 floats
// each: 14 KiB of the 16 KiB every device gives a workgroup; with a block
// mask each and the blocks' lists where the pipeline walks lists, 15.5
// KiB), 128 for the per-pixel order (26 floats each: 13 KiB; 13.75 with
// the lists). A multiple of 32 (the lists' words).
override raster_batch: u32;

var<workgroup> batch_centre_mid: array<vec4<f32>, raster_batch>;
var<workgroup> batch_to_sigma: array<vec4<f32>, raster_batch>;
var<workgroup> batch_look: array<vec4<f32>, raster_batch>;
var<workgroup> batch_half: array<vec2<f32>, raster_batch>;

// The workgroup's work (workgroup_work).
var<workgroup> shared_work: Work;
var<workgroup> pixels_done: atomic<u32>;
var<workgroup> all_done: u32;

// What a workgroup draws (tile_chunk.wgsl): a tile's first chunk (the
// tile grid's workgroups) or a later one (the chunk items, in the rows
// past the grid); `tile` NO_SPLIT: nothing.
struct Work {
  tile: u32,
  split: u32,      // NO_SPLIT: the run is one chunk, drawn into the picture
  chunk: u32,
  partial: u32,    // where a split tile's chunk writes its partial
}

// Whether this pipeline's order cuts runs into chunks (the per-pixel order
// does not: src/render/tiles/tile-chunks.ts). Without, none of the chunks'
// reads and barriers are compiled in: with them its raster drew 1.03–1.04×
// slower on an H200.
override cut_runs: bool;

fn workgroup_work(wid: vec3<u32>, lid: u32) -> Work {
  if (!cut_runs) {
    return Work(flat_group(wid, tile_grid().x), NO_SPLIT, 0u, 0u);
  }
  if (lid == 0u) {
    let grid = tile_grid();
    var work = Work(NO_SPLIT, NO_SPLIT, 0u, 0u);
    if (wid.y < grid.y) {
      work.tile = flat_group(wid, grid.x);
      work.split = atomicLoad(&chunk_words[CHUNK_HEADER + work.tile]);
    } else {
      let item = flat_group(vec3<u32>(wid.x, wid.y - grid.y, 0u), grid.x);
      if (item < atomicLoad(&chunk_words[CHUNK_ITEMS])) {
        work.split = atomicLoad(&chunk_words[item_word(item)]);
        work.chunk = atomicLoad(&chunk_words[item_word(item) + 1u]);
        work.tile = atomicLoad(&chunk_words[split_word(work.split)]);
      }
    }
    if (work.split != NO_SPLIT) {
      work.partial = atomicLoad(&chunk_words[split_word(work.split) + 1u]) + work.chunk;
    }
    shared_work = work;
  }
  return workgroupUniformLoad(&shared_work);
}

// A chunk of a tile's run of pairs: sorted_splats[first - k] is its k-th
// splat, front to back (by centre depth), k < count. The same in every
// invocation (the loops over batches must be uniform).
struct Run {
  tile: vec2<u32>,
  first: u32,
  count: u32,
}

fn chunk_run(work: Work) -> Run {
  let grid = tile_grid();
  let tile = vec2<u32>(work.tile % grid.x, work.tile / grid.x);
  let range = ranges[work.tile];
  let count = select(0u, range.y - range.x, range.y > range.x);
  if (work.split == NO_SPLIT) {
    return Run(tile, range.y - 1u, count);
  }
  let size = chunk_pairs();
  let skip = work.chunk * size;
  return Run(tile, range.y - 1u - skip, min(size, count - skip));
}

// One pixel of the tile: where it is, and its blend so far.
struct Pixel {
  xy: vec2<u32>,
  inside: bool,
  // Its centre in pixels from the window's middle, y up (the projector's frame).
  p: vec2<f32>,
  transmittance: f32,
  color: vec3<f32>,
  done: bool,
  // What the earlier chunks of its run that have published leave (1 in a
  // run's first chunk): the pixel stops once this times its own
  // transmittance would fall under T_STOP, i.e. once its own falls under
  // stop_below (T_STOP / before, worked out when before changes).
  before: f32,
  stop_below: f32,
}

fn start_pixel(tile: vec2<u32>, local: vec2<u32>) -> Pixel {
  var px: Pixel;
  let size = vec2<u32>(frame.viewport);
  px.xy = tile * TILE_SIZE + local;
  px.inside = all(px.xy < size);
  let half_view = 0.5 * frame.viewport;
  px.p = vec2<f32>(f32(px.xy.x) + 0.5 - half_view.x, half_view.y - f32(px.xy.y) - 0.5);
  px.transmittance = 1.0;
  px.color = vec3<f32>(0.0);
  px.done = !px.inside;
  px.before = 1.0;
  px.stop_below = T_STOP;
  if (px.done) {
    atomicAdd(&pixels_done, 1u);
  }
  return px;
}

// Why the workgroup stops (the same in every invocation): TILE_OPEN not
// yet, TILE_OPAQUE every pixel has stopped, EARLIER_OPAQUE an earlier chunk
// of its run has left every pixel opaque (the merge then reads nothing of
// this one).
const TILE_OPEN: u32 = 0u;
const TILE_OPAQUE: u32 = 1u;
const EARLIER_OPAQUE: u32 = 2u;

fn tile_done(lid: u32, work: Work) -> u32 {
  if (lid == 0u) {
    var done = select(TILE_OPEN, TILE_OPAQUE, atomicLoad(&pixels_done) == TILE_SIZE * TILE_SIZE);
    if (cut_runs && work.chunk > 0u && atomicLoad(&chunk_words[split_word(work.split) + 3u]) < work.chunk) {
      done = EARLIER_OPAQUE;
    }
    all_done = done;
  }
  return workgroupUniformLoad(&all_done);
}

// The pixel's `before` from the chunks of its run before this one that
// have published (transmittance_word); it stops where they leave it
// opaque, or where one of them stopped it.
fn look_back(px: ptr<function, Pixel>, work: Work, lid: u32) {
  let first = work.partial - work.chunk;
  var before = 1.0;
  var stopped = false;
  for (var k = 0u; k < work.chunk; k++) {
    let word = atomicLoad(&chunk_words[transmittance_word(first + k, lid)]);
    if (word != 0u) {
      let t = bitcast<f32>(word);
      before *= abs(t);
      stopped = stopped || t < 0.0;
    }
  }
  (*px).before = before;
  (*px).stop_below = T_STOP / before;
  if (stopped || before * (*px).transmittance < T_STOP) {
    (*px).done = true;
    atomicAdd(&pixels_done, 1u);
  }
}

// Writes the pixel: into the picture when its tile's run is one chunk,
// else into the chunk's partial (tile_merge.wgsl blends them), and where
// every pixel has stopped, the run is marked opaque from this chunk on
// (the later chunks stop). Called by every invocation, after a barrier.
fn finish_pixel(px: Pixel, work: Work, lid: u32, cut_short: bool) {
  if (!cut_runs || work.split == NO_SPLIT) {
    if (px.inside) {
      let background = vec3<f32>(state.background_r, state.background_g, state.background_b);
      textureStore(picture, px.xy, vec4<f32>(px.color + px.transmittance * background, 1.0));
    }
    return;
  }
  let left = select(px.transmittance, -px.transmittance, px.done && px.inside);
  partials[work.partial * TILE_SIZE * TILE_SIZE + lid] = vec4<f32>(px.color, left);
  // A chunk cut short by an earlier one's opacity is never read: it publishes nothing.
  if (!cut_short) {
    atomicStore(&chunk_words[transmittance_word(work.partial, lid)], bitcast<u32>(left));
  }
  if (lid == 0u && atomicLoad(&pixels_done) == TILE_SIZE * TILE_SIZE) {
    atomicMin(&chunk_words[split_word(work.split) + 3u], work.chunk);
  }
}

// A frame whose pairs did not fit: each tile of the grid gets the
// background, which the fallback quads are drawn over (the picture may be
// the output itself, src/render/tiles/tile-painter.ts).
fn write_background(wid: vec3<u32>, lid: u32) {
  let grid = tile_grid();
  if (wid.y >= grid.y) {
    return;
  }
  let tile = flat_group(wid, grid.x);
  let xy = vec2<u32>(tile % grid.x, tile / grid.x) * TILE_SIZE + tile_pixel(lid);
  if (all(xy < vec2<u32>(frame.viewport))) {
    textureStore(picture, xy, vec4<f32>(state.background_r, state.background_g, state.background_b, 1.0));
  }
}

@compute @workgroup_size(TILE_SIZE * TILE_SIZE)
fn main(
  @builtin(workgroup_id) wid: vec3<u32>,
  @builtin(local_invocation_index) lid: u32,
) {
  if (state.total > state.capacity) {
    write_background(wid, lid);
    return;
  }
  let work = workgroup_work(wid, lid);
  if (work.tile == NO_SPLIT) {
    return;
  }
  let run = chunk_run(work);
  var px = start_pixel(run.tile, tile_pixel(lid));
  let lists = walk_lists;
  let own_block = pixel_block(lid) * (raster_batch / 32u);
  // {{start}}
  var cut_short = false;
  for (var start = 0u; start < run.count; start += raster_batch) {
    let done = tile_done(lid, work);
    if (done != TILE_OPEN) {
      cut_short = done == EARLIER_OPAQUE;
      break;
    }
    if (lid < raster_batch) {
      if (start + lid < run.count) {
        let id = load_footprint(run, start + lid, lid, lists);
        // {{load}}
      } else {
        // Past the run's end: a footprint of alpha 0, which the walk's
        // groups of ARRIVALS may meet, and which changes nothing.
        batch_look[lid].w = NO_OPACITY;
        if (lists) {
          batch_mask[lid] = 0u;
        }
      }
    }
    workgroupBarrier();
    let batch = min(raster_batch, run.count - start);
    if (lists) {
      list_blocks(lid, batch);
      workgroupBarrier();
    }
    if (lists && !LISTS_BY_GROUPS) {
      // The batch splats that reach the pixel's block, front to back.
      for (var g = 0u; g < (batch + 31u) / 32u && !px.done; g++) {
        var bits = block_bits[own_block + g];
        for (; bits != 0u && !px.done; ) {
          var arrivals: array<u32, ARRIVALS>;
          var alphas: array<f32, ARRIVALS>;
          for (var k = 0u; k < ARRIVALS; k++) {
            let listed = bits != 0u;
            arrivals[k] = 32u * g + select(0u, firstTrailingBit(bits), listed);
            bits &= bits - 1u;
            alphas[k] = select(0.0, alpha_at(arrivals[k], px.p), listed);
          }
          for (var k = 0u; k < ARRIVALS; k++) {
            let j = arrivals[k];
            let alpha = alphas[k];
            // {{arrive}}
          }
        }
      }
    } else {
      for (var first = 0u; first < batch && !px.done; first += ARRIVALS) {
        // With lists, a group of which no splat reaches the pixel's block is skipped.
        if (lists && ((block_bits[own_block + first / 32u] >> (first % 32u)) & ((1u << ARRIVALS) - 1u)) == 0u) {
          continue;
        }
        var alphas: array<f32, ARRIVALS>;
        for (var k = 0u; k < ARRIVALS; k++) {
          alphas[k] = alpha_at(first + k, px.p);
        }
        for (var k = 0u; k < ARRIVALS; k++) {
          let j = first + k;
          let alpha = alphas[k];
          // {{arrive}}
        }
      }
    }
    if (cut_runs && state.chunk_look_back != 0u && work.chunk > 0u && !px.done) {
      look_back(&px, work, lid);
    }
    // The batch is read by all before the next one overwrites it.
    workgroupBarrier();
  }
  // {{finish}}
  if (cut_runs) {
    // Every pixel's stop counted before the count is read.
    workgroupBarrier();
  }
  finish_pixel(px, work, lid, cut_short);
}
