/**
 * The projector's keep rule (shaders/splat_project.wgsl) on the CPU, in
 * f64 from the same packed splats (packSplats: float32 covariances): a
 * splat is kept when it is in front of the near plane (view depth > 0.2),
 * its opacity (after the screen filter's compensation, where the filter
 * has one) can reach 1/255, and its quad overlaps the window + 1 px. The
 * quad reaches 3σ along the ellipse's major axis, or less where the alpha
 * falls under 1/255 first. "Only what is in view" saves what this keeps,
 * and the GPU tests check the projector's visible count against it.
 * DOM-free.
 */
import { packSplats, SPLAT_FLOATS } from '../scene/splat-packing';
import type { SplatCloud } from '../scene/splat-cloud';
import { CLASSIC_FILTER } from '../scene/anti-aliasing';
import { SPLAT } from '../scene/splat-layouts';
import type { FrameCamera } from './frame-uniforms';

/** View depth at and before which splats are culled (NEAR_CULL in shaders/splat_common.wgsl, as the reference). */
const NEAR_CULL = 0.2;
/** Where the record's fields are, in floats. */
const POSITION = SPLAT.word('position');
const OPACITY = SPLAT.word('opacity');
const COV_A = SPLAT.word('cov_a');
const COV_B = SPLAT.word('cov_b');
/** Splats packed at a time: bounds the scratch memory (256 KiB) for any scene. */
const BLOCK = 4096;

/** What a frame's parameters fix for every splat. */
interface Viewpoint {
  v: Float32Array | number[];
  proj: Float32Array | number[];
  tanX: number;
  tanY: number;
  fx: number;
  fy: number;
  halfX: number;
  halfY: number;
  s2: number;
  variance: number;
  compensate: boolean;
}

function viewpoint(p: FrameCamera): Viewpoint {
  const tanY = Math.tan(p.fovY / 2);
  const tanX = tanY * (p.width / p.height);
  const filter = p.screenFilter ?? CLASSIC_FILTER;
  return {
    v: p.view as Float32Array, proj: p.projection as Float32Array, tanX, tanY,
    fx: p.width / (2 * tanX), fy: p.height / (2 * tanY), halfX: p.width / 2, halfY: p.height / 2,
    s2: p.splatScale * p.splatScale, variance: filter.variance, compensate: filter.compensate,
  };
}

/**
 * For each splat, its view depth when the projector keeps it in the frame
 * `p` describes, or NaN when it culls it.
 */
export function keptDepths(cloud: SplatCloud, p: FrameCamera): Float64Array {
  const out = new Float64Array(cloud.count);
  const at = viewpoint(p);
  const packed = new Float32Array(BLOCK * SPLAT_FLOATS);
  for (let first = 0; first < cloud.count; first += BLOCK) {
    const n = Math.min(BLOCK, cloud.count - first);
    packSplats(cloud, first, n, packed);
    for (let k = 0; k < n; k++) out[first + k] = keptDepth(packed, k * SPLAT_FLOATS, at);
  }
  return out;
}

