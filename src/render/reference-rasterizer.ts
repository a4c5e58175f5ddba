/**
 * A CPU renderer that follows the reference 3D Gaussian Splatting
 * rasterizer (the INRIA forward pass) rule for rule, to measure the GPU
 * picture against: per pixel, front to back, float32 accumulation. DOM-free
 * and GPU-free; the tests and `npm run render -- --reference` use it.
 *
 * The rules, in the reference's order:
 * - per splat: culled when its view depth is ≤ 0.2; Σ = R S Sᵀ Rᵀ (S times
 *   the splat scale); the 2D covariance J W Σ Wᵀ Jᵀ + 0.3 on the diagonal,
 *   with the point used for J clamped to 1.3·tan(fov/2) in x and y;
 *   skipped when its determinant is 0; the conic is its inverse; the
 *   radius is ceil(3·sqrt(λmax)) with λ = mid ± sqrt(max(0.1, mid² − det));
 *   the splat is listed in every 16×16 tile of the rectangle that square
 *   touches (the reference's getRect; a splat whose rectangle is empty is
 *   dropped); the colour is the SH sum + 0.5 clamped at 0 (not above), with
 *   the view direction normalize(centre − eye);
 * - per pixel (centres at integer coordinates, the reference's ndc2Pix): the
 *   splats of its tile by increasing depth (ties in splat order, as the
 *   reference's stable radix sort of tile/depth keys leaves them); power =
 *   −½ dᵀ conic d, skipped above 0; alpha = min(0.99, opacity·e^power),
 *   skipped under 1/255; the pixel stops, without that splat, once
 *   T·(1 − alpha) < 1e-4; C += colour·alpha·T; the result is C + T·bg.
 *
 * Cameras. The reference's camera looks down +z with y down (x right); the
 * viewer's (a gl-matrix lookAt) looks down −z with y up. The two differ by
 * a half turn about x: the view-space point (x, y, z) of the viewer is
 * (x, −y, −z) in the reference's camera. That turn is a rotation, so Σ's
 * projection is the same ellipse, and with y down the reference's rows
 * count from the top, as a WebGPU framebuffer's do: pictures compare pixel
 * for pixel. The reference projects with a symmetric frustum, so its
 * ndc2Pix((P·p).x) = ((x/(z·tanX) + 1)·W − 1)/2 is focalX·x/z + W/2 − 0.5
 * with focalX = W/(2·tanX) (its 1e-7 guard on w moves a centre by under
 * 1e-5 px and is left out); the focal lengths and tan(fov/2) are the
 * frame's (src/render/frame-uniforms.ts: vertical fov from the camera,
 * horizontal from the aspect). The viewer's projection may be shifted
 * (src/app/camera/orbit-camera.ts, a lens shift beside overlays): x_ndc gets
 * −shift, which the reference, given that projection matrix, would carry
 * into ndc2Pix as −shift·W/2; `shiftNdc` is that shift (0 by default), and
 * `shiftNdcY` the vertical one (y_ndc gets −shiftY: +shiftY·H/2 in rows
 * counted from the top). A shift moves the picture in the image plane and
 * leaves the EWA Jacobian as it is; its clamp stays symmetric about the
 * view axis, as the reference's tan(fov/2) is.
 *
 * Precision: what the kernel keeps in float32 registers across splats (T,
 * the colour sums, alpha) is rounded to float32 at every step, so the
 * accumulation behaves as the reference's does; a single expression (the
 * power, the projection) is evaluated in double and rounded once, about as
 * close to the reference's float32 bits as its own fused multiply-adds
 * leave them. Per-splat values are rounded where the reference stores them
 * or decides on them (depth, centre, conic, radius, the rectangle).
 */
import { mat4, type ReadonlyVec3 } from 'gl-matrix';
import { shCoefficients, type SplatCloud } from '../scene/splat-cloud';
import { CLASSIC_FILTER, type ScreenFilter } from '../scene/anti-aliasing';
import { RAY_SHAPE_VALUES, writeRayShape } from './reference-ray-shape';

