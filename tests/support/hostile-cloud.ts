/**
 * A hostile scene, as an attacker would make it: splats that cover the
 * window many times over. `count` splats in a cube of side 2 at the
 * origin, `share` of them balls of σ 10–100 (each covers a window framed
 * on the cube), the rest σ 0.01; opacities 0.05–0.5, colours at random,
 * seeded (the same scene every time). The frame benchmark's file
 * (bench/hostile-scene.ts) and the page's test of such a file.
 */
import { allocateSplatCloud, computeBounds, SH_C0, type SplatCloud } from '../../src/scene/splat-cloud';
import { rng } from './splat-files';

export function hostileCloud(count: number, share = 0.95, seed = 86818): SplatCloud {
  const random = rng(seed);
  const cloud = allocateSplatCloud(count, 0);
  for (let i = 0; i < count; i++) {
    const sigma = random() < share ? 10 + 90 * random() : 0.01;
    for (let a = 0; a < 3; a++) {
      cloud.positions[3 * i + a] = 2 * random() - 1;
      cloud.scales[3 * i + a] = sigma;
      cloud.dc[3 * i + a] = (random() - 0.5) / SH_C0;
    }
    cloud.rotations[4 * i] = 1;
    cloud.opacities[i] = 0.05 + 0.45 * random();
  }
  cloud.bounds = computeBounds(cloud.positions, count);
  return cloud;
}
