/**
 * Parser for GaussianSplats3D `.ksplat` files into a SplatCloud with
 * activations applied (layout.ts describes the format and checks its
 * headers). DOM-free.
 */
import {
  allocateSplatCloud, computeBounds, SH_C0, shCoefficients, writeUnitQuaternion, type ShDegree, type SplatCloud,
} from '../../scene/splat-cloud';
import { checkSplatCount, DEFAULT_LOAD_LIMITS, type LoadLimits } from '../load-limits';
import { BUCKET_BYTES, readKsplatLayout } from './layout';
import { halfValue } from '../../gpu/half-float';

const PROGRESS_SPLATS = 65536;

let halfTable: Float32Array | undefined;

/** float16 bit pattern → value, for all 65,536 patterns (built on first use). */
function halfToFloatTable(): Float32Array {
  if (halfTable) return halfTable;
  const table = new Float32Array(65536);
  for (let h = 0; h < 65536; h++) table[h] = halfValue(h);
  halfTable = table;
  return table;
}

/**
 * For each stored SH value of a section of the given degree (band by band,
 * channel by channel inside a band), its offset in our per-splat block
 * (coefficient-major, RGB inside: k * 3 + channel).
 */
function shDestinations(degree: ShDegree): Int32Array {
  const out = new Int32Array(shCoefficients(degree) * 3);
  let s = 0;
  let firstCoefficient = 0;
  for (let band = 1; band <= degree; band++) {
    const perChannel = 2 * band + 1;
    for (let channel = 0; channel < 3; channel++) {
      for (let j = 0; j < perChannel; j++) out[s++] = (firstCoefficient + j) * 3 + channel;
    }
    firstCoefficient += perChannel;
  }
  return out;
}

export interface ParseKsplatOptions {
  onProgress?: (fraction: number) => void;
  /** What the scene may cost (default DEFAULT_LOAD_LIMITS): the header's count is checked against it before allocating. */
  limits?: LoadLimits;
}

/**
 * Parses a whole .ksplat file. Throws SplatFormatError, saying what is wrong,
 * for anything it cannot read; sizes are checked before anything is allocated.
 */