/** What the per-splat projection needs of a view: the geometry the GPU frame takes. */
export interface ReferenceProjection {
  /** World → view (gl-matrix lookAt convention: looking down −z, y up). */
  view: mat4;
  eye: ReadonlyVec3;
  /** Vertical field of view, radians; the horizontal one follows from the aspect. */
  fovY: number;
  width: number;
  height: number;
  /** The projection's horizontal shift in NDC (the viewer's projectionMatrix()[8]); 0 by default. */
  shiftNdc?: number;
  /** Its vertical shift in NDC (projectionMatrix()[9]); 0 by default. */
  shiftNdcY?: number;
  splatScale?: number;
  /** The screen filter; the reference's own (+0.3 px², no compensation) by default. */
  screenFilter?: ScreenFilter;
}

/** What the reference needs of a view: the parameters the GPU frame takes, and the background. */
export interface ReferenceView extends ReferenceProjection {
  /** SH bands evaluated (the scene's own degree caps it). */
  shDegree: number;
  background: readonly [number, number, number];
}

export interface ReferencePicture {
  width: number;
  height: number;
  /** width·height RGB triples, rows top to bottom, linear 0..1 (not clamped above). */
  rgb: Float32Array;
}

/** The reference's tile size in pixels (BLOCK_X = BLOCK_Y). */
export const TILE = 16;
const NEAR = 0.2;
const ALPHA_MAX = 0.99;
/** A splat whose alpha at a pixel is below this is skipped there. */
export const ALPHA_MIN = 1 / 255;
/** A pixel stops, without the splat, once its transmittance would fall under this. */
export const T_STOP = 0.0001;
const SH_C0 = 0.28209479177387814;
const SH_C1 = 0.4886025119029199;
const SH_C2 = [1.0925484305920792, -1.0925484305920792, 0.31539156525252005, -1.0925484305920792, 0.5462742152960396] as const;
const SH_C3 = [-0.5900435899266435, 2.890611442640554, -0.4570457994644658, 0.3731763325901154, -0.4570457994644658, 1.445305721320277, -0.5900435899266435] as const;

const f = Math.fround;

/**
 * How a pixel blends the splats of its tile's list (by increasing centre
 * depth): writes its colour sum and transmittance into out[0..3]. The
 * reference blends them in list order; bench/reference-pixel-order.ts
 * orders them per pixel.
 */
export type PixelBlend = (splats: Preprocessed, list: Int32Array, px: number, py: number, out: Float32Array) => void;

/** An order a reference picture is blended in: whether it needs the splats' ray shapes, and its pixel rule. */
export interface ReferenceOrder {
  rayShapes: boolean;
  blend: PixelBlend;
}

/** The reference's own order: each tile's list, by increasing centre depth. */
export const CENTRE_DEPTH_ORDER: ReferenceOrder = { rayShapes: false, blend: blendInListOrder };

/** Renders `cloud` from frame parameters (a view matrix; cli/reference-camera.ts takes a camera file). */
export function renderReference(cloud: SplatCloud, view: ReferenceView, order: ReferenceOrder = CENTRE_DEPTH_ORDER): ReferencePicture {
  const { width, height } = view;
  const tilesX = Math.ceil(width / TILE);
  const tilesY = Math.ceil(height / TILE);
  const splats = preprocess(cloud, view, { shDegree: view.shDegree, rayShapes: order.rayShapes });
  const lists = binByTile(splats, tilesX, tilesY);

  const rgb = new Float32Array(width * height * 3);
  const [bgR, bgG, bgB] = view.background;
  const sum = new Float32Array(4);
  for (let ty = 0; ty < tilesY; ty++) {
    for (let tx = 0; tx < tilesX; tx++) {
      const list = lists[ty * tilesX + tx]!;
      for (let py = ty * TILE; py < Math.min(height, (ty + 1) * TILE); py++) {
        for (let px = tx * TILE; px < Math.min(width, (tx + 1) * TILE); px++) {
          order.blend(splats, list, px, py, sum);
          const T = sum[3]!;
          const at = 3 * (py * width + px);
          rgb[at] = sum[0]! + T * bgR;
          rgb[at + 1] = sum[1]! + T * bgG;
          rgb[at + 2] = sum[2]! + T * bgB;
        }
      }
    }
  }
  return { width, height, rgb };
}

