// Tile raster: one workgroup per 16×16 tile, an invocation per pixel. The
// tile's pairs (sorted by tile, each tile's run back to front) are read
// from the run's end, so splats blend front to back; batches of RASTER_BATCH
// footprints go through workgroup memory, each loaded once for all 256
// pixels. The rules are the reference rasterizer's: alpha =
// min(0.99, opacity * gaussian), nothing under 1/255, and a pixel stops,
// without that splat, once its transmittance would fall under 1e-4; the
// workgroup stops when all its pixels have. The sum stays in f32 registers
// and each pixel is written once: colour + transmittance * background.
//
// A frame whose pairs did not fit (total > capacity) writes nothing: the
// quads drew it just before (src/render/tiles/tile-renderer.ts), so no
// tile is ever shown with pairs missing, and the buffers grow for the next
// frame. PICTURE_FORMAT is set when the module is made.
// Slots: TILE_RASTER_SLOTS.

@group(0) @binding(0) var<uniform> frame: Frame;
@group(0) @binding(1) var<storage, read> state: TileState;
@group(0) @binding(2) var<storage, read> ranges: array<vec2<u32>>;
@group(0) @binding(3) var<storage, read> sorted_splats: array<u32>;
@group(0) @binding(4) var<storage, read> records: array<ProjectedSplat>;
@group(0) @binding(5) var picture: texture_storage_2d<PICTURE_FORMAT, write>;

const RASTER_BATCH: u32 = TILE_SIZE * TILE_SIZE;
const ALPHA_MAX: f32 = 0.99;
const ALPHA_MIN: f32 = 1.0 / 255.0;
const T_STOP: f32 = 1e-4;

// A batch of footprints, as the pixel loop reads them (14 floats each:
// 14 KiB of the 16 KiB every device gives a workgroup).
var<workgroup> batch_centre_mid: array<vec4<f32>, RASTER_BATCH>;
var<workgroup> batch_to_sigma: array<vec4<f32>, RASTER_BATCH>;
var<workgroup> batch_look: array<vec4<f32>, RASTER_BATCH>;
var<workgroup> batch_half: array<vec2<f32>, RASTER_BATCH>;
var<workgroup> pixels_done: atomic<u32>;
var<workgroup> all_done: u32;

@compute @workgroup_size(TILE_SIZE, TILE_SIZE)
fn main(
  @builtin(workgroup_id) wid: vec3<u32>,
  @builtin(local_invocation_id) local: vec3<u32>,
  @builtin(local_invocation_index) lid: u32,
) {
  if (state.total > state.capacity) {
    return;
  }
  let size = vec2<u32>(frame.viewport);
  let pixel = wid.xy * TILE_SIZE + local.xy;
  let inside = all(pixel < size);
  let half_view = 0.5 * frame.viewport;
  let p = vec2<f32>(f32(pixel.x) + 0.5 - half_view.x, half_view.y - f32(pixel.y) - 0.5);
  let range = ranges[wid.y * tile_grid().x + wid.x];
  let count = select(0u, range.y - range.x, range.y > range.x);

  var transmittance = 1.0;
  var color = vec3<f32>(0.0);
  var done = !inside;
  if (done) {
    atomicAdd(&pixels_done, 1u);
  }
  for (var start = 0u; start < count; start += RASTER_BATCH) {
    if (lid == 0u) {
      all_done = select(0u, 1u, atomicLoad(&pixels_done) == RASTER_BATCH);
    }
    if (workgroupUniformLoad(&all_done) != 0u) {
      break;
    }
    let k = start + lid;
    if (k < count) {
      let f = footprint(records[sorted_splats[range.y - 1u - k]]);
      batch_centre_mid[lid] = vec4<f32>(f.centre, f.mid);
      batch_to_sigma[lid] = vec4<f32>(f.to_sigma_x, f.to_sigma_y);
      batch_look[lid] = vec4<f32>(f.color, f.opacity);
      batch_half[lid] = f.half;
    }
    workgroupBarrier();
    let batch = min(RASTER_BATCH, count - start);
    if (!done) {
      for (var j = 0u; j < batch; j++) {
        let centre_mid = batch_centre_mid[j];
        let to_sigma = batch_to_sigma[j];
        let d = p - centre_mid.xy;
        let along = vec2<f32>(dot(d, to_sigma.xy), dot(d, to_sigma.zw));
        if (any(abs(along) > batch_half[j])) {
          continue;  // outside the quad
        }
        let sigma = centre_mid.zw + along;
        let look = batch_look[j];
        let alpha = min(ALPHA_MAX, look.w * exp(-0.5 * dot(sigma, sigma)));
        if (alpha < ALPHA_MIN) {
          continue;
        }
        let next = transmittance * (1.0 - alpha);
        if (next < T_STOP) {
          done = true;
          atomicAdd(&pixels_done, 1u);
          break;
        }
        color += look.rgb * (alpha * transmittance);
        transmittance = next;
      }
    }
    // The batch is read by all before the next one overwrites it.
    workgroupBarrier();
  }
  if (inside) {
    let background = vec3<f32>(state.background_r, state.background_g, state.background_b);
    textureStore(picture, pixel, vec4<f32>(color + transmittance * background, 1.0));
  }
}
