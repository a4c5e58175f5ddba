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
import { computeBounds, SH_C0, writeUnitQuaternion, type SplatCloud } from '../../scene/splat-cloud';
import { SplatFormatError } from '../format-error';
import { RecordStream } from '../record-stream';
import { checkSplatCount, type LoadLimits } from '../load-limits';
import { validateSplatCloud } from '../validate-splats';

/** Bytes per splat record. */
export const SPLAT_RECORD_SIZE = 32;

const COLOUR_SCALE = 1 / (255 * SH_C0);
const COLOUR_OFFSET = 0.5 / SH_C0;

/**
 * Decodes .splat records as they arrive. The format has no header, so the
 * splat count is the file size over 32 when that is known (checked first),
 * else whatever whole records arrive.
 */
export class SplatRecordStream extends RecordStream {
  private readonly totalBytes: number | undefined;
  private readonly reportDone: ((fraction: number) => void) | undefined;

  constructor(options: { totalBytes?: number; onProgress?: (fraction: number) => void; limits?: LoadLimits } = {}) {
    const { totalBytes, limits } = options;
    if (totalBytes !== undefined) checkLength(totalBytes);
    const count = totalBytes === undefined ? undefined : totalBytes / SPLAT_RECORD_SIZE;
    if (count !== undefined && limits) checkSplatCount(count, 0, limits, 'The .splat file holds');
    super({ recordSize: SPLAT_RECORD_SIZE, count, preallocate: true, shDegree: 0, onProgress: options.onProgress, limits });
    this.totalBytes = totalBytes;
    this.reportDone = options.onProgress;
  }

  /** The decoded scene, its values checked (validateSplatCloud); throws when the bytes did not end on a whole record. */
  override finish(): SplatCloud {
    const received = this.decodedRecords * SPLAT_RECORD_SIZE + this.partialBytes;
    checkLength(received);
    if (this.totalBytes !== undefined && received !== this.totalBytes) {
      throw new SplatFormatError(
        `.splat file is truncated: ${this.totalBytes} bytes were announced, ${received} arrived`,
      );
    }
    const cloud = this.trimmedCloud();
    cloud.bounds = computeBounds(cloud.positions, cloud.count);
    validateSplatCloud(cloud);
    this.reportDone?.(1);
    return cloud;
  }

  protected decodeBlock(block: Uint8Array, records: number): void {
    // Floats through a Float32Array over the records (8 floats each); the
    // platform is little endian like the format.
    const f32 = new Float32Array(block.buffer, block.byteOffset, records * 8);
    const { positions, scales, rotations, opacities, dc } = this.cloud;
    for (let r = 0, i = this.decodedRecords; r < records; r++, i++) {
      const f = r * 8;
      const b = r * SPLAT_RECORD_SIZE;
      const i3 = i * 3;
      positions[i3] = f32[f]!;
      positions[i3 + 1] = f32[f + 1]!;
      positions[i3 + 2] = f32[f + 2]!;
      scales[i3] = f32[f + 3]!;
      scales[i3 + 1] = f32[f + 4]!;
      scales[i3 + 2] = f32[f + 5]!;
      // colour = rgb / 255 = 0.5 + SH_C0 * dc
      dc[i3] = block[b + 24]! * COLOUR_SCALE - COLOUR_OFFSET;
      dc[i3 + 1] = block[b + 25]! * COLOUR_SCALE - COLOUR_OFFSET;
      dc[i3 + 2] = block[b + 26]! * COLOUR_SCALE - COLOUR_OFFSET;
      opacities[i] = block[b + 27]! / 255;
      const w = block[b + 28]! - 128, x = block[b + 29]! - 128, y = block[b + 30]! - 128, z = block[b + 31]! - 128;
      writeUnitQuaternion(rotations, i * 4, w, x, y, z);
    }
  }
}

/** A .splat file is a whole number (at least one) of 32-byte records. */
function checkLength(length: number): void {
  const leftover = length % SPLAT_RECORD_SIZE;
  if (leftover !== 0) {
    throw new SplatFormatError(
      `.splat file is ${length} bytes, not a multiple of the ${SPLAT_RECORD_SIZE}-byte record: ` +
      `${Math.floor(length / SPLAT_RECORD_SIZE)} whole splats and ${leftover} bytes left over (truncated or not a .splat file)`,
    );
  }
  if (length === 0) throw new SplatFormatError('.splat file is empty: it holds 0 splats');
}

/** Parses a whole .splat file held in memory. */
export function parseSplatFormat(
  buffer: ArrayBuffer | Uint8Array,
  options: { onProgress?: (fraction: number) => void; limits?: LoadLimits } = {},
): SplatCloud {
  const bytes = buffer instanceof Uint8Array ? buffer : new Uint8Array(buffer);
  const stream = new SplatRecordStream({ totalBytes: bytes.byteLength, onProgress: options.onProgress, limits: options.limits });
  stream.push(bytes);
  return stream.finish();
}
