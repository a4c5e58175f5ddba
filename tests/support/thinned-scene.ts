/**
 * A lighter copy of a scene for tests that need its shape and not its
 * detail: every `step`-th splat, each grown by √step along its axes so the
 * surfaces stay covered (a surface keeps 1/step of its splats, each
 * covering step times the area), or left as it is with `grow: false`
 * (gaps, but nothing drawn beyond the original's outline). Bounds and look
 * stay close to the original's; drawing costs about 1/step of it.
 */
import { allocateSplatCloud, computeBounds, shCoefficients, type SplatCloud } from '../../src/scene/splat-cloud';

export function thinnedScene(cloud: SplatCloud, step: number, { grow = true } = {}): SplatCloud {
  const count = Math.ceil(cloud.count / step);
  const thin = allocateSplatCloud(count, cloud.shDegree);
  const sh = 3 * shCoefficients(cloud.shDegree);
  const scale = grow ? Math.sqrt(step) : 1;
  for (let j = 0; j < count; j++) {
    const i = j * step;
    thin.positions.set(cloud.positions.subarray(3 * i, 3 * i + 3), 3 * j);
    for (let a = 0; a < 3; a++) thin.scales[3 * j + a] = cloud.scales[3 * i + a]! * scale;
    thin.rotations.set(cloud.rotations.subarray(4 * i, 4 * i + 4), 4 * j);
    thin.opacities[j] = cloud.opacities[i]!;
    thin.dc.set(cloud.dc.subarray(3 * i, 3 * i + 3), 3 * j);
    thin.sh.set(cloud.sh.subarray(sh * i, sh * (i + 1)), sh * j);
  }
  thin.bounds = computeBounds(thin.positions, count);
  return thin;
}
