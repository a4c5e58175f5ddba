/**
 * Scenes with a known up for the up-axis guesses (src/app/camera/up-guess.ts,
 * object-base.ts): a town on its ground, a town seen from a drone, a figure
 * on its footing, turned and tilted onto any axis; and the same as a splat
 * cloud to open in the viewer.
 */
import { UP_AXES, type UpAxis } from '../../src/app/camera/up-axis';
import { allocateSplatCloud, computeBounds, type SplatCloud } from '../../src/scene/splat-cloud';

export type Vec3 = [number, number, number];

/** xorshift32 in [0, 1): the same scene on every run. */
export function random(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 2 ** 32;
  };
}

/** A standard normal from two uniforms (Box–Muller). */
export function gaussian(rand: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
}

/**
 * A town in its own frame, +y up: a thin ground (20,000 points over
 * 2 × 2) with boxes standing on it (walls and roofs), tree crowns, and a
 * few floaters in the sky.
 */
export function town(seed = 7): Vec3[] {
  const rand = random(seed);
  const points: Vec3[] = [];
  for (let i = 0; i < 20000; i++) points.push([2 * rand() - 1, 0.004 * gaussian(rand), 2 * rand() - 1]);
  for (let b = 0; b < 12; b++) {
    const cx = 1.6 * rand() - 0.8, cz = 1.6 * rand() - 0.8;
    const hx = 0.05 + 0.1 * rand(), hz = 0.05 + 0.1 * rand(), height = 0.1 + 0.4 * rand();
    for (let i = 0; i < 600; i++) {
      const u = 2 * rand() - 1, h = height * rand();
      const face = Math.floor(rand() * 5);
      if (face === 0) points.push([cx + hx * u, height, cz + hz * (2 * rand() - 1)]);
      else if (face === 1) points.push([cx - hx, h, cz + hz * u]);
      else if (face === 2) points.push([cx + hx, h, cz + hz * u]);
      else if (face === 3) points.push([cx + hx * u, h, cz - hz]);
      else points.push([cx + hx * u, h, cz + hz]);
    }
  }
  for (let t = 0; t < 6; t++) {
    const centre: Vec3 = [1.6 * rand() - 0.8, 0.2 + 0.1 * rand(), 1.6 * rand() - 0.8];
    for (let i = 0; i < 300; i++) {
      const d: Vec3 = [gaussian(rand), gaussian(rand), gaussian(rand)];
      const r = 0.08 / Math.hypot(...d);
      points.push([centre[0] + r * d[0], centre[1] + r * d[1], centre[2] + r * d[2]]);
    }
  }
  for (let i = 0; i < 200; i++) points.push([3 * rand() - 1.5, 1.5 * rand(), 3 * rand() - 1.5]);
  return points;
}

/**
 * A dense town seen from a drone, +y up: the cameras see roofs (level
 * within each house, 40,000 points) far better than the narrow streets
 * between them (8,000) and the walls (sparse), so the heights pile up
 * at the roofs and thin out towards the ground — the profile of the 150k
 * karangkidul capture, which reads upside down by its skewness alone.
 */
export function aerialTown(seed = 9): Vec3[] {
  const rand = random(seed);
  const points: Vec3[] = [];
  for (let i = 0; i < 8000; i++) points.push([2 * rand() - 1, 0.002 * gaussian(rand), 2 * rand() - 1]);
  const houses = 100;
  for (let b = 0; b < houses; b++) {
    const cx = -0.9 + 0.2 * (b % 10), cz = -0.9 + 0.2 * Math.floor(b / 10);
    const height = 0.03 + 0.05 * rand();
    for (let i = 0; i < 400; i++) points.push([cx + 0.08 * (2 * rand() - 1), height + 0.002 * gaussian(rand), cz + 0.08 * (2 * rand() - 1)]);
    for (let i = 0; i < 40; i++) points.push([cx + 0.08 * (rand() < 0.5 ? -1 : 1), height * rand(), cz + 0.08 * (2 * rand() - 1)]);
  }
  return points;
}

/** Turns the points by `degrees` about the x axis (a ground tilted off level). */
export function tilted(points: Vec3[], degrees: number): Vec3[] {
  const c = Math.cos((degrees * Math.PI) / 180), s = Math.sin((degrees * Math.PI) / 180);
  return points.map(([x, y, z]) => [x, c * y - s * z, s * y + c * z]);
}

/** A proper rotation taking the frame's +y to `up`: the frame's x and z go to two other axes, right-handed. */
export function placed(points: Vec3[], up: UpAxis): Vec3[] {
  const u = UP_AXES[up];
  const right: Vec3 = u[0] !== 0 ? [0, 0, 1] : [1, 0, 0];
  const forward: Vec3 = [right[1] * u[2] - right[2] * u[1], right[2] * u[0] - right[0] * u[2], right[0] * u[1] - right[1] * u[0]];
  return points.map(([x, y, z]) => [
    x * right[0] + y * u[0] + z * forward[0],
    x * right[1] + y * u[1] + z * forward[1],
    x * right[2] + y * u[2] + z * forward[2],
  ]);
}

/** `points` as small, opaque, grey-green splats, round and unrotated: a scene the viewer opens. */
export function cloudOf(points: Vec3[]): SplatCloud {
  const cloud = allocateSplatCloud(points.length, 0);
  points.forEach((p, i) => {
    cloud.positions.set(p, 3 * i);
    cloud.scales.set([0.01, 0.01, 0.01], 3 * i);
    cloud.rotations[4 * i] = 1;
    cloud.opacities[i] = 0.8;
    cloud.dc.set([0.3, 0.6, 0.2], 3 * i);
  });
  cloud.bounds = computeBounds(cloud.positions, cloud.count);
  return cloud;
}

/**
 * An object on its footing in its own frame, +y up, as a statue stands:
 * a plinth (a disc of radius 0.5, 0.06 thick) under a column (radius
 * 0.12, 1.6 tall) ending in a head (a ball of radius 0.1), 6000 points
 * over their surfaces. No ground: its spread is too round for one.
 */
export function figure(seed = 13): Vec3[] {
  const rand = random(seed);
  const points: Vec3[] = [];
  const onCircle = (radius: number, y: number): Vec3 => {
    const a = 2 * Math.PI * rand();
    return [radius * Math.cos(a), y, radius * Math.sin(a)];
  };
  for (let i = 0; i < 2000; i++) points.push(onCircle(0.5 * Math.sqrt(rand()), 0.06 * rand()));
  for (let i = 0; i < 3000; i++) points.push(onCircle(0.12, 0.06 + 1.6 * rand()));
  for (let i = 0; i < 1000; i++) {
    const d: Vec3 = [gaussian(rand), gaussian(rand), gaussian(rand)];
    const length = Math.hypot(...d);
    points.push([(0.1 * d[0]) / length, 1.76 + (0.1 * d[1]) / length, (0.1 * d[2]) / length]);
  }
  return points;
}

/** `count` points on the upper half (+y) of a sphere of `radius` about the origin: a sky dome over a scene. */
export function skyDome(count: number, radius: number, seed = 3): Vec3[] {
  const rand = random(seed);
  const points: Vec3[] = [];
  while (points.length < count) {
    const d: Vec3 = [gaussian(rand), gaussian(rand), gaussian(rand)];
    const length = Math.hypot(...d);
    if (d[1] >= 0) points.push([(radius * d[0]) / length, (radius * d[1]) / length, (radius * d[2]) / length]);
  }
  return points;
}
