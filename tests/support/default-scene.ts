/**
 * The viewer's default scene, generated rather than downloaded: a blue-and-
 * white porcelain vase on a round walnut plinth, about 37,000 splats at SH
 * degree 3. Y is up, the scene spans y = -1..1 and is centred on the y axis.
 * Deterministic (xorshift32), so a test can check that the stored
 * data/default-scene.ply still matches this code. The viewer loads that
 * file and never this code, which `npm run scene:default` and the tests
 * run.
 *
 * Everything is a surface of revolution: each part is a profile (r, y)
 * swept around the y axis, sampled in rings at a roughly even spacing. Each
 * splat is a flat disc: two scales along the surface, a tiny one along the
 * normal, oriented by a quaternion built from the local frame.
 *
 * Lighting is baked the way a capture bakes it: diffuse light and contact
 * shadows go into the view-independent DC term; glossy highlights of a warm
 * key light and a cool fill light go into SH bands 1-3, so the highlights
 * slide over the glaze as the camera orbits. The plinth is matte (no bands).
 */

import { quat } from 'gl-matrix';
import { computeBounds, SH_C0, type SplatCloud } from '../../src/scene/splat-cloud';

type Vec2 = [number, number];
type Rgb = [number, number, number];
type Rgb4 = [number, number, number, number];
type Material = 'glaze' | 'interior' | 'wood';

const TAU = 2 * Math.PI;
/** Ring and in-ring spacing of the splats; sets the count (~37k) and file size (~9 MB). */
const SPACING = 0.015;
const K = 15; // SH coefficients per channel beyond DC at degree 3
const WALL = 0.025; // thickness of the vase wall, seen at the lip

const norm3 = (x: number, y: number, z: number): Rgb => {
  const l = Math.hypot(x, y, z);
  return [x / l, y / l, z / l];
};
const LIGHTS: { dir: Rgb; diffuse: Rgb; specular: Rgb }[] = [
  { dir: norm3(-0.55, 0.75, 0.65), diffuse: [0.5, 0.47, 0.42], specular: [1.7, 1.55, 1.35] },
  { dir: norm3(0.8, 0.25, -0.55), diffuse: [0.12, 0.15, 0.2], specular: [0.5, 0.8, 1.3] },
];
// Kept low enough that lit glaze stays below 1, leaving headroom for the highlights.
const AMBIENT = 0.33;
/** Specular lobe cos^P; broad enough to survive truncation at degree 3. */
const P = 8;
// Funk-Hecke: projecting a lobe g(w.d) onto band l scales Y_lm(w) by
// 2π∫g(x)P_l(x)dx; closed forms for g = max(0, x)^P. The window damps the
// ringing that truncating at degree 3 causes (negative rings opposite the lobe).
const LOBE = [
  TAU / (P + 1),
  TAU / (P + 2),
  Math.PI * (3 / (P + 3) - 1 / (P + 1)),
  Math.PI * (5 / (P + 4) - 3 / (P + 2)),
];
const WINDOW = [1, 0.95, 0.8, 0.55];
const BAND = [1, 1, 1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3]; // band of coefficient k

const GLAZE: Rgb = [0.94, 0.93, 0.89];
const COBALT: Rgb = [0.09, 0.16, 0.5];
const WALNUT: Rgb = [0.36, 0.23, 0.14];

/** The renderer's real SH basis for bands 1-3 (signs as in INRIA's forward pass). */
export function shBasis(out: Float64Array, x: number, y: number, z: number): void {
  const xx = x * x, yy = y * y, zz = z * z, c1 = 0.4886025119029199;
  out.set([
    -c1 * y, c1 * z, -c1 * x,
    1.0925484305920792 * x * y, -1.0925484305920792 * y * z, 0.31539156525252005 * (2 * zz - xx - yy),
    -1.0925484305920792 * x * z, 0.5462742152960396 * (xx - yy),
    -0.5900435899266435 * y * (3 * xx - yy), 2.890611442640554 * x * y * z,
    -0.4570457994644658 * y * (4 * zz - xx - yy), 0.3731763325901154 * z * (2 * zz - 3 * xx - 3 * yy),
    -0.4570457994644658 * x * (4 * zz - xx - yy), 1.445305721320277 * z * (xx - yy),
    -0.5900435899266435 * x * (xx - 3 * yy),
  ]);
}

