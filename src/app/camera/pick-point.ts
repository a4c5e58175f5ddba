/**
 * The point a double-click on the canvas makes the orbit point: the splat
 * surface under the cursor, as the reference rasterizer
 * (src/render/reference-rasterizer.ts) draws the pixel clicked. DOM-free
 * and GPU-free.
 *
 * The rule: the splats the reference blends at that pixel (those listed in
 * its tile whose alpha there reaches 1/255) by increasing depth, front to
 * back; the pick is the splat at which the transmittance first falls to 0.5
 * or below, where the pixel is half made: the surface a person sees. (The
 * reference's early stop at T < 1e-4 cannot come first: from T > 0.5 one
 * splat of alpha ≤ 0.99 leaves T > 0.005.) A pixel that never gets that far,
 * a haze, takes the splat of the largest weight alpha·T. The point is on the
 * ray through the cursor at that splat's view depth, so it lies under the
 * cursor exactly however large the splat is.
 *
 * Speed: projecting every splat as the reference does (without the colour)
 * took 140 to 360 ms for the 1M-splat scene (Node 20 on a busy 2-core
 * machine); a first pass that keeps only the splats whose centre is near
 * enough to the pixel for the largest footprint their scales allow brought
 * the whole pick to 26 to 87 ms on the same machine, the same result (the
 * 9k scene: 2 to 8 ms).
 */
import { mat4 } from 'gl-matrix';
import { ALPHA_MIN, alphaAt, preprocess, TILE, type ReferenceProjection } from '../../render/reference-rasterizer';
import { CLASSIC_FILTER } from '../../scene/anti-aliasing';
import type { SplatCloud } from '../../scene/splat-cloud';

/** The view the pick looks through: the frame's geometry, the projection's shift included. */
export interface PickView extends ReferenceProjection {
  /** The projection's horizontal shift in NDC (projectionMatrix()[8]); 0 when no overlay covers the window. */
  shiftNdc: number;
  /** Its vertical shift in NDC (projectionMatrix()[9]); 0 by default. */
  shiftNdcY?: number;
}

export interface Pick {
  /** On the cursor's ray, in scene coordinates. */
  point: [number, number, number];
  /** The view depth of the point (and of the splat picked). */
  depth: number;
  /** The index of the splat picked. */
  splat: number;
}

/** Where the pixel is half made: the transmittance the pick stops at. */
const HALF_MADE = 0.5;
/**
 * The reference culls at view depth 0.2 (after rounding to float32); the
 * first pass keeps a little nearer, so the reference alone decides.
 */
const NEAR_CANDIDATE = 0.19;
/**
 * Room in the first pass's bound for the reference's float32 rounding: 1 %
 * on the squared reach and on the opacity, and 1 px² more. Without them the
 * closest a blended splat came to the bound was 0.97 of it (splats the
 * screen filter dominates, where the bound is tight; the 1M scene framed and
 * 3 and 10 times closer), while float32 moves the reference's covariance
 * and alpha by about 1e-6 of themselves.
 */
const REACH_SLACK = 1.01;
const REACH_SLACK_PX2 = 1;

/**
 * The splat under the cursor, or null where nothing visible is under it
 * (or the cursor is off the framebuffer). `x`, `y`: the cursor in
 * framebuffer pixels from the top-left corner (a pixel's centre is at +0.5).
 */
export function pickPoint(cloud: SplatCloud, view: PickView, x: number, y: number): Pick | null {
  if (!(x >= 0 && x < view.width && y >= 0 && y < view.height)) return null;
  // The pick is what the reference draws at the pixel clicked, whose centre
  // (px + 0.5, py + 0.5) in the framebuffer is (px, py) in its frame; the
  // point still follows the cursor within the pixel.
  const px = Math.floor(x);
  const py = Math.floor(y);
  const splats = preprocess(cloud, view, { splats: pickCandidates(cloud, view, px, py) });
  const tileX = Math.floor(px / TILE);
  const tileY = Math.floor(py / TILE);

  const blended: number[] = [];
  const alphas = new Float32Array(splats.count);
  const { rect } = splats;
  for (let k = 0; k < splats.count; k++) {
    if (tileX < rect[4 * k]! || tileX >= rect[4 * k + 2]! || tileY < rect[4 * k + 1]! || tileY >= rect[4 * k + 3]!) continue;
    alphas[k] = alphaAt(splats, k, px, py);
    if (alphas[k]! >= ALPHA_MIN) blended.push(k);
  }
  // The reference's order: by depth, ties in splat order (k follows the splat index).
  const { depth } = splats;
  blended.sort((a, b) => depth[a]! - depth[b]! || a - b);

  const f = Math.fround;
  let T = 1;
  let heaviest = -1;
  let heaviestWeight = 0;
  for (const k of blended) {
    const alpha = alphas[k]!;
    const nextT = f(T * f(1 - alpha));
    if (nextT <= HALF_MADE) return pickOnRay(view, x, y, splats.splat[k]!, cloud);
    const weight = f(alpha * T);
    if (weight > heaviestWeight) {
      heaviest = k;
      heaviestWeight = weight;
    }
    T = nextT;
  }
  return heaviest < 0 ? null : pickOnRay(view, x, y, splats.splat[heaviest]!, cloud);
}