/** The reference's pixel: its tile's list front to back, stopping once opaque. */
function blendInListOrder(splats: Preprocessed, list: Int32Array, px: number, py: number, out: Float32Array): void {
  const { color } = splats;
  let T = 1;
  let r = 0;
  let g = 0;
  let b = 0;
  for (let n = 0; n < list.length; n++) {
    const k = list[n]!;
    const alpha = alphaAt(splats, k, px, py);
    if (alpha < ALPHA_MIN) continue;
    const nextT = f(T * f(1 - alpha));
    if (nextT < T_STOP) break;
    const w = f(alpha * T);
    r = f(r + f(color[3 * k]! * w));
    g = f(g + f(color[3 * k + 1]! * w));
    b = f(b + f(color[3 * k + 2]! * w));
    T = nextT;
  }
  out[0] = r;
  out[1] = g;
  out[2] = b;
  out[3] = T;
}

/**
 * Kept splat k's alpha at the pixel centred at (px, py), as the reference
 * blends it: min(0.99, opacity·e^power), power = −½ dᵀ conic d; 0 where
 * power > 0, which the reference skips.
 */
export function alphaAt(splats: Preprocessed, k: number, px: number, py: number): number {
  const { xy, conic, opacity } = splats;
  const dx = f(xy[2 * k]! - px);
  const dy = f(xy[2 * k + 1]! - py);
  const cxx = conic[3 * k]!, cxy = conic[3 * k + 1]!, cyy = conic[3 * k + 2]!;
  const power = f(-0.5 * (cxx * dx * dx + cyy * dy * dy) - cxy * dx * dy);
  if (power > 0) return 0;
  return Math.min(ALPHA_MAX, f(opacity[k]! * f(Math.exp(power))));
}

/** The kept splats' per-splat results, as the reference's preprocess writes them. */
export interface Preprocessed {
  count: number;
  /** The cloud's index of each kept splat (increasing). */
  splat: Int32Array;
  depth: Float32Array;
  /** Centre in pixels (x right, y down; pixel centres at integers). */
  xy: Float32Array;
  /** Inverse 2D covariance: xx, xy, yy. */
  conic: Float32Array;
  opacity: Float32Array;
  /** RGB per kept splat; empty when no shDegree was asked for. */
  color: Float32Array;
  /** Tile rectangle: min x, min y, max x, max y (max exclusive). */
  rect: Int32Array;
  /** With `rayShapes`: per kept splat, its ray shape (reference-ray-shape.ts, RAY_SHAPE_VALUES each). Empty otherwise. */
  rayShape: Float64Array;
  /** Pixel (px, py)'s ray in the reference camera: ((px − x0) / focalX, (py − y0) / focalY, 1), as [x0, y0, focalX, focalY]. */
  pixelRays: readonly [number, number, number, number];
}

export interface PreprocessOptions {
  /** SH bands of the colour (the scene's own degree caps them); without it no colour is worked out. */
  shDegree?: number;
  /** The splats to project, in increasing index order; all of them by default. */
  splats?: ArrayLike<number>;
  /** Work out each kept splat's ray shape too (the per-pixel order). */
  rayShapes?: boolean;
}

/**
 * Each tile's splats by increasing depth, ties in splat order: the order the
 * reference's stable sort of (tile << 32 | depth bits) keys gives, its
 * splats listed in index order before the sort.
 */