/** A uniform Catmull-Rom spline through the points, densely sampled. */
function smooth(points: Vec2[], perSegment = 40): Vec2[] {
  const out: Vec2[] = [];
  for (let i = 0; i + 1 < points.length; i++) {
    const p0 = points[Math.max(0, i - 1)]!, p1 = points[i]!, p2 = points[i + 1]!;
    const p3 = points[Math.min(points.length - 1, i + 2)]!;
    for (let j = 0; j < perSegment; j++) {
      const t = j / perSegment, t2 = t * t, t3 = t2 * t;
      const f = (a: number, b: number, c: number, d: number): number =>
        0.5 * (2 * b + (c - a) * t + (2 * a - 5 * b + 4 * c - d) * t2 + (3 * b - a - 3 * c + d) * t3);
      out.push([f(p0[0], p1[0], p2[0], p3[0]), f(p0[1], p1[1], p2[1], p3[1])]);
    }
  }
  out.push(points[points.length - 1]!);
  return out;
}

/** Outward profile normal (dy, -dr) of a polyline traversed bottom to top. */
function profileNormal(path: Vec2[], i: number): Vec2 {
  const a = path[Math.max(0, i - 1)]!, b = path[Math.min(path.length - 1, i + 1)]!;
  const l = Math.hypot(b[0] - a[0], b[1] - a[1]);
  return [(b[1] - a[1]) / l, -(b[0] - a[0]) / l];
}

/** The vase's outer wall, rounded lip, inner wall (upper, lower) and inner floor. */
function vaseProfiles(): Record<'outer' | 'lip' | 'upperInside' | 'lowerInside' | 'floor', Vec2[]> {
  const outer = smooth([
    [0.255, -0.86], [0.285, -0.845], [0.29, -0.81], [0.275, -0.775], [0.31, -0.73],
    [0.42, -0.58], [0.53, -0.38], [0.585, -0.16], [0.575, 0.05], [0.5, 0.27], [0.36, 0.46],
    [0.245, 0.6], [0.205, 0.72], [0.21, 0.83], [0.245, 0.92], [0.29, 0.975], [0.305, 0.995],
  ]);
  // Inner wall: the outer wall pushed inwards, above the foot, top to bottom.
  const inner: Vec2[] = [];
  for (let i = outer.length - 1; i >= 0; i--) {
    if (outer[i]![1] < -0.7) break;
    const n = profileNormal(outer, i);
    inner.push([outer[i]![0] - WALL * n[0], outer[i]![1] - WALL * n[1]]);
  }
  // Lip: a half circle from the outer rim over the top to the inner rim.
  const o = outer[outer.length - 1]!, q = inner[0]!;
  const c: Vec2 = [(o[0] + q[0]) / 2, (o[1] + q[1]) / 2];
  const a0 = Math.atan2(o[1] - c[1], o[0] - c[0]);
  const lip: Vec2[] = [];
  for (let j = 1; j < 16; j++) {
    const a = a0 + (Math.PI * j) / 16; // counter-clockwise: over the top when o is outside q
    lip.push([c[0] + (WALL / 2) * Math.cos(a), c[1] + (WALL / 2) * Math.sin(a)]);
  }
  // Below the neck the inside is only glimpsed through the mouth: sample it coarsely.
  const neck = inner.findIndex((p) => p[1] < 0.6);
  const bottom = inner[inner.length - 1]!;
  return {
    outer,
    lip: [o, ...lip, q],
    upperInside: inner.slice(0, neck + 1),
    lowerInside: inner.slice(neck),
    floor: [bottom, [0, bottom[1]]],
  };
}

const fract = (v: number): number => v - Math.floor(v);
const wrap = (a: number): number => a - TAU * Math.round(a / TAU);