/**
 * The splats that may reach alpha 1/255 at pixel (px, py), in index order:
 * a superset of those the reference blends there. A splat's 2D covariance
 * is J W Σ Wᵀ Jᵀ + filter: its largest eigenvalue is at most
 * ‖J‖²·s²max + variance (W and R are rotations: a lookAt view, unit
 * quaternions; ‖J‖ at most its Frobenius norm, J at the reference's
 * clamped point), and its alpha at distance d is at most
 * opacity·exp(−d²/(2λmax)) (the compensation only lowers the opacity).
 *
 * Where the splat's own size dominates, the Frobenius norm alone leaves at
 * least 30 % (at a 60° fov and 16:9, the worst at the clamp; 100 % on the
 * view axis), more than the reference's float32 determinant loses (about
 * 3e-8·λmax/λmin of itself) for any needle up to σ ≈ 1000 px long.
 */
export function pickCandidates(cloud: SplatCloud, view: PickView, px: number, py: number): Int32Array {
  const { width, height } = view;
  const v = view.view;
  const tanY = Math.tan(view.fovY / 2);
  const tanX = tanY * (width / height);
  const focalX = width / (2 * tanX);
  const focalY = height / (2 * tanY);
  const limX = 1.3 * tanX;
  const limY = 1.3 * tanY;
  // The pixel relative to the view axis, in the reference's frame (x right, y down, pixel centres at integers).
  const offsetX = px - (width / 2 - 0.5 - (view.shiftNdc * width) / 2);
  const offsetY = py - (height / 2 - 0.5 + ((view.shiftNdcY ?? 0) * height) / 2);
  const scale2 = (view.splatScale ?? 1) ** 2;
  const variance = (view.screenFilter ?? CLASSIC_FILTER).variance;
  const { positions: p, scales: s, opacities } = cloud;
  // The reference camera's rows: the viewer's view rows, y and z negated.
  const w0 = v[0]!, w1 = v[4]!, w2 = v[8]!, t0 = v[12]!;
  const w3 = -v[1]!, w4 = -v[5]!, w5 = -v[9]!, t1 = -v[13]!;
  const w6 = -v[2]!, w7 = -v[6]!, w8 = -v[10]!, t2 = -v[14]!;

  // An opacity of 1 bounds every splat's reach before its own logarithm is taken.
  const logReachOpaque = Math.log(255 * REACH_SLACK);

  const found: number[] = [];
  for (let i = 0; i < cloud.count; i++) {
    const x = p[3 * i]!, y = p[3 * i + 1]!, z = p[3 * i + 2]!;
    const cz = w6 * x + w7 * y + w8 * z + t2;
    if (!(cz > NEAR_CANDIDATE)) continue;
    const invZ = 1 / cz;
    const ux = (w0 * x + w1 * y + w2 * z + t0) * invZ;
    const uy = (w3 * x + w4 * y + w5 * z + t1) * invZ;
    const dx = focalX * ux - offsetX;
    const dy = focalY * uy - offsetY;
    const jx = Math.min(limX, Math.abs(ux));
    const jy = Math.min(limY, Math.abs(uy));
    const jacobian2 = (focalX * focalX * (1 + jx * jx) + focalY * focalY * (1 + jy * jy)) * invZ * invZ;
    const sMax = Math.max(s[3 * i]!, s[3 * i + 1]!, s[3 * i + 2]!);
    const lambdaMax = jacobian2 * scale2 * sMax * sMax + variance;
    const distance2 = dx * dx + dy * dy - REACH_SLACK_PX2;
    const reach2 = 2 * lambdaMax * REACH_SLACK;
    if (distance2 > reach2 * logReachOpaque) continue;
    if (distance2 <= reach2 * Math.log(255 * REACH_SLACK * opacities[i]!)) found.push(i);
  }
  return Int32Array.from(found);
}

/** The point on the cursor's ray at splat `i`'s view depth; null for a view matrix with no inverse. */
function pickOnRay(view: PickView, x: number, y: number, i: number, cloud: SplatCloud): Pick | null {
  const v = view.view;
  const [sx, sy, sz] = [cloud.positions[3 * i]!, cloud.positions[3 * i + 1]!, cloud.positions[3 * i + 2]!];
  const depth = -(v[2]! * sx + v[6]! * sy + v[10]! * sz + v[14]!);
  const { width, height } = view;
  const tanY = Math.tan(view.fovY / 2);
  const tanX = tanY * (width / height);
  // The inverse of the reference's ndc2Pix (the cursor's x − 0.5 in its frame), per unit of depth.
  const ux = ((2 * x) / width - 1 + view.shiftNdc) * tanX;
  const uy = (1 - (2 * y) / height + (view.shiftNdcY ?? 0)) * tanY;
  // View space (looking down −z, y up) back to the scene, in double precision.
  const toScene = mat4.invert(new Float64Array(16) as unknown as mat4, v);
  if (!toScene) return null;
  const q = [ux * depth, uy * depth, -depth];
  const point: [number, number, number] = [0, 0, 0];
  for (let r = 0; r < 3; r++) point[r] = toScene[r]! * q[0]! + toScene[4 + r]! * q[1]! + toScene[8 + r]! * q[2]! + toScene[12 + r]!;
  return { point, depth, splat: i };
}