export function binByTile(splats: Preprocessed, tilesX: number, tilesY: number): Int32Array[] {
  const { count, rect, depth } = splats;
  const lists: number[][] = Array.from({ length: tilesX * tilesY }, () => []);
  for (let k = 0; k < count; k++) {
    for (let ty = rect[4 * k + 1]!; ty < rect[4 * k + 3]!; ty++) {
      for (let tx = rect[4 * k]!; tx < rect[4 * k + 2]!; tx++) lists[ty * tilesX + tx]!.push(k);
    }
  }
  // Kept splats are numbered in splat order, so k breaks ties as the splat index does.
  return lists.map((list) => Int32Array.from(list.sort((a, b) => depth[a]! - depth[b]! || a - b)));
}

/**
 * The reference's per-splat pass over `cloud` (or the listed splats): what
 * it keeps, and where and how each kept splat lands on the view's tile grid.
 */
export function preprocess(cloud: SplatCloud, view: ReferenceProjection, options: PreprocessOptions = {}): Preprocessed {
  const listed = options.splats;
  const n = listed ? listed.length : cloud.count;
  const withColor = options.shDegree !== undefined;
  const out: Preprocessed = {
    count: 0,
    splat: new Int32Array(n),
    depth: new Float32Array(n),
    xy: new Float32Array(2 * n),
    conic: new Float32Array(3 * n),
    opacity: new Float32Array(n),
    color: new Float32Array(withColor ? 3 * n : 0),
    rect: new Int32Array(4 * n),
    rayShape: new Float64Array(options.rayShapes ? RAY_SHAPE_VALUES * n : 0),
    pixelRays: [0, 0, 1, 1],
  };
  const tilesX = Math.ceil(view.width / TILE);
  const tilesY = Math.ceil(view.height / TILE);
  const v = view.view;
  // Rows of the reference camera's rotation W: the viewer's view rows with y and z negated (gl-matrix is column-major).
  const w0 = v[0]!, w1 = v[4]!, w2 = v[8]!;
  const w3 = -v[1]!, w4 = -v[5]!, w5 = -v[9]!;
  const w6 = -v[2]!, w7 = -v[6]!, w8 = -v[10]!;
  const t0 = v[12]!, t1 = -v[13]!, t2 = -v[14]!;
  const tanY = Math.tan(view.fovY / 2);
  const tanX = tanY * (view.width / view.height);
  const focalX = view.width / (2 * tanX);
  const focalY = view.height / (2 * tanY);
  const limX = 1.3 * tanX;
  const limY = 1.3 * tanY;
  // ndc2Pix of a shifted projection: x_ndc − shift lands shift·W/2 pixels to the left.
  const shiftPx = ((view.shiftNdc ?? 0) * view.width) / 2;
  const shiftRows = ((view.shiftNdcY ?? 0) * view.height) / 2;
  // The ray through pixel (px, py) is where ndc2Pix puts x/z = (px − x0) / focalX.
  out.pixelRays = [view.width / 2 - 0.5 - shiftPx, view.height / 2 - 0.5 + shiftRows, focalX, focalY];
  const scale = view.splatScale ?? 1;
  const filter = view.screenFilter ?? CLASSIC_FILTER;
  const degree = Math.min(options.shDegree ?? 0, cloud.shDegree);
  const K = shCoefficients(cloud.shDegree);
  const { positions: p, scales: s, rotations: q } = cloud;

  for (let m = 0; m < n; m++) {
    const i = listed ? listed[m]! : m;
    const x = p[3 * i]!, y = p[3 * i + 1]!, z = p[3 * i + 2]!;
    const cx = w0 * x + w1 * y + w2 * z + t0;
    const cy = w3 * x + w4 * y + w5 * z + t1;
    const cz = w6 * x + w7 * y + w8 * z + t2;
    const depth = f(cz);
    if (depth <= NEAR) continue;

    // M = R S (R from the unit quaternion w x y z, S the scales): Σ = M Mᵀ.
    const qw = q[4 * i]!, qx = q[4 * i + 1]!, qy = q[4 * i + 2]!, qz = q[4 * i + 3]!;
    const sx = scale * s[3 * i]!, sy = scale * s[3 * i + 1]!, sz = scale * s[3 * i + 2]!;
    const m00 = (1 - 2 * (qy * qy + qz * qz)) * sx, m01 = 2 * (qx * qy - qw * qz) * sy, m02 = 2 * (qx * qz + qw * qy) * sz;
    const m10 = 2 * (qx * qy + qw * qz) * sx, m11 = (1 - 2 * (qx * qx + qz * qz)) * sy, m12 = 2 * (qy * qz - qw * qx) * sz;
    const m20 = 2 * (qx * qz - qw * qy) * sx, m21 = 2 * (qy * qz + qw * qx) * sy, m22 = (1 - 2 * (qx * qx + qy * qy)) * sz;

    // The two rows of J W, J taken at the point clamped to 1.3 tan(fov/2) (J's third row is 0).
    const jx = Math.min(limX, Math.max(-limX, cx / cz)) * cz;
    const jy = Math.min(limY, Math.max(-limY, cy / cz)) * cz;
    const j00 = focalX / cz, j02 = -(focalX * jx) / (cz * cz);
    const j11 = focalY / cz, j12 = -(focalY * jy) / (cz * cz);
    const a0 = j00 * w0 + j02 * w6, a1 = j00 * w1 + j02 * w7, a2 = j00 * w2 + j02 * w8;
    const b0 = j11 * w3 + j12 * w6, b1 = j11 * w4 + j12 * w7, b2 = j11 * w5 + j12 * w8;
    // (J W M)(J W M)ᵀ = J W Σ Wᵀ Jᵀ, then the screen filter (the reference's +0.3 px² dilation by default).
    const am0 = a0 * m00 + a1 * m10 + a2 * m20, am1 = a0 * m01 + a1 * m11 + a2 * m21, am2 = a0 * m02 + a1 * m12 + a2 * m22;
    const bm0 = b0 * m00 + b1 * m10 + b2 * m20, bm1 = b0 * m01 + b1 * m11 + b2 * m21, bm2 = b0 * m02 + b1 * m12 + b2 * m22;
    const rawXX = f(am0 * am0 + am1 * am1 + am2 * am2);
    const rawYY = f(bm0 * bm0 + bm1 * bm1 + bm2 * bm2);
    const covXX = f(rawXX + filter.variance);
    const covXY = f(am0 * bm0 + am1 * bm1 + am2 * bm2);
    const covYY = f(rawYY + filter.variance);

    const det = f(f(covXX * covYY) - f(covXY * covXY));
    if (det === 0) continue;
    // An anti-aliased trainer's opacity compensation: the splat keeps its integral through the blur.
    const compensation = filter.compensate ? f(Math.sqrt(Math.max(0, f(f(rawXX * rawYY) - f(covXY * covXY))) / det)) : 1;
    const detInv = f(1 / det);
    const mid = f(0.5 * f(covXX + covYY));
    const spread = f(Math.sqrt(Math.max(0.1, f(f(mid * mid) - det))));
    // λ1 = mid + spread is the larger: spread ≥ 0.
    const radius = Math.ceil(f(3 * f(Math.sqrt(f(mid + spread)))));
    // ndc2Pix, in the pixel frame of the reference (y down): pixel centres at integers.
    const imageX = f(focalX * (cx / cz) + view.width / 2 - 0.5 - shiftPx);
    const imageY = f(focalY * (cy / cz) + view.height / 2 - 0.5 + shiftRows);
    // getRect: float arithmetic, truncated toward zero, clamped to the grid.
    const minX = Math.min(tilesX, Math.max(0, Math.trunc(f(f(imageX - radius) / TILE))));
    const minY = Math.min(tilesY, Math.max(0, Math.trunc(f(f(imageY - radius) / TILE))));
    const maxX = Math.min(tilesX, Math.max(0, Math.trunc(f(f(f(imageX + radius) + (TILE - 1)) / TILE))));
    const maxY = Math.min(tilesY, Math.max(0, Math.trunc(f(f(f(imageY + radius) + (TILE - 1)) / TILE))));
    if ((maxX - minX) * (maxY - minY) === 0) continue;

    const k = out.count++;
    out.splat[k] = i;
    out.depth[k] = depth;
    out.xy[2 * k] = imageX;
    out.xy[2 * k + 1] = imageY;
    out.conic[3 * k] = covYY * detInv;
    out.conic[3 * k + 1] = -covXY * detInv;
    out.conic[3 * k + 2] = covXX * detInv;
    out.opacity[k] = filter.compensate ? f(cloud.opacities[i]! * compensation) : cloud.opacities[i]!;
    out.rect[4 * k] = minX;
    out.rect[4 * k + 1] = minY;
    out.rect[4 * k + 2] = maxX;
    out.rect[4 * k + 3] = maxY;
    if (withColor) shColor(cloud, i, K, degree, view.eye, out.color, 3 * k);
    if (options.rayShapes) {
      // Σ in the camera: (W M)(W M)ᵀ.
      const e0 = w0 * m00 + w1 * m10 + w2 * m20, e1 = w0 * m01 + w1 * m11 + w2 * m21, e2 = w0 * m02 + w1 * m12 + w2 * m22;
      const g0 = w3 * m00 + w4 * m10 + w5 * m20, g1 = w3 * m01 + w4 * m11 + w5 * m21, g2 = w3 * m02 + w4 * m12 + w5 * m22;
      const h0 = w6 * m00 + w7 * m10 + w8 * m20, h1 = w6 * m01 + w7 * m11 + w8 * m21, h2 = w6 * m02 + w7 * m12 + w8 * m22;
      const sxx = e0 * e0 + e1 * e1 + e2 * e2, sxy = e0 * g0 + e1 * g1 + e2 * g2, sxz = e0 * h0 + e1 * h1 + e2 * h2;
      const syy = g0 * g0 + g1 * g1 + g2 * g2, syz = g0 * h0 + g1 * h1 + g2 * h2, szz = h0 * h0 + h1 * h1 + h2 * h2;
      writeRayShape(out.rayShape, k, sxx, sxy, sxz, syy, syz, szz, cx, cy, cz);
    }
  }
  return out;
}