/** Cobalt ink on the glaze at height y and angle a: 0 glaze, ~0.4 wash, 1 full cobalt. */
function ink(y: number, a: number, r: number): number {
  const line = (yc: number, w: number): boolean => Math.abs(y - yc) < w;
  const stroke = 0.009;
  if (y < -0.76 || y > 0.94) return 1; // foot ring and lip band
  if (line(-0.72, 0.007) || line(-0.69, 0.005) || line(-0.41, 0.006)) return 1;
  if (line(0.265, 0.006) || line(0.3, 0.005) || line(0.53, 0.006) || line(0.9, 0.005)) return 1;
  const leafBand = (y0: number, y1: number, n: number, width: number, rib: boolean): number => {
    // Pointed leaves standing on y0: outline in cobalt, inside a lighter wash.
    const u = (y - y0) / (y1 - y0);
    const phi = Math.abs(fract((a * n) / TAU) - 0.5);
    const half = width * Math.pow(Math.max(0, 1 - u), 0.7);
    if (phi >= half) return 0;
    const edge = stroke / ((TAU * r) / n);
    return half - phi < edge || u * (y1 - y0) < stroke || (rib && phi < edge / 2) ? 1 : 0.4;
  };
  if (y > -0.66 && y < -0.44) return leafBand(-0.66, -0.44, 12, 0.46, false); // lotus panels
  if (y > 0.58 && y < 0.88) return leafBand(0.58, 0.88, 10, 0.36, true); // plantain leaves
  if (y > 0.32 && y < 0.5) {
    // Collar: a cobalt ground with white scalloped cloud heads hanging into it.
    const u = (y - 0.32) / 0.18;
    const phi = 2 * Math.abs(fract((a * 8) / TAU) - 0.5);
    const edge = 0.3 + 0.55 * phi * phi;
    return u > edge ? 1 : u > edge - 0.06 ? 0.4 : 0;
  }
  if (y > -0.38 && y < 0.24) {
    // Main field: a scrolling vine with a flower at each crest and trough.
    for (let k = 0; k < 10; k++) {
      const du = wrap(a - (Math.PI / 2 + k * Math.PI) / 5) * r;
      const dv = y - (k % 2 === 0 ? 0.12 : -0.26);
      const rho = Math.hypot(du, dv);
      if (rho > 0.08) continue;
      const petal = 0.075 * (0.55 + 0.45 * Math.abs(Math.cos(2.5 * Math.atan2(dv, du))));
      if (rho < 0.016) return 0;
      if (rho < 0.024 || (rho < petal && rho > petal - stroke)) return 1;
      if (rho < petal) return 0.4;
    }
    for (let k = 0; k < 10; k++) {
      // Leaves along the vine where it crosses its mid-line, alternately above and below.
      const s = k % 2 === 0 ? 1 : -1;
      const du = wrap(a - (k * Math.PI) / 5) * r - 0.03 * s, dv = y + 0.07 - 0.045 * s;
      const c = Math.cos(0.6 * s), sn = Math.sin(0.6 * s);
      const e = Math.hypot((du * c + dv * sn) / 0.038, (dv * c - du * sn) / 0.015);
      if (e < 1) return e > 0.7 ? 1 : 0.4;
    }
    const slope = (0.09 * 5 * Math.cos(5 * a)) / r;
    return Math.abs(y + 0.07 - 0.09 * Math.sin(5 * a)) / Math.hypot(1, slope) < 0.009 ? 1 : 0;
  }
  return 0;
}

/** xorshift32 in [0, 1): tiny, fast and the same on every platform. */
function xorshift32(seed: number): () => number {
  let s = seed >>> 0 || 0x9e3779b9;
  return () => {
    s = (s ^ (s << 13)) >>> 0;
    s = (s ^ (s >>> 17)) >>> 0;
    s = (s ^ (s << 5)) >>> 0;
    return s / 4294967296;
  };
}

/** Quaternion (w x y z, w >= 0) of the rotation whose columns are the frame t, e, n. */
function frameQuaternion(t: Rgb, e: Rgb, n: Rgb): number[] {
  const [x, y, z, w] = quat.fromMat3([0, 0, 0, 0], [...t, ...e, ...n]) as number[] as Rgb4;
  const l = Math.hypot(w, x, y, z) * (w < 0 ? -1 : 1);
  return [w / l, x / l, y / l, z / l];
}

/** Albedo, ambient occlusion and glossiness of a material at a surface point. */
function surface(m: Material, p: Rgb, r: number, a: number): { albedo: Rgb; ao: number; gloss: number } {
  const [x, y, z] = p;
  if (m === 'wood') {
    const grain = Math.sin(38 * x + 5 * Math.sin(3 * z) + 2 * Math.sin(11 * z + 1.3));
    // Contact shadow on the top, fading out from the vase's foot.
    const ao = 1 - (y > -0.865 ? 0.55 * Math.exp(-Math.max(0, r - 0.255) / 0.05) : 0);
    return { albedo: WALNUT.map((c) => c * (0.86 + 0.12 * grain)) as Rgb, ao, gloss: 0 };
  }
  const k = m === 'glaze' ? ink(y, a, r) : y > 0.95 ? 1 : 0;
  const albedo = GLAZE.map((g, c) => g + (COBALT[c]! - g) * k) as Rgb;
  if (m === 'glaze') {
    const ao = 1 - 0.45 * Math.exp(-(y + 0.86) / 0.04); // darker where the foot meets the plinth
    return { albedo, ao, gloss: ao };
  }
  const ao = 0.1 + 0.75 * Math.exp(-(1 - y) / 0.18); // darker deeper inside
  return { albedo, ao, gloss: 0.3 * ao };
}

const dot = (a: Rgb, b: Rgb): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];