export function parseKsplat(
  buffer: ArrayBuffer | Uint8Array,
  options: ParseKsplatOptions = {},
): SplatCloud {
  const bytes = buffer instanceof Uint8Array ? buffer : new Uint8Array(buffer);
  const layout = readKsplatLayout(bytes, false);
  const { level, splatCount, shDegree } = layout;
  checkSplatCount(splatCount, shDegree, options.limits ?? DEFAULT_LOAD_LIMITS, 'The .ksplat header declares');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const cloud = allocateSplatCloud(splatCount, shDegree);
  const { positions, scales, rotations, opacities, dc, sh } = cloud;
  const shStride = shCoefficients(shDegree) * 3;
  const half = level > 0 ? halfToFloatTable() : undefined;
  // Level 2: the 256 possible SH bytes, decoded once.
  let byteSh: Float32Array | undefined;
  if (level === 2) {
    byteSh = new Float32Array(256);
    for (let b = 0; b < 256; b++) byteSh[b] = layout.shMin + (b / 255) * (layout.shMax - layout.shMin);
  }
  const colourScale = 1 / (255 * SH_C0);
  const colourOffset = 0.5 / SH_C0;
  const onProgress = options.onProgress;
  let nextProgress = PROGRESS_SPLATS;

  let out = 0; // global splat index
  for (const section of layout.sections) {
    const n = section.splatCount;
    if (n === 0) continue;
    const shMap = shDestinations(section.shDegree);
    const shCount = shMap.length;
    const bps = section.bytesPerSplat;
    let at = section.splatsAt;

    if (level === 0) {
      for (let s = 0; s < n; s++, at += bps, out++) {
        const i3 = out * 3;
        positions[i3] = view.getFloat32(at, true);
        positions[i3 + 1] = view.getFloat32(at + 4, true);
        positions[i3 + 2] = view.getFloat32(at + 8, true);
        scales[i3] = view.getFloat32(at + 12, true);
        scales[i3 + 1] = view.getFloat32(at + 16, true);
        scales[i3 + 2] = view.getFloat32(at + 20, true);
        writeUnitQuaternion(rotations, out * 4, view.getFloat32(at + 24, true), view.getFloat32(at + 28, true),
          view.getFloat32(at + 32, true), view.getFloat32(at + 36, true));
        dc[i3] = bytes[at + 40]! * colourScale - colourOffset;
        dc[i3 + 1] = bytes[at + 41]! * colourScale - colourOffset;
        dc[i3 + 2] = bytes[at + 42]! * colourScale - colourOffset;
        opacities[out] = bytes[at + 43]! / 255;
        const shOut = out * shStride;
        for (let j = 0; j < shCount; j++) sh[shOut + shMap[j]!] = view.getFloat32(at + 44 + 4 * j, true);
        if (onProgress && out + 1 >= nextProgress) {
          onProgress((out + 1) / splatCount);
          nextProgress += PROGRESS_SPLATS;
        }
      }
      continue;
    }

    const h = half!;
    const shTable = byteSh;
    const range = section.positionRange;
    const step = section.blockSize / 2 / range;
    const full = section.fullBucketCount;
    let s = 0;
    // Walk the buckets in order; readLayout made sure they hold all n splats.
    for (let b = 0; s < n; b++) {
      const bucketLength = b < full
        ? section.bucketSize
        : view.getUint32(section.partialLengthsAt + 4 * (b - full), true);
      const c = section.centresAt + BUCKET_BYTES * b;
      const cx = view.getFloat32(c, true);
      const cy = view.getFloat32(c + 4, true);
      const cz = view.getFloat32(c + 8, true);
      const bucketEnd = Math.min(n, s + bucketLength);
      for (; s < bucketEnd; s++, at += bps, out++) {
        const i3 = out * 3;
        positions[i3] = ((bytes[at]! | (bytes[at + 1]! << 8)) - range) * step + cx;
        positions[i3 + 1] = ((bytes[at + 2]! | (bytes[at + 3]! << 8)) - range) * step + cy;
        positions[i3 + 2] = ((bytes[at + 4]! | (bytes[at + 5]! << 8)) - range) * step + cz;
        scales[i3] = h[bytes[at + 6]! | (bytes[at + 7]! << 8)]!;
        scales[i3 + 1] = h[bytes[at + 8]! | (bytes[at + 9]! << 8)]!;
        scales[i3 + 2] = h[bytes[at + 10]! | (bytes[at + 11]! << 8)]!;
        writeUnitQuaternion(rotations, out * 4,
          h[bytes[at + 12]! | (bytes[at + 13]! << 8)]!, h[bytes[at + 14]! | (bytes[at + 15]! << 8)]!,
          h[bytes[at + 16]! | (bytes[at + 17]! << 8)]!, h[bytes[at + 18]! | (bytes[at + 19]! << 8)]!);
        dc[i3] = bytes[at + 20]! * colourScale - colourOffset;
        dc[i3 + 1] = bytes[at + 21]! * colourScale - colourOffset;
        dc[i3 + 2] = bytes[at + 22]! * colourScale - colourOffset;
        opacities[out] = bytes[at + 23]! / 255;
        const shOut = out * shStride;
        if (shTable === undefined) {
          for (let j = 0, p = at + 24; j < shCount; j++, p += 2) sh[shOut + shMap[j]!] = h[bytes[p]! | (bytes[p + 1]! << 8)]!;
        } else {
          for (let j = 0, p = at + 24; j < shCount; j++, p++) sh[shOut + shMap[j]!] = shTable[bytes[p]!]!;
        }
        if (onProgress && out + 1 >= nextProgress) {
          onProgress((out + 1) / splatCount);
          nextProgress += PROGRESS_SPLATS;
        }
      }
    }
  }
  onProgress?.(1);

  cloud.bounds = computeBounds(positions, splatCount);
  return cloud;
}
