/**
 * Load-time check for splats that cover the whole window: each costs a
 * window of fragments every frame (~2.1M at 1080p). The renderer draws them
 * exactly (its cap, src/render/splat-size-cap.ts, bounds one splat to the
 * window but cannot make a window-covering splat cheaper), so a file with
 * many of them (scale 1e6 from a bad export, or a hostile file) is slow
 * whatever the renderer does: the user is told. DOM-free; it runs in the
 * load worker on every scene, so it is one pass over the arrays with no
 * allocation (1M splats: a few ms, measured in
 * tests/unit/oversized-splats.test.ts).
 *
 * The criterion is the viewer's first view, made view-independent: the bulk
 * of the scene (visibleMassBounds) framed as OrbitCamera.frame does, in a
 * 1920×1080 window at a 60° vertical field of view. The camera then orbits
 * the bounds' centre c at distance D (the bounding sphere of radius r fits
 * the vertical field: D = r / sin 30° = 2r). Over all orbit directions the
 * mean squared distance from the camera to a point at distance ρ from c is
 * D² + ρ² exactly (the cross term averages to zero), so a splat's depth is
 * taken as √(D² + ρ²): the bulk of the scene sits at about D, far floaters
 * and sky splats at their own distance whatever the orbit.
 *
 * Which splats cover the window. A splat is drawn where alpha ≥ 1/255,
 * within min(3, k) standard deviations of its screen ellipse along the major
 * axis and k along the minor, k = √(2 ln(255 o)) (shaders/splat_project.wgsl),
 * so the drawn region holds the disc of radius min(3, k)·σ_minor around its
 * centre. The screen ellipse's minor σ is at most the splat's middle σ (the
 * 2×2 projection of a 3×3 covariance interlaces its eigenvalues), and
 * reaches it seen along the smallest axis: a ball or a disc seen face-on can
 * cover the window, a needle (one large σ) never can, whatever its length:
 * it costs a strip. So a splat is oversized when min(3, k)·σ_mid·f / depth
 * exceeds the window's half-diagonal (f the focal length in pixels): then,
 * seen face-on with its centre in the window's middle, its disc contains
 * every pixel of the window.
 */
import type { Bounds, SplatCloud } from './splat-cloud';
import { visibleMassBounds } from './visible-mass';

/** The view the check assumes: the viewer's default field of view in a 1080p window. */
export const REFERENCE_VIEW = { width: 1920, height: 1080, fovY: Math.PI / 3 } as const;

/** The reference window's half-diagonal, pixels (1,101): the on-screen radius of a disc that covers it from its middle. */
export const WINDOW_RADIUS_PX = Math.hypot(REFERENCE_VIEW.width, REFERENCE_VIEW.height) / 2;

/**
 * Warn when more than this many splats cover the window. The cost is
 * absolute, not a share of the scene: each covers the whole 1920×1080
 * window (~2.1M fragments) when it is on screen, and a blended-quad pass
 * runs at about 10 G fragments/s on the H100 (shared/GUIDE.md §2), so 100 of
 * them add ~20 ms to every frame: a frame budget. The real scenes in
 * ../shared/scenes have none (their largest is 259 px, under a quarter of
 * the 1,101 px half-diagonal: the 9k INRIA scene;
 * tests/unit/oversized-splats.test.ts), the tester's file 20,000.
 */
export const OVERSIZED_WARNING_COUNT = 100;

export interface OversizedSplats {
  /** Splats that cover the whole window at the reference view. */
  count: number;
  /** count / splats in the scene (0 for an empty scene). */
  share: number;
  /** The largest drawn radius, min(3, k)·σ_mid·f / depth, among them at the reference view, pixels (0 when none). */
  largestRadiusPx: number;
  /** The largest middle standard deviation among them, scene units. */
  largestSigma: number;
  /** Diagonal of the framed bounds, scene units. */
  sceneSize: number;
}

/** Options of the check: the framed bounds, and the radius that counts as covering the window. */
export interface OversizedOptions {
  /** The framed bounds when the caller has them (the viewer computes them anyway); otherwise visibleMassBounds of BOUNDS_SAMPLES splats. */
  bounds?: Bounds;
  /** On-screen radius (pixels) above which a splat counts (default WINDOW_RADIUS_PX); tests lower it to count more. */
  windowRadiusPx?: number;
}

