/**
 * What a load may cost on this device (src/io/load-limits.ts says how the
 * loader uses it): the renderer's buffers decide how many splats fit, so
 * the limits are computed here, where the scene's chunk layout and the
 * projector's record size are both known, and handed down to the loader as
 * plain data.
 */
import { chunkLayout, storageBufferLimit } from '../scene/gpu-splats';
import type { ShDegree } from '../scene/splat-cloud';
import { HEADER_SLACK_BYTES, PLY_ROW_BYTES, type LoadLimits } from '../io/load-limits';
import { PROJECTED_SPLAT } from './frame-layouts';

/**
 * The limits of a renderer whose storage buffers hold `storageBufferBytes`
 * each (storageBufferLimit(device) in src/scene/gpu-splats.ts): the scene's
 * chunked layout and the projector's one record buffer (a ProjectedSplat
 * per splat) decide how many splats fit, and the largest file of that many
 * splats bounds the bytes.
 */
export function loadLimitsFor(storageBufferBytes: number): LoadLimits {
  const degrees: ShDegree[] = [0, 1, 2, 3];
  const records = Math.floor(storageBufferBytes / PROJECTED_SPLAT.size);
  const maxSplats = degrees.map((d) => Math.min(chunkLayout(0, d, storageBufferBytes).maxSplats, records)) as [number, number, number, number];
  const maxBytes = Math.max(...degrees.map((d) => maxSplats[d] * PLY_ROW_BYTES[d])) + HEADER_SLACK_BYTES;
  return { maxSplats, maxBytes };
}

/** The load limits of `device`: what its storage buffers let the renderer draw. */
export function deviceLoadLimits(device: GPUDevice): LoadLimits {
  return loadLimitsFor(storageBufferLimit(device));
}
