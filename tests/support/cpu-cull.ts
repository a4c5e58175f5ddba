/**
 * The projector's keep rule (shaders/splat_project.wgsl), evaluated on the
 * CPU in f64 from the same packed splats: in front of the near plane, an
 * opacity that can reach 1/255, and a quad (the reference's extent along
 * the ellipse's axes) that overlaps the window + 1 px. Tests count the
 * splats it keeps against the GPU's visible count.
 */
import type { FrameParameters } from '../../src/render/frame-uniforms';
import { packSplats, SPLAT_FLOATS } from '../../src/scene/gpu-splats';
import type { SplatCloud } from '../../src/scene/splat-cloud';

const NEAR_CULL = 0.2;

/** For each splat: its view depth when kept, or null when culled. */
export function cpuKeptDepths(cloud: SplatCloud, p: FrameParameters): (number | null)[] {
  const packed = packSplats(cloud);
  const v = p.view, proj = p.projection;
  const tanY = Math.tan(p.fovY / 2);
  const tanX = tanY * (p.width / p.height);
  const fx = p.width / (2 * tanX), fy = p.height / (2 * tanY);
  const half = [p.width / 2, p.height / 2];
  const window = [half[0]! + 1, half[1]! + 1];
  const s2 = p.splatScale * p.splatScale;
  const out: (number | null)[] = [];
  for (let i = 0; i < cloud.count; i++) {
    const r = packed.subarray(i * SPLAT_FLOATS, (i + 1) * SPLAT_FLOATS);
    const [x, y, z] = [r[0]!, r[1]!, r[2]!];
    const vx = v[0]! * x + v[4]! * y + v[8]! * z + v[12]!;
    const vy = v[1]! * x + v[5]! * y + v[9]! * z + v[13]!;
    const vz = v[2]! * x + v[6]! * y + v[10]! * z + v[14]!;
    const depth = -vz;
    const opacity = r[3]!;
    const threshold = Math.sqrt(Math.max(0, 2 * Math.log(255 * opacity)));
    if (depth <= NEAR_CULL || !(threshold > 0)) {
      out.push(null);
      continue;
    }
    const cov = [[r[4]!, r[5]!, r[6]!], [r[5]!, r[8]!, r[9]!], [r[6]!, r[9]!, r[10]!]].map((row) => row.map((c) => c * s2));
    // W: the view rotation (rows of the upper 3x3 of the column-major matrix).
    const w = [[v[0]!, v[4]!, v[8]!], [v[1]!, v[5]!, v[9]!], [v[2]!, v[6]!, v[10]!]];
    const cv = [0, 1, 2].map((a) => [0, 1, 2].map((b) => {
      let sum = 0;
      for (let k = 0; k < 3; k++) for (let l = 0; l < 3; l++) sum += w[a]![k]! * cov[k]![l]! * w[b]![l]!;
      return sum;
    }));
    const tx = Math.min(Math.max(vx / depth, -1.3 * tanX), 1.3 * tanX) * depth;
    const ty = Math.min(Math.max(vy / depth, -1.3 * tanY), 1.3 * tanY) * depth;
    const j = [[fx / depth, 0, (fx * tx) / (depth * depth)], [0, fy / depth, (fy * ty) / (depth * depth)]];
    const jc = (a: number, b: number) => {
      let sum = 0;
      for (let k = 0; k < 3; k++) for (let l = 0; l < 3; l++) sum += j[a]![k]! * cv[k]![l]! * j[b]![l]!;
      return sum;
    };
    const a = jc(0, 0) + 0.3, b = jc(0, 1), c = jc(1, 1) + 0.3;
    const mid = (a + c) / 2, rad = Math.hypot((a - c) / 2, b);
    const l1 = mid + rad, l2 = Math.max(mid - rad, 0);
    let axis = a >= c ? [1, 0] : [0, 1];
    if (Math.abs(b) > 1e-9 * (a + c)) {
      const n = Math.hypot(b, l1 - a);
      axis = [b / n, (l1 - a) / n];
    }
    const perp = [-axis[1]!, axis[0]!];
    const extent = [Math.min(3, threshold), Math.min(threshold, 3 * Math.sqrt(l1 / Math.max(l2, 1e-12)))];
    // Clip space: x' = P x, centre in pixels from the window's middle.
    const cx = proj[0]! * vx + proj[4]! * vy + proj[8]! * vz + proj[12]!;
    const cy = proj[1]! * vx + proj[5]! * vy + proj[9]! * vz + proj[13]!;
    const cw = proj[3]! * vx + proj[7]! * vy + proj[11]! * vz + proj[15]!;
    const centre = [(cx / cw) * half[0]!, (cy / cw) * half[1]!];
    const halfPx = [extent[0]! * Math.sqrt(l1), extent[1]! * Math.sqrt(l2)];
    let kept = true;
    for (let k = 0; k < 2; k++) {
      const box = Math.abs(axis[k]!) * halfPx[0]! + Math.abs(perp[k]!) * halfPx[1]!;
      if (Math.abs(centre[k]!) - box > window[k]!) kept = false;
    }
    const along = [axis, perp];
    for (let k = 0; k < 2; k++) {
      const dir = along[k]!;
      const windowMid = -(centre[0]! * dir[0]! + centre[1]! * dir[1]!);
      const windowHalf = Math.abs(dir[0]!) * window[0]! + Math.abs(dir[1]!) * window[1]!;
      if (Math.abs(windowMid) - windowHalf > halfPx[k]!) kept = false;
    }
    out.push(kept ? depth : null);
  }
  return out;
}
