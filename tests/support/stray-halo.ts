/**
 * A scene that fooled the old framing: a small dense object (a round table:
 * top and four legs, about 1.8 units in radius) inside a halo of faint
 * strays reaching 7× that radius, centred beside it, holding 8 % of the
 * splats, as in a user's .ksplat of a garden table.
 */
import { allocateSplatCloud, computeBounds, SH_C0, type Bounds, type SplatCloud } from '../../src/scene/splat-cloud';
import { rng } from './splat-files';

export interface HaloScene {
  cloud: SplatCloud;
  /** The table's box. */
  object: Bounds;
  /** The table's bounding-sphere radius (half the box's diagonal). */
  objectRadius: number;
}

export interface HaloOptions {
  /** Splats of the table (default 20,000). */
  objectSplats?: number;
  /** The halo's share of all splats (default 0.08). */
  haloShare?: number;
  /** The halo strays' opacity (default 0.12: faint) and σ (default 0.08). */
  haloOpacity?: number;
  haloSigma?: number;
  /** The halo's colour, 0..1 RGB (default a dim grey). */
  haloColour?: readonly [number, number, number];
  seed?: number;
}

/** Where the table stands: off the halo's centre, so a framing on the halo aims beside it. */
export const TABLE_CENTRE = [4, 0.5, -3] as const;
const TOP_RADIUS = 1.8;
const LEG_LENGTH = 1.2;
/** The halo's radius around the origin: 7× the table's top. */
export const HALO_RADIUS = 7 * TOP_RADIUS;

export function tableInHalo(options: HaloOptions = {}): HaloScene {
  const objectSplats = options.objectSplats ?? 20000;
  const haloShare = options.haloShare ?? 0.08;
  const haloSplats = Math.round((objectSplats * haloShare) / (1 - haloShare));
  const count = objectSplats + haloSplats;
  const cloud = allocateSplatCloud(count, 0);
  const random = rng(options.seed ?? 11);
  const [cx, cy, cz] = TABLE_CENTRE;
  const set = (i: number, p: [number, number, number], sigma: number, opacity: number, colour: readonly number[]) => {
    cloud.positions.set(p, 3 * i);
    cloud.scales.set([sigma, sigma, sigma], 3 * i);
    cloud.rotations[4 * i] = 1;
    cloud.opacities[i] = opacity;
    for (let c = 0; c < 3; c++) cloud.dc[3 * i + c] = (colour[c]! - 0.5) / SH_C0;
  };
  const topSplats = Math.round(objectSplats * 0.85);
  for (let i = 0; i < objectSplats; i++) {
    if (i < topSplats) {
      // The top: a disc, uniform in area.
      const r = TOP_RADIUS * Math.sqrt(random()), a = 2 * Math.PI * random();
      set(i, [cx + r * Math.cos(a), cy + 0.05 * (random() - 0.5), cz + r * Math.sin(a)], 0.04, 0.9, [0.8, 0.35, 0.2]);
    } else {
      // Four legs below the top.
      const leg = i % 4, a = (Math.PI / 2) * leg + Math.PI / 4;
      const r = 0.7 * TOP_RADIUS;
      set(i, [cx + r * Math.cos(a), cy - LEG_LENGTH * random(), cz + r * Math.sin(a)], 0.04, 0.9, [0.5, 0.3, 0.2]);
    }
  }
  const haloColour = options.haloColour ?? [0.4, 0.4, 0.4];
  for (let i = objectSplats; i < count; i++) {
    // Uniform in the ball.
    let p: [number, number, number];
    do p = [2 * random() - 1, 2 * random() - 1, 2 * random() - 1]; while (Math.hypot(...p) > 1);
    set(i, [HALO_RADIUS * p[0], HALO_RADIUS * p[1], HALO_RADIUS * p[2]], options.haloSigma ?? 0.08, options.haloOpacity ?? 0.12, haloColour);
  }
  cloud.bounds = computeBounds(cloud.positions, count);
  const object: Bounds = { min: [cx - TOP_RADIUS, cy - LEG_LENGTH, cz - TOP_RADIUS], max: [cx + TOP_RADIUS, cy + 0.025, cz + TOP_RADIUS] };
  const objectRadius = Math.hypot(...object.max.map((m, a) => m - object.min[a]!)) / 2;
  return { cloud, object, objectRadius };
}
