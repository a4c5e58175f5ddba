/**
 * Parser for the antimatter15 `.splat` format into a SplatCloud. DOM-free.
 *
 * The file is a bare array of 32-byte little-endian records, no header:
 *   0  position x y z   3 × float32
 *   12 scale x y z      3 × float32 (standard deviations, already linear)
 *   24 colour r g b a   4 × uint8 (rgb: final base colour, a: opacity)
 *   28 rotation w x y z 4 × uint8, each stored as q * 128 + 128 clamped to 0..255
 * There are no higher SH bands, so the cloud has shDegree 0.
 */
import { allocateSplatCloud, computeBounds, SH_C0, writeUnitQuaternion, type SplatCloud } from '../scene/splat-cloud';
import { SplatFormatError } from './ply';

/** Bytes per splat record. */
export const SPLAT_RECORD_SIZE = 32;

const PROGRESS_ROWS = 65536;

export function parseSplatFormat(
  buffer: ArrayBuffer | Uint8Array,
  options: { onProgress?: (fraction: number) => void } = {},
): SplatCloud {
  const bytes = buffer instanceof Uint8Array ? buffer : new Uint8Array(buffer);
  const length = bytes.byteLength;
  const leftover = length % SPLAT_RECORD_SIZE;
  if (leftover !== 0) {
    throw new SplatFormatError(
      `.splat file is ${length} bytes, not a multiple of the ${SPLAT_RECORD_SIZE}-byte record: ` +
      `${Math.floor(length / SPLAT_RECORD_SIZE)} whole splats and ${leftover} bytes left over (truncated or not a .splat file)`,
    );
  }
  const count = length / SPLAT_RECORD_SIZE;
  if (count === 0) throw new SplatFormatError('.splat file is empty: it holds 0 splats');

  // Floats are read through a Float32Array over the records (8 floats each);
  // the platform is little endian like the format. Copy if misaligned.
  const f32 = bytes.byteOffset % 4 === 0
    ? new Float32Array(bytes.buffer, bytes.byteOffset, length / 4)
    : new Float32Array(bytes.slice().buffer);

  const cloud = allocateSplatCloud(count, 0);
  const { positions, scales, rotations, opacities, dc } = cloud;
  const onProgress = options.onProgress;
  const colourScale = 1 / (255 * SH_C0);
  const colourOffset = 0.5 / SH_C0;

  for (let i = 0; i < count; i++) {
    const f = i * 8;
    const b = i * SPLAT_RECORD_SIZE;
    const i3 = i * 3;
    positions[i3] = f32[f]!;
    positions[i3 + 1] = f32[f + 1]!;
    positions[i3 + 2] = f32[f + 2]!;
    scales[i3] = f32[f + 3]!;
    scales[i3 + 1] = f32[f + 4]!;
    scales[i3 + 2] = f32[f + 5]!;
    // colour = rgb / 255 = 0.5 + SH_C0 * dc
    dc[i3] = bytes[b + 24]! * colourScale - colourOffset;
    dc[i3 + 1] = bytes[b + 25]! * colourScale - colourOffset;
    dc[i3 + 2] = bytes[b + 26]! * colourScale - colourOffset;
    opacities[i] = bytes[b + 27]! / 255;
    const w = bytes[b + 28]! - 128, x = bytes[b + 29]! - 128, y = bytes[b + 30]! - 128, z = bytes[b + 31]! - 128;
    writeUnitQuaternion(rotations, i * 4, w, x, y, z);
    if (onProgress && (i + 1) % PROGRESS_ROWS === 0) onProgress((i + 1) / count);
  }
  onProgress?.(1);

  cloud.bounds = computeBounds(positions, count);
  return cloud;
}
