// A projected splat's footprint on the tile renderer's screen tiles (where
// it draws), with the test binning runs against each tile. The binning's count
// and write dispatches call the same test, so they agree by construction;
// the raster evaluates the footprint per pixel exactly as the quad path's
// fragment does (shaders/splat_render.wgsl), so a pixel the raster blends
// lies in a tile the binning gave the splat.
//
// Pixel (x, y) of the window (y down) has its centre at
// (x + 0.5 - w/2, h/2 - y - 0.5) in the projector's coordinates (pixels
// from the window's middle, y up): where the quad path's rasterizer samples.

// Tiles across and down the window.
fn tile_grid() -> vec2<u32> {
  return (vec2<u32>(frame.viewport) + TILE_SIZE - 1u) / TILE_SIZE;
}

// A splat as the raster and the binning see it. The quad path's corner
// c = (±1, ±1) lies at centre + c.x * edge_x + c.y * edge_y and carries the
// Gaussian's offset sigma_lo (c = -1) or sigma_hi (c = +1) along the
// ellipse's axes, interpolated linearly between; so at a point p the
// offset is mid + (dot(p - centre, to_sigma_x), dot(p - centre, to_sigma_y)),
// inside the quad where each term stays within half.
struct Footprint {
  centre: vec2<f32>,
  edge_x: vec2<f32>,
  edge_y: vec2<f32>,
  to_sigma_x: vec2<f32>,   // edge_x * half.x / |edge_x|²
  to_sigma_y: vec2<f32>,
  mid: vec2<f32>,          // the offset at the centre
  half: vec2<f32>,         // the quad's half-size, in standard deviations
  color: vec3<f32>,
  opacity: f32,            // 0: draws nothing (culled, or no area)
}

fn footprint(r: ProjectedSplat) -> Footprint {
  var f: Footprint;
  f.centre = r.centre;
  f.edge_x = unpack2x16float(r.edges.x);
  f.edge_y = unpack2x16float(r.edges.y);
  let lo = unpack2x16float(r.sigma_box.x);
  let hi = unpack2x16float(r.sigma_box.y);
  f.mid = 0.5 * (lo + hi);
  f.half = 0.5 * (hi - lo);
  let look = vec4<f32>(unpack2x16float(r.look.x), unpack2x16float(r.look.y));
  f.color = look.rgb;
  let lx = dot(f.edge_x, f.edge_x);
  let ly = dot(f.edge_y, f.edge_y);
  // A quad without area draws no fragment on the quad path either.
  f.opacity = select(0.0, look.w, lx > 0.0 && ly > 0.0);
  f.to_sigma_x = f.edge_x * (f.half.x / max(lx, 1e-30));
  f.to_sigma_y = f.edge_y * (f.half.y / max(ly, 1e-30));
  return f;
}

// The pixel centres a tile holds, as a rectangle: its middle and half-size.
struct TileRect {
  mid: vec2<f32>,
  half: vec2<f32>,
}

fn tile_rect(tile: vec2<u32>) -> TileRect {
  let size = vec2<u32>(frame.viewport);
  let first = tile * TILE_SIZE;
  let last = min(first + TILE_SIZE - 1u, size - 1u);
  let half_view = 0.5 * frame.viewport;
  // x grows with the pixel column, y falls with the row.
  let x0 = f32(first.x) + 0.5 - half_view.x;
  let x1 = f32(last.x) + 0.5 - half_view.x;
  let y0 = half_view.y - f32(last.y) - 0.5;
  let y1 = half_view.y - f32(first.y) - 0.5;
  return TileRect(vec2<f32>(0.5 * (x0 + x1), 0.5 * (y0 + y1)), vec2<f32>(0.5 * (x1 - x0), 0.5 * (y1 - y0)));
}

// Slack of the tests below, in pixels and in squared standard deviations:
// far above f32 rounding at window scales, far below a pixel.
const TOUCH_SLACK_PX: f32 = 1e-2;
const TOUCH_SLACK_SIGMA2: f32 = 1e-3;