/** Counts the splats that cover the whole window when the scene is framed as the viewer frames it. */
export function countOversizedSplats(cloud: SplatCloud, options: OversizedOptions = {}): OversizedSplats {
  const { count, positions, scales, opacities } = cloud;
  const limit = options.windowRadiusPx ?? WINDOW_RADIUS_PX;
  const { min, max } = options.bounds ?? visibleMassBounds(cloud, BOUNDS_SAMPLES);
  const cx = (min[0] + max[0]) / 2, cy = (min[1] + max[1]) / 2, cz = (min[2] + max[2]) / 2;
  const sceneSize = Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]);
  // As OrbitCamera.frame: the sphere fits the narrower field of view.
  const r = Math.max(1e-3, sceneSize / 2);
  const halfY = REFERENCE_VIEW.fovY / 2;
  const halfX = Math.atan(Math.tan(halfY) * (REFERENCE_VIEW.width / REFERENCE_VIEW.height));
  const distance = r / Math.sin(Math.min(halfY, halfX));
  const focal = REFERENCE_VIEW.height / (2 * Math.tan(halfY));
  const d2 = distance * distance;
  // Oversized ⇔ k σ f > limit √(D² + ρ²), σ the middle scale, k ≤ 3
  // (the quad's major-axis cap and the alpha cut, file header). The first test
  // (9 σ² f² > limit² (D² + ρ²), no square root, no log) rejects almost every
  // splat; the log for the opacity's k runs only on the candidates.
  const ratio2 = (limit * limit) / (focal * focal);
  // depth² ≥ D²: a σ under this is small at any depth, without reading its position.
  const smallSigma2 = (ratio2 * d2) / 9;
  let oversized = 0;
  let largestRadiusPx = 0;
  let largestSigma = 0;
  for (let i = 0; i < count; i++) {
    const s0 = scales[3 * i]!, s1 = scales[3 * i + 1]!, s2 = scales[3 * i + 2]!;
    // The middle of the three: max(min(s0, s1), min(max(s0, s1), s2)).
    const lo01 = s0 < s1 ? s0 : s1, hi01 = s0 < s1 ? s1 : s0;
    const capped = hi01 < s2 ? hi01 : s2;
    const sigma = lo01 > capped ? lo01 : capped;
    if (sigma * sigma <= smallSigma2) continue;
    const dx = positions[3 * i]! - cx, dy = positions[3 * i + 1]! - cy, dz = positions[3 * i + 2]! - cz;
    const depth2 = d2 + dx * dx + dy * dy + dz * dz;
    if (!(9 * sigma * sigma > ratio2 * depth2)) continue;
    const alpha = 255 * opacities[i]!;
    if (!(alpha > 1)) continue; // never drawn: alpha < 1/255 everywhere
    const k = Math.min(3, Math.sqrt(2 * Math.log(alpha)));
    const radiusPx = (k * sigma * focal) / Math.sqrt(depth2);
    if (!(radiusPx > limit)) continue;
    oversized++;
    if (radiusPx > largestRadiusPx) largestRadiusPx = radiusPx;
    if (sigma > largestSigma) largestSigma = sigma;
  }
  return { count: oversized, share: count > 0 ? oversized / count : 0, largestRadiusPx, largestSigma, sceneSize };
}

/**
 * Splats the framed bounds are taken from: their quantiles then err by
 * ±0.3 % of the splats, a few percent of the framing at most, for an
 * eighth of the viewer's MASS_SAMPLES (which cost about as much as this
 * whole check on 1M splats).
 */
const BOUNDS_SAMPLES = 8192;

/**
 * A warning for the user when more than OVERSIZED_WARNING_COUNT splats
 * cover the whole window at the viewer's first view, or undefined.
 */
export function oversizedSplatWarning(cloud: SplatCloud, options: OversizedOptions = {}): string | undefined {
  const found = countOversizedSplats(cloud, options);
  if (found.count <= OVERSIZED_WARNING_COUNT) return undefined;
  const percent = found.share * 100;
  const share = percent >= 1 ? percent.toFixed(0) : percent.toPrecision(2);
  const view = `${REFERENCE_VIEW.width}×${REFERENCE_VIEW.height}`;
  const windowMegapixels = (REFERENCE_VIEW.width * REFERENCE_VIEW.height) / 1e6;
  return (
    `${found.count.toLocaleString('en-US')} of ${cloud.count.toLocaleString('en-US')} splats (${share}%) are large enough to cover the whole window: ` +
    `at the first view (${view}) the largest would be ${formatSize(2 * found.largestRadiusPx)} px across ` +
    `(σ ${formatSize(found.largestSigma)} units; the bulk of the scene is ${formatSize(found.sceneSize)} units across). ` +
    `Each costs a whole window of pixels (${windowMegapixels.toFixed(1)}M) to draw every frame, so the scene may render slowly: ` +
    `the file's scales are probably broken.`
  );
}

/** About 3 significant digits: 0.0123, 4.56, 789, 12,346, 1.23e+6. */
function formatSize(value: number): string {
  if (!Number.isFinite(value) || value >= 1e6) return value.toExponential(2);
  if (value >= 100) return Math.round(value).toLocaleString('en-US');
  return String(Number(value.toPrecision(3)));
}
