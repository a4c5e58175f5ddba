/**
 * How a sort of a count that lies on the GPU is dispatched: directly for a
 * bound known on the CPU (SortEncodeOptions.countBound), its workgroups past
 * the count exiting at once, or indirectly from the count. One decision for
 * every such sort (the frame's depth sort, the tile renderer's pair sort).
 * DOM-free.
 *
 * On a GPU the bound wins: Dawn checks every indirect dispatch with a pass
 * of its own, 12 of them cost 0.055 ms a sort on an H200, and idle
 * workgroups cost less than that even at 16 times the count (radix-encode.ts
 * has the figures). On a software adapter every workgroup costs about a
 * millisecond even when it exits at once: SwiftShader sorted a 160×90 tile
 * frame's pairs in 2.75 s under the pair room's bound of 1M (256 tiles of
 * 4,096), so there the count sizes the dispatches.
 */
import { isSoftwareDevice } from '../gpu/software-adapter';

const verdicts = new WeakMap<GPUDevice, boolean>();

/** Whether sorts of GPU counts on this device are dispatched for a bound known on the CPU. */
export function boundsGpuCounts(device: GPUDevice): boolean {
  let verdict = verdicts.get(device);
  if (verdict === undefined) {
    verdict = !isSoftwareDevice(device);
    verdicts.set(device, verdict);
  }
  return verdict;
}
