/**
 * The projector's keep rule on the CPU (src/render/splat-keep-rule.ts), as
 * the tests count it against the GPU's visible count.
 */
import type { FrameParameters } from '../../src/render/frame-uniforms';
import { keptDepths } from '../../src/render/splat-keep-rule';
import type { SplatCloud } from '../../src/scene/splat-cloud';

/** For each splat: its view depth when kept, or null when culled. */
export function cpuKeptDepths(cloud: SplatCloud, p: FrameParameters): (number | null)[] {
  return Array.from(keptDepths(cloud, p), (depth) => (Number.isNaN(depth) ? null : depth));
}
