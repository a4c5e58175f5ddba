/**
 * Writes a SplatCloud as an antimatter15 .splat file (the 32-byte records
 * splat-format.ts reads): positions and scales as float32, exactly; the
 * base colour (0.5 + SH_C0 · dc, clamped to 0..1), the opacity and the
 * unit quaternion (w x y z, each as q · 128 + 128) rounded to 8 bits. The
 * format has no higher SH bands: they are dropped. DOM-free.
 */
import { SH_C0, type SplatCloud } from '../../scene/splat-cloud';
import { SPLAT_RECORD_SIZE } from '../splat/parse';
import { checkWritable } from './writable';

/** A value in 0..1 as the nearest byte. */
const byte = (unit: number): number => Math.min(255, Math.max(0, Math.round(unit * 255)));

/** The file's bytes: one record per splat, in the cloud's order. */
export function writeSplat(cloud: SplatCloud): Uint8Array {
  checkWritable(cloud, '.splat');
  const { count, positions, scales, rotations, opacities, dc } = cloud;
  const bytes = new Uint8Array(count * SPLAT_RECORD_SIZE);
  const floats = new Float32Array(bytes.buffer);
  for (let i = 0; i < count; i++) {
    const f = i * (SPLAT_RECORD_SIZE / 4);
    const b = i * SPLAT_RECORD_SIZE;
    for (let a = 0; a < 3; a++) {
      floats[f + a] = positions[3 * i + a]!;
      floats[f + 3 + a] = scales[3 * i + a]!;
      bytes[b + 24 + a] = byte(0.5 + SH_C0 * dc[3 * i + a]!);
    }
    bytes[b + 27] = byte(opacities[i]!);
    for (let c = 0; c < 4; c++) bytes[b + 28 + c] = Math.min(255, Math.max(0, Math.round(rotations[4 * i + c]! * 128 + 128)));
  }
  return bytes;
}