// Whether the splat can blend a pixel of the tile: its quad overlaps the
// tile's rectangle (separating axes: the window's two and the quad's two),
// and somewhere on that rectangle its Gaussian reaches 1/255, i.e.
// |offset|² <= 2 ln(255 opacity) = reach2. The offset is affine in the
// point, so its smallest norm over the rectangle is a small box-constrained
// least-squares problem: zero if the point of zero offset lies inside,
// else the least of the four edges' (each a clamped 1-D minimum).
fn footprint_touches(f: Footprint, reach2: f32, rect: TileRect) -> bool {
  let d = rect.mid - f.centre;
  let quad_box = abs(f.edge_x) + abs(f.edge_y);
  if (any(abs(d) > quad_box + rect.half + TOUCH_SLACK_PX)) {
    return false;
  }
  let along_x = abs(dot(d, f.edge_x)) - dot(f.edge_x, f.edge_x) - dot(rect.half, abs(f.edge_x));
  let along_y = abs(dot(d, f.edge_y)) - dot(f.edge_y, f.edge_y) - dot(rect.half, abs(f.edge_y));
  if (along_x > TOUCH_SLACK_PX * length(f.edge_x) || along_y > TOUCH_SLACK_PX * length(f.edge_y)) {
    return false;
  }
  // offset(mid + a * half.x * x̂ + b * half.y * ŷ) = s0 + a * u + b * v, a, b in [-1, 1].
  let s0 = f.mid + vec2<f32>(dot(d, f.to_sigma_x), dot(d, f.to_sigma_y));
  let u = rect.half.x * vec2<f32>(f.to_sigma_x.x, f.to_sigma_y.x);
  let v = rect.half.y * vec2<f32>(f.to_sigma_x.y, f.to_sigma_y.y);
  let limit = reach2 * (1.0 + TOUCH_SLACK_SIGMA2) + TOUCH_SLACK_SIGMA2;
  let det = u.x * v.y - u.y * v.x;
  if (abs(det) > 1e-20) {
    let a = (s0.y * v.x - s0.x * v.y) / det;
    let b = (s0.x * u.y - s0.y * u.x) / det;
    if (abs(a) <= 1.0 && abs(b) <= 1.0) {
      return true;
    }
  }
  let uu = max(dot(u, u), 1e-30);
  let vv = max(dot(v, v), 1e-30);
  var least = 3.4e38;
  for (var side = -1.0; side <= 1.0; side += 2.0) {
    let on_a = s0 + side * u;
    let on_b = s0 + side * v;
    let b = clamp(-dot(on_a, v) / vv, -1.0, 1.0);
    let a = clamp(-dot(on_b, u) / uu, -1.0, 1.0);
    let pa = on_a + b * v;
    let pb = on_b + a * u;
    least = min(least, min(dot(pa, pa), dot(pb, pb)));
  }
  return least <= limit;
}

// The pixel columns and rows whose centres the splat's quad box can hold
// (x: columns, y: rows, y down), unclamped: empty where lo > hi.
struct PixelBox {
  lo: vec2<f32>,
  hi: vec2<f32>,
}

fn pixel_box(f: Footprint) -> PixelBox {
  let half_view = 0.5 * frame.viewport;
  let quad_box = abs(f.edge_x) + abs(f.edge_y) + TOUCH_SLACK_PX;
  let col_lo = ceil(f.centre.x - quad_box.x + half_view.x - 0.5);
  let col_hi = floor(f.centre.x + quad_box.x + half_view.x - 0.5);
  let row_lo = ceil(half_view.y - 0.5 - (f.centre.y + quad_box.y));
  let row_hi = floor(half_view.y - 0.5 - (f.centre.y - quad_box.y));
  return PixelBox(vec2<f32>(col_lo, row_lo), vec2<f32>(col_hi, row_hi));
}

// The tiles the splat's quad box covers, clamped to the window: the first
// and last tile column and row (empty when first > last).
struct TileSpan {
  first: vec2<i32>,
  last: vec2<i32>,
}

fn tile_span(f: Footprint) -> TileSpan {
  let size = frame.viewport - 1.0;
  let box = pixel_box(f);
  var span: TileSpan;
  span.first = vec2<i32>(0);
  span.last = vec2<i32>(-1);
  if (any(box.hi < box.lo) || any(box.hi < vec2<f32>(0.0)) || any(box.lo > size)) {
    return span;
  }
  span.first = vec2<i32>(max(box.lo, vec2<f32>(0.0))) / i32(TILE_SIZE);
  span.last = vec2<i32>(min(box.hi, size)) / i32(TILE_SIZE);
  return span;
}

// 2 ln(255 opacity): the squared offset where the Gaussian falls to 1/255
// (negative: never reaches it).
fn footprint_reach2(f: Footprint) -> f32 {
  return select(-1.0, 2.0 * log(255.0 * f.opacity), f.opacity > 0.0);
}