export function makeDefaultScene(options: { seed?: number } = {}): SplatCloud {
  const rand = xorshift32(options.seed ?? 1);
  const pos: number[] = [], scl: number[] = [], rot: number[] = [];
  const opa: number[] = [], dcs: number[] = [], shs: number[] = [];
  const basis = new Float64Array(K);
  const sh = new Float64Array(3 * K);
  const vase = vaseProfiles();
  const plinth: Vec2[] = [
    [0.58, -1], [0.615, -0.99], [0.625, -0.965], [0.625, -0.885], [0.617, -0.867],
    [0.598, -0.86], [0.255, -0.86],
  ];

  /** One splat at p with surface tangent t, ring tangent e and normal n, spacing h. */
  const emit = (m: Material, p: Rgb, r: number, a: number, t: Rgb, e: Rgb, n: Rgb, h: number): void => {
    pos.push(...p);
    rot.push(...frameQuaternion(t, e, n));
    const grow = 0.9 + 0.2 * rand();
    scl.push(0.7 * h * grow, 0.7 * h * grow, 0.08 * h);
    opa.push(m === 'interior' ? 0.97 : 0.985 - 0.02 * rand());

    const { albedo, ao, gloss } = surface(m, p, r, a);
    const speck = 0.98 + 0.04 * rand();
    const base = dcs.length;
    for (let c = 0; c < 3; c++) {
      // No direct light reaches the inside: ambient only.
      let light = AMBIENT;
      if (m !== 'interior') for (const l of LIGHTS) light += l.diffuse[c]! * Math.max(0, dot(n, l.dir));
      dcs.push((Math.min(1, albedo[c]! * light * ao * speck) - 0.5) / SH_C0);
    }
    sh.fill(0);
    for (const l of LIGHTS) {
      const nl = dot(n, l.dir);
      const gate = gloss * Math.min(1, Math.max(0, nl) / 0.2);
      if (gate === 0) continue;
      // Seen along d (camera to splat), the mirror lobe peaks at d = -reflect(L, n).
      shBasis(basis, l.dir[0] - 2 * nl * n[0], l.dir[1] - 2 * nl * n[1], l.dir[2] - 2 * nl * n[2]);
      for (let c = 0; c < 3; c++) {
        const s = gate * l.specular[c]!;
        dcs[base + c]! += s * LOBE[0]! * SH_C0;
        for (let j = 0; j < K; j++) sh[j * 3 + c]! += s * LOBE[BAND[j]!]! * WINDOW[BAND[j]!]! * basis[j]!;
      }
    }
    for (const v of sh) shs.push(v);
  };

  /** Sweeps a profile around the y axis in rings about h apart, about h between splats. */
  const sweep = (path: Vec2[], m: Material, h: number): void => {
    const cum = [0];
    for (let i = 1; i < path.length; i++) {
      cum.push(cum[i - 1]! + Math.hypot(path[i]![0] - path[i - 1]![0], path[i]![1] - path[i - 1]![1]));
    }
    const length = cum[cum.length - 1]!;
    const rings = Math.max(1, Math.round(length / h));
    let seg = 0;
    const segmentAt = (s: number): number => {
      while (seg + 2 < cum.length && cum[seg + 1]! < s) seg++;
      while (seg > 0 && cum[seg]! > s) seg--;
      return seg;
    };
    for (let ring = 0; ring < rings; ring++) {
      const s0 = ((ring + 0.5) * length) / rings;
      const count = Math.max(1, Math.round((TAU * path[segmentAt(s0)]![0]) / h));
      const phase = rand() * TAU;
      for (let j = 0; j < count; j++) {
        // Jittered stratified sampling: one splat per cell, placed off the cell centre.
        const s = Math.min(length, Math.max(0, s0 + ((rand() - 0.5) * 0.6 * length) / rings));
        const i = segmentAt(s), p = path[i]!, p1 = path[i + 1]!;
        const segLen = cum[i + 1]! - cum[i]!;
        const tr = (p1[0] - p[0]) / segLen, ty = (p1[1] - p[1]) / segLen;
        const r = p[0] + (s - cum[i]!) * tr, y = p[1] + (s - cum[i]!) * ty;
        const a = phase + ((j + 0.5 + (rand() - 0.5) * 0.6) * TAU) / count;
        const ca = Math.cos(a), sa = Math.sin(a);
        emit(m, [r * ca, y, r * sa], r, ((a % TAU) + TAU) % TAU,
          [tr * ca, ty, tr * sa], [-sa, 0, ca], [ty * ca, -tr, ty * sa], h);
      }
    }
  };

  sweep(plinth, 'wood', SPACING * 1.1);
  sweep(vase.outer, 'glaze', SPACING);
  sweep(vase.lip, 'glaze', SPACING * 0.6);
  sweep(vase.upperInside, 'interior', SPACING);
  sweep(vase.lowerInside, 'interior', SPACING * 3);
  sweep(vase.floor, 'interior', SPACING * 3);

  const count = opa.length;
  const positions = new Float32Array(pos);
  return {
    count,
    shDegree: 3,
    positions,
    scales: new Float32Array(scl),
    rotations: new Float32Array(rot),
    opacities: new Float32Array(opa),
    dc: new Float32Array(dcs),
    sh: new Float32Array(shs),
    bounds: computeBounds(positions, count),
  };
}
