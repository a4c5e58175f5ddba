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
 *   touches (the reference's getRect: a splat whose rectangle is empty is
 *   dropped); the colour is the SH sum + 0.5 clamped at 0, with the view
 *   direction from the eye;
 * - per pixel (centres at integer coordinates, the reference's ndc2Pix): the
 *   splats of its tile by increasing depth (ties in splat order, as a stable
 *   sort of the reference's tile/depth keys leaves them); power =
 *   −½ dᵀ conic d, skipped above 0; alpha = min(0.99, opacity·e^power),
 *   skipped under 1/255; the pixel stops, without that splat, once
 *   T·(1 − alpha) < 1e-4; C += colour·alpha·T; the result is C + T·bg.
 *
 * The reference's camera looks down +z with y down; the viewer's looks
 * down −z with y up. The view-space point (x, y, z) of a gl-matrix lookAt
 * is (x, −y, −z) in the reference's camera, and image rows count down from
 * the top, so pictures compare pixel for pixel.
 */
import type { mat4, ReadonlyVec3 } from 'gl-matrix';
import { shCoefficients, type SplatCloud } from '../scene/splat-cloud';

/** What the reference needs of a view: the frame parameters the GPU frame takes, and the background. */
export interface ReferenceView {
  /** World → view (gl-matrix lookAt convention: looking down −z, y up). */
  view: mat4;
  eye: ReadonlyVec3;
  /** Vertical field of view, radians; the horizontal one follows from the aspect. */
  fovY: number;
  width: number;
  height: number;
  /** SH bands evaluated (the scene's own degree caps it). */
  shDegree: number;
  splatScale?: number;
  background: readonly [number, number, number];
}

export interface ReferencePicture {
  width: number;
  height: number;
  /** width·height RGB triples, rows top to bottom, linear 0..1 (not clamped above). */
  rgb: Float32Array;
}

/** The reference's tile size in pixels. */
export const TILE = 16;
const NEAR = 0.2;
const ALPHA_MAX = 0.99;
const ALPHA_MIN = 1 / 255;
const T_STOP = 0.0001;
const DILATION = 0.3;
const SH_C0 = 0.28209479177387814;
const SH_C1 = 0.4886025119029199;
const SH_C2 = [1.0925484305920792, -1.0925484305920792, 0.31539156525252005, -1.0925484305920792, 0.5462742152960396];
const SH_C3 = [-0.5900435899266435, 2.890611442640554, -0.4570457994644658, 0.3731763325901154, -0.4570457994644658, 1.445305721320277, -0.5900435899266435];

const f = Math.fround;

/** Renders `cloud` from `view` as the reference rasterizer does. */
export function renderReference(cloud: SplatCloud, view: ReferenceView): ReferencePicture {
  const { width, height } = view;
  const tilesX = Math.ceil(width / TILE);
  const tilesY = Math.ceil(height / TILE);
  const splats = preprocess(cloud, view, tilesX, tilesY);

  // Bin: each splat into the tiles of its rectangle, then each tile's list by depth (stable: splat order on ties).
  const lists: number[][] = Array.from({ length: tilesX * tilesY }, () => []);
  for (let k = 0; k < splats.count; k++) {
    for (let ty = splats.rect[4 * k + 1]!; ty < splats.rect[4 * k + 3]!; ty++) {
      for (let tx = splats.rect[4 * k]!; tx < splats.rect[4 * k + 2]!; tx++) lists[ty * tilesX + tx]!.push(k);
    }
  }
  for (const list of lists) list.sort((a, b) => splats.depth[a]! - splats.depth[b]! || a - b);

  const rgb = new Float32Array(width * height * 3);
  const [bgR, bgG, bgB] = view.background;
  for (let ty = 0; ty < tilesY; ty++) {
    for (let tx = 0; tx < tilesX; tx++) {
      const list = lists[ty * tilesX + tx]!;
      for (let py = ty * TILE; py < Math.min(height, (ty + 1) * TILE); py++) {
        for (let px = tx * TILE; px < Math.min(width, (tx + 1) * TILE); px++) {
          let T = 1;
          let r = 0;
          let g = 0;
          let b = 0;
          for (const k of list) {
            const dx = f(splats.xy[2 * k]! - px);
            const dy = f(splats.xy[2 * k + 1]! - py);
            const power = f(-0.5 * (splats.conic[3 * k]! * dx * dx + splats.conic[3 * k + 2]! * dy * dy) - splats.conic[3 * k + 1]! * dx * dy);
            if (power > 0) continue;
            const alpha = f(Math.min(ALPHA_MAX, f(splats.opacity[k]! * f(Math.exp(power)))));
            if (alpha < ALPHA_MIN) continue;
            const nextT = f(T * f(1 - alpha));
            if (nextT < T_STOP) break;
            const w = f(alpha * T);
            r = f(r + f(splats.color[3 * k]! * w));
            g = f(g + f(splats.color[3 * k + 1]! * w));
            b = f(b + f(splats.color[3 * k + 2]! * w));
            T = nextT;
          }
          const at = 3 * (py * width + px);
          rgb[at] = r + T * bgR;
          rgb[at + 1] = g + T * bgG;
          rgb[at + 2] = b + T * bgB;
        }
      }
    }
  }
  return { width, height, rgb };
}

/** The kept splats' per-splat results, as the reference's preprocess writes them. */
interface Preprocessed {
  count: number;
  depth: Float32Array;
  /** Centre in pixels (x right, y down; pixel centres at integers). */
  xy: Float32Array;
  /** Inverse 2D covariance: xx, xy, yy. */
  conic: Float32Array;
  opacity: Float32Array;
  color: Float32Array;
  /** Tile rectangle: min x, min y, max x, max y (max exclusive). */
  rect: Int32Array;
}

function preprocess(cloud: SplatCloud, view: ReferenceView, tilesX: number, tilesY: number): Preprocessed {
  const n = cloud.count;
  const out: Preprocessed = {
    count: 0,
    depth: new Float32Array(n),
    xy: new Float32Array(2 * n),
    conic: new Float32Array(3 * n),
    opacity: new Float32Array(n),
    color: new Float32Array(3 * n),
    rect: new Int32Array(4 * n),
  };
  const v = view.view;
  // Rows of the reference camera's rotation: the viewer's view rows with y and z negated.
  const w = [v[0]!, v[4]!, v[8]!, -v[1]!, -v[5]!, -v[9]!, -v[2]!, -v[6]!, -v[10]!];
  const t = [v[12]!, -v[13]!, -v[14]!];
  const tanY = Math.tan(view.fovY / 2);
  const tanX = tanY * (view.width / view.height);
  const focalX = view.width / (2 * tanX);
  const focalY = view.height / (2 * tanY);
  const scale = view.splatScale ?? 1;
  const degree = Math.min(view.shDegree, cloud.shDegree);
  const K = shCoefficients(cloud.shDegree);
  const { positions: p, scales: s, rotations: q } = cloud;

  for (let i = 0; i < n; i++) {
    const x = p[3 * i]!, y = p[3 * i + 1]!, z = p[3 * i + 2]!;
    const cx = w[0]! * x + w[1]! * y + w[2]! * z + t[0]!;
    const cy = w[3]! * x + w[4]! * y + w[5]! * z + t[1]!;
    const cz = w[6]! * x + w[7]! * y + w[8]! * z + t[2]!;
    if (cz <= NEAR) continue;

    // Σ = M Mᵀ with M = R S.
    const qw = q[4 * i]!, qx = q[4 * i + 1]!, qy = q[4 * i + 2]!, qz = q[4 * i + 3]!;
    const sx = scale * s[3 * i]!, sy = scale * s[3 * i + 1]!, sz = scale * s[3 * i + 2]!;
    const m = [
      (1 - 2 * (qy * qy + qz * qz)) * sx, 2 * (qx * qy - qw * qz) * sy, 2 * (qx * qz + qw * qy) * sz,
      2 * (qx * qy + qw * qz) * sx, (1 - 2 * (qx * qx + qz * qz)) * sy, 2 * (qy * qz - qw * qx) * sz,
      2 * (qx * qz - qw * qy) * sx, 2 * (qy * qz + qw * qx) * sy, (1 - 2 * (qx * qx + qy * qy)) * sz,
    ];
    // T = J W (2×3): the Jacobian at the point clamped to 1.3 tan(fov/2).
    const limX = 1.3 * tanX;
    const limY = 1.3 * tanY;
    const px = Math.min(limX, Math.max(-limX, cx / cz)) * cz;
    const py = Math.min(limY, Math.max(-limY, cy / cz)) * cz;
    const j00 = focalX / cz, j02 = -(focalX * px) / (cz * cz);
    const j11 = focalY / cz, j12 = -(focalY * py) / (cz * cz);
    const a = [j00 * w[0]! + j02 * w[6]!, j00 * w[1]! + j02 * w[7]!, j00 * w[2]! + j02 * w[8]!];
    const b = [j11 * w[3]! + j12 * w[6]!, j11 * w[4]! + j12 * w[7]!, j11 * w[5]! + j12 * w[8]!];
    // cov2D = (T M)(T M)ᵀ.
    const am = [0, 1, 2].map((c) => a[0]! * m[c]! + a[1]! * m[3 + c]! + a[2]! * m[6 + c]!);
    const bm = [0, 1, 2].map((c) => b[0]! * m[c]! + b[1]! * m[3 + c]! + b[2]! * m[6 + c]!);
    const covXX = f(am[0]! * am[0]! + am[1]! * am[1]! + am[2]! * am[2]! + DILATION);
    const covXY = f(am[0]! * bm[0]! + am[1]! * bm[1]! + am[2]! * bm[2]!);
    const covYY = f(bm[0]! * bm[0]! + bm[1]! * bm[1]! + bm[2]! * bm[2]! + DILATION);

    const det = f(covXX * covYY - covXY * covXY);
    if (det === 0) continue;
    const mid = 0.5 * (covXX + covYY);
    const spread = Math.sqrt(Math.max(0.1, mid * mid - det));
    const radius = Math.ceil(3 * Math.sqrt(Math.max(mid + spread, mid - spread)));
    // ndc2Pix: ((ndc + 1)·S − 1)/2, i.e. focal·x/z + S/2 − 0.5.
    const imageX = f(focalX * (cx / cz) + view.width / 2 - 0.5);
    const imageY = f(focalY * (cy / cz) + view.height / 2 - 0.5);
    const minX = Math.min(tilesX, Math.max(0, Math.trunc((imageX - radius) / TILE)));
    const minY = Math.min(tilesY, Math.max(0, Math.trunc((imageY - radius) / TILE)));
    const maxX = Math.min(tilesX, Math.max(0, Math.trunc((imageX + radius + TILE - 1) / TILE)));
    const maxY = Math.min(tilesY, Math.max(0, Math.trunc((imageY + radius + TILE - 1) / TILE)));
    if ((maxX - minX) * (maxY - minY) === 0) continue;

    const k = out.count++;
    out.depth[k] = cz;
    out.xy[2 * k] = imageX;
    out.xy[2 * k + 1] = imageY;
    out.conic[3 * k] = covYY / det;
    out.conic[3 * k + 1] = -covXY / det;
    out.conic[3 * k + 2] = covXX / det;
    out.opacity[k] = cloud.opacities[i]!;
    out.rect.set([minX, minY, maxX, maxY], 4 * k);
    shColor(cloud, i, K, degree, view.eye, out.color, 3 * k);
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
    basis.push(SH_C2[0]! * dx * dy, SH_C2[1]! * dy * dz, SH_C2[2]! * (2 * zz - xx - yy), SH_C2[3]! * dx * dz, SH_C2[4]! * (xx - yy));
    if (degree > 2) {
      basis.push(
        SH_C3[0]! * dy * (3 * xx - yy),
        SH_C3[1]! * dx * dy * dz,
        SH_C3[2]! * dy * (4 * zz - xx - yy),
        SH_C3[3]! * dz * (2 * zz - 3 * xx - 3 * yy),
        SH_C3[4]! * dx * (4 * zz - xx - yy),
        SH_C3[5]! * dz * (xx - yy),
        SH_C3[6]! * dx * (xx - 3 * yy),
      );
    }
  }
  for (let c = 0; c < 3; c++) {
    let sum = basis[0]! * cloud.dc[3 * i + c]!;
    // SplatCloud keeps the higher bands coefficient-major, RGB inside.
    for (let k = 1; k < basis.length; k++) sum += basis[k]! * cloud.sh[(i * K + k - 1) * 3 + c]!;
    out[at + c] = Math.max(0, sum + 0.5);
  }
}