/** The SH colour of splat `i` seen from `eye`, +0.5 and clamped at 0, into out[at..at+2]. */
function shColor(cloud: SplatCloud, i: number, K: number, degree: number, eye: ReadonlyVec3, out: Float32Array, at: number): void {
  let dx = cloud.positions[3 * i]! - eye[0]!;
  let dy = cloud.positions[3 * i + 1]! - eye[1]!;
  let dz = cloud.positions[3 * i + 2]! - eye[2]!;
  const length = Math.hypot(dx, dy, dz);
  dx /= length;
  dy /= length;
  dz /= length;
  const basis = [SH_C0];
  if (degree > 0) basis.push(-SH_C1 * dy, SH_C1 * dz, -SH_C1 * dx);
  if (degree > 1) {
    const xx = dx * dx, yy = dy * dy, zz = dz * dz;
    basis.push(SH_C2[0] * dx * dy, SH_C2[1] * dy * dz, SH_C2[2] * (2 * zz - xx - yy), SH_C2[3] * dx * dz, SH_C2[4] * (xx - yy));
    if (degree > 2) {
      basis.push(
        SH_C3[0] * dy * (3 * xx - yy),
        SH_C3[1] * dx * dy * dz,
        SH_C3[2] * dy * (4 * zz - xx - yy),
        SH_C3[3] * dz * (2 * zz - 3 * xx - 3 * yy),
        SH_C3[4] * dx * (4 * zz - xx - yy),
        SH_C3[5] * dz * (xx - yy),
        SH_C3[6] * dx * (xx - 3 * yy),
      );
    }
  }
  for (let c = 0; c < 3; c++) {
    let sum = basis[0]! * cloud.dc[3 * i + c]!;
    // SplatCloud keeps the higher bands coefficient-major, RGB inside (the reference's sh[k] is one RGB triple too).
    for (let k = 1; k < basis.length; k++) sum += basis[k]! * cloud.sh[(i * K + k - 1) * 3 + c]!;
    out[at + c] = Math.max(0, sum + 0.5);
  }
}