/** The rule for the packed splat at `r[b..]` (its record's layout: position, opacity, covariance). */
function keptDepth(r: Float32Array, b: number, at: Viewpoint): number {
  const { v, proj, tanX, tanY, fx, fy, s2 } = at;
  const x = r[b + POSITION]!, y = r[b + POSITION + 1]!, z = r[b + POSITION + 2]!;
  const vx = v[0]! * x + v[4]! * y + v[8]! * z + v[12]!;
  const vy = v[1]! * x + v[5]! * y + v[9]! * z + v[13]!;
  const vz = v[2]! * x + v[6]! * y + v[10]! * z + v[14]!;
  const depth = -vz;
  let opacity = r[b + OPACITY]!;
  let threshold = Math.sqrt(Math.max(0, 2 * Math.log(255 * opacity)));
  if (depth <= NEAR_CULL || !(threshold > 0)) return NaN;

  // Σ (scaled), then W Σ Wᵀ with W the rows of the view's upper 3×3.
  const c00 = r[b + COV_A]! * s2, c01 = r[b + COV_A + 1]! * s2, c02 = r[b + COV_A + 2]! * s2;
  const c11 = r[b + COV_B]! * s2, c12 = r[b + COV_B + 1]! * s2, c22 = r[b + COV_B + 2]! * s2;
  const w00 = v[0]!, w01 = v[4]!, w02 = v[8]!, w10 = v[1]!, w11 = v[5]!, w12 = v[9]!, w20 = v[2]!, w21 = v[6]!, w22 = v[10]!;
  // Rows of W Σ.
  const m00 = w00 * c00 + w01 * c01 + w02 * c02, m01 = w00 * c01 + w01 * c11 + w02 * c12, m02 = w00 * c02 + w01 * c12 + w02 * c22;
  const m10 = w10 * c00 + w11 * c01 + w12 * c02, m11 = w10 * c01 + w11 * c11 + w12 * c12, m12 = w10 * c02 + w11 * c12 + w12 * c22;
  const m20 = w20 * c00 + w21 * c01 + w22 * c02, m21 = w20 * c01 + w21 * c11 + w22 * c12, m22 = w20 * c02 + w21 * c12 + w22 * c22;
  const v00 = m00 * w00 + m01 * w01 + m02 * w02, v01 = m00 * w10 + m01 * w11 + m02 * w12, v02 = m00 * w20 + m01 * w21 + m02 * w22;
  const v11 = m10 * w10 + m11 * w11 + m12 * w12, v12 = m10 * w20 + m11 * w21 + m12 * w22;
  const v22 = m20 * w20 + m21 * w21 + m22 * w22;

  // J at the point clamped to 1.3 tan(fov/2): rows (j00, 0, j02) and (0, j11, j12).
  const tx = Math.min(Math.max(vx / depth, -1.3 * tanX), 1.3 * tanX) * depth;
  const ty = Math.min(Math.max(vy / depth, -1.3 * tanY), 1.3 * tanY) * depth;
  const j00 = fx / depth, j02 = (fx * tx) / (depth * depth);
  const j11 = fy / depth, j12 = (fy * ty) / (depth * depth);
  const cov00 = j00 * (j00 * v00 + j02 * v02) + j02 * (j00 * v02 + j02 * v22);
  const cov01 = j00 * (j11 * v01 + j12 * v02) + j02 * (j11 * v12 + j12 * v22);
  const cov11 = j11 * (j11 * v11 + j12 * v12) + j12 * (j11 * v12 + j12 * v22);
  const a = cov00 + at.variance, bb = cov01, c = cov11 + at.variance;
  if (at.compensate) {
    const before = Math.max(cov00 * cov11 - bb * bb, 0);
    opacity *= Math.sqrt(before / (a * c - bb * bb));
    threshold = Math.sqrt(Math.max(0, 2 * Math.log(255 * opacity)));
    if (!(threshold > 0)) return NaN;
  }

  // The ellipse's axes, and the quad's half sizes along them.
  const mid = (a + c) / 2, rad = Math.hypot((a - c) / 2, bb);
  const l1 = mid + rad, l2 = Math.max(mid - rad, 0);
  let ax = a >= c ? 1 : 0, ay = a >= c ? 0 : 1;
  if (Math.abs(bb) > 1e-9 * (a + c)) {
    const n = Math.hypot(bb, l1 - a);
    ax = bb / n;
    ay = (l1 - a) / n;
  }
  const px = -ay, py = ax;
  const half0 = Math.min(3, threshold) * Math.sqrt(l1);
  const half1 = Math.min(threshold, 3 * Math.sqrt(l1 / Math.max(l2, 1e-12))) * Math.sqrt(l2);

  // The centre in pixels from the window's middle; window and quad overlap unless an axis of either separates them.
  const cx = proj[0]! * vx + proj[4]! * vy + proj[8]! * vz + proj[12]!;
  const cy = proj[1]! * vx + proj[5]! * vy + proj[9]! * vz + proj[13]!;
  const cw = proj[3]! * vx + proj[7]! * vy + proj[11]! * vz + proj[15]!;
  const centreX = (cx / cw) * at.halfX, centreY = (cy / cw) * at.halfY;
  const windowX = at.halfX + 1, windowY = at.halfY + 1;
  if (Math.abs(centreX) - (Math.abs(ax) * half0 + Math.abs(px) * half1) > windowX) return NaN;
  if (Math.abs(centreY) - (Math.abs(ay) * half0 + Math.abs(py) * half1) > windowY) return NaN;
  if (Math.abs(centreX * ax + centreY * ay) - (Math.abs(ax) * windowX + Math.abs(ay) * windowY) > half0) return NaN;
  if (Math.abs(centreX * px + centreY * py) - (Math.abs(px) * windowX + Math.abs(py) * windowY) > half1) return NaN;
  return depth;
}
