/**
 * Parser for GaussianSplats3D `.ksplat` files (its "SplatBuffer" saved to
 * disk) into a SplatCloud with activations applied. DOM-free.
 *
 * Everything is little endian. The file has no magic:
 *
 * Main header, 4096 bytes:
 *   0  uint8   version major (0)        1  uint8 version minor (1)
 *   2  uint8×2 unused, written as 0
 *   4  uint32  max section count: how many section headers follow
 *   8  uint32  section count (loaded sections; ≤ max)
 *   12 uint32  max splat count (splats the sections have room for)
 *   16 uint32  splat count
 *   20 uint16  compression level: 0, 1 or 2
 *   24 float32×3 scene centre (not needed here)
 *   36 float32 min SH coefficient, 40 float32 max SH coefficient: the range
 *      of the level-2 8-bit SH; 0 stands for the default -1.5 / 1.5
 *   the rest is zero.
 *
 * Then one 1024-byte header per section (max section count of them):
 *   0  uint32  splat count          4  uint32 max splat count (room reserved)
 *   8  uint32  bucket size: the splats a full bucket holds
 *   12 uint32  bucket count
 *   16 float32 bucket block size: the edge of the cube a bucket covers
 *   20 uint16  bucket storage size: 12 (float32 x y z of the bucket centre)
 *   24 uint32  position range R (0: the level's default, 1 or 32767)
 *   28 uint32  storage size in bytes (informative; recomputed here)
 *   32 uint32  full bucket count    36 uint32 partially filled bucket count
 *   40 uint16  SH degree of the section
 *
 * Then the sections' data, one after the other, each:
 *   partially filled bucket lengths  uint32 × partially filled bucket count
 *   bucket centres                   bucket storage size × bucket count
 *   splats                           bytes per splat × max splat count
 * The splats are grouped by bucket: the full buckets first (bucket size
 * splats each), then the partially filled ones with the lengths listed.
 * Level 0 files normally have no buckets (those fields are 0).
 *
 * One splat:
 *   level 0: centre 3 × float32, scale 3 × float32 (linear standard
 *            deviations), rotation 4 × float32 (w x y z), colour 4 × uint8,
 *            SH n × float32                                  (44 + 4n bytes)
 *   level 1: centre 3 × uint16, scale 3 × float16, rotation 4 × float16,
 *            colour 4 × uint8, SH n × float16                (24 + 2n bytes)
 *   level 2: as level 1, but SH n × uint8, each
 *            min + byte / 255 × (max - min) with the header's range (24 + n)
 * At levels 1 and 2 a centre is relative to its bucket's centre:
 *   position = (uint16 - R) × (block size / 2) / R + bucket centre.
 * Colour: r g b are the final base colour × 255, a is the opacity × 255.
 *
 * SH are stored per splat band by band, and inside each band channel by
 * channel (not INRIA's channel-major order over all bands, nor our
 * coefficient-major one): band 1 is R1 R2 R3 G1 G2 G3 B1 B2 B3, band 2 is
 * R4..R8 G4..G8 B4..B8. GaussianSplats3D stops at degree 2; a degree-3
 * section is read the same way (band 3: R9..R15 G9..G15 B9..B15, n = 45),
 * as other readers of the format do.
 *
 * Sections may differ in SH degree; the cloud takes the highest one and
 * leaves the missing bands of the others at zero.
 */
import {
  allocateSplatCloud, computeBounds, SH_C0, shCoefficients, writeUnitQuaternion, type ShDegree, type SplatCloud,
} from '../scene/splat-cloud';
import { SplatFormatError } from './ply';
import { checkSplatCount, DEFAULT_LOAD_LIMITS, type LoadLimits } from './load-limits';

const HEADER_BYTES = 4096;
const SECTION_HEADER_BYTES = 1024;
/** A bucket is stored as its centre, 3 × float32. */
const BUCKET_BYTES = 12;
/** The level-2 SH range when the header leaves it at 0. */
const DEFAULT_SH_MIN = -1.5;
const DEFAULT_SH_MAX = 1.5;
const PROGRESS_SPLATS = 65536;

/** Bytes per splat without SH, bytes per SH value, default position range. */
const LEVELS = [
  { baseBytes: 44, shBytes: 4, defaultRange: 1 },
  { baseBytes: 24, shBytes: 2, defaultRange: 32767 },
  { baseBytes: 24, shBytes: 1, defaultRange: 32767 },
] as const;

type CompressionLevel = 0 | 1 | 2;

interface KsplatSection {
  index: number;
  splatCount: number;
  shDegree: ShDegree;
  bytesPerSplat: number;
  bucketSize: number;
  fullBucketCount: number;
  partialBucketCount: number;
  blockSize: number;
  positionRange: number;
  /** Absolute byte offsets in the file. */
  partialLengthsAt: number;
  centresAt: number;
  splatsAt: number;
}

interface KsplatLayout {
  level: CompressionLevel;
  splatCount: number;
  shDegree: ShDegree;
  shMin: number;
  shMax: number;
  sections: KsplatSection[];
}

function toBytes(buffer: ArrayBuffer | Uint8Array): Uint8Array {
  return buffer instanceof Uint8Array ? buffer : new Uint8Array(buffer);
}

/**
 * Reads and checks the main header and every section header against the
 * byte length, without decoding splats or allocating per-splat memory.
 * `strict` adds checks that only serve content detection.
 */
function readLayout(bytes: Uint8Array, strict: boolean): KsplatLayout {
  const length = bytes.byteLength;
  if (length < HEADER_BYTES) {
    throw new SplatFormatError(
      `.ksplat file is ${length} bytes, shorter than its ${HEADER_BYTES}-byte header (truncated or not a .ksplat file)`,
    );
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, length);
  const major = bytes[0]!;
  const minor = bytes[1]!;
  if (major !== 0 || minor !== 1) {
    throw new SplatFormatError(`.ksplat version ${major}.${minor} is not supported (only version 0.1 is known)`);
  }
  // GaussianSplats3D writes the two spare bytes as 0; a .splat file whose
  // first float happened to begin 00 01 would almost never have them zero too.
  if (strict && (bytes[2] !== 0 || bytes[3] !== 0)) {
    throw new SplatFormatError('.ksplat header bytes 2..3 are not zero');
  }
  const maxSectionCount = view.getUint32(4, true);
  const sectionCount = view.getUint32(8, true);
  const maxSplatCount = view.getUint32(12, true);
  const splatCount = view.getUint32(16, true);
  const levelField = view.getUint16(20, true);
  if (levelField > 2) {
    throw new SplatFormatError(`.ksplat compression level ${levelField} is unknown (expected 0, 1 or 2)`);
  }
  const level = levelField as CompressionLevel;
  if (maxSectionCount === 0) throw new SplatFormatError('.ksplat header declares no sections (max section count 0)');
  if (sectionCount > maxSectionCount) {
    throw new SplatFormatError(
      `.ksplat header counts are inconsistent: section count ${sectionCount} exceeds the max section count ${maxSectionCount}`,
    );
  }
  if (splatCount > maxSplatCount) {
    throw new SplatFormatError(
      `.ksplat header counts are inconsistent: splat count ${splatCount} exceeds the max splat count ${maxSplatCount}`,
    );
  }
  // Counts are uint32, so these products stay exact in doubles.
  const sectionsStart = HEADER_BYTES + maxSectionCount * SECTION_HEADER_BYTES;
  if (sectionsStart > length) {
    throw new SplatFormatError(
      `.ksplat section headers are truncated: ${maxSectionCount} section headers need bytes ${HEADER_BYTES}..${sectionsStart}, ` +
      `but the file has ${length} bytes`,
    );
  }

  const { baseBytes, shBytes, defaultRange } = LEVELS[level];
  const sections: KsplatSection[] = [];
  let base = sectionsStart;
  let sumSplats = 0;
  let sumMaxSplats = 0;
  let shDegree: ShDegree = 0;
  for (let i = 0; i < maxSectionCount; i++) {
    const h = HEADER_BYTES + i * SECTION_HEADER_BYTES;
    const count = view.getUint32(h, true);
    const maxCount = view.getUint32(h + 4, true);
    const bucketSize = view.getUint32(h + 8, true);
    const bucketCount = view.getUint32(h + 12, true);
    const blockSize = view.getFloat32(h + 16, true);
    const bucketStorage = view.getUint16(h + 20, true);
    const rangeField = view.getUint32(h + 24, true);
    const fullBucketCount = view.getUint32(h + 32, true);
    const partialBucketCount = view.getUint32(h + 36, true);
    const degreeField = view.getUint16(h + 40, true);
    if (degreeField > 3) {
      throw new SplatFormatError(`.ksplat section ${i} has SH degree ${degreeField} (at most 3 is supported)`);
    }
    const degree = degreeField as ShDegree;
    if (count > maxCount) {
      throw new SplatFormatError(
        `.ksplat section ${i} counts are inconsistent: splat count ${count} exceeds its max splat count ${maxCount}`,
      );
    }
    const bytesPerSplat = baseBytes + shCoefficients(degree) * 3 * shBytes;
    const partialLengthsAt = base;
    const centresAt = partialLengthsAt + partialBucketCount * 4;
    const splatsAt = centresAt + bucketStorage * bucketCount;
    const end = splatsAt + bytesPerSplat * maxCount;
    if (end > length) {
      throw new SplatFormatError(
        `.ksplat section ${i} is truncated or its counts are wrong: ${maxCount} splats of ${bytesPerSplat} bytes, ` +
        `${bucketCount} buckets and ${partialBucketCount} bucket lengths need bytes ${base}..${end}, ` +
        `but the file has ${length} bytes`,
      );
    }

    if (level > 0 && count > 0) {
      if (bucketStorage !== BUCKET_BYTES) {
        throw new SplatFormatError(
          `.ksplat section ${i} stores buckets in ${bucketStorage} bytes each (expected ${BUCKET_BYTES}: a float32 x y z centre)`,
        );
      }
      if (fullBucketCount + partialBucketCount > bucketCount) {
        throw new SplatFormatError(
          `.ksplat section ${i} bucket counts are inconsistent: ${fullBucketCount} full and ${partialBucketCount} ` +
          `partially filled buckets, but only ${bucketCount} bucket centres`,
        );
      }
      if (!Number.isFinite(blockSize)) {
        throw new SplatFormatError(`.ksplat section ${i} has a bucket block size of ${blockSize}`);
      }
      // Every splat decoded must fall in a bucket (the partial lengths were
      // checked to lie inside the file above).
      let capacity = fullBucketCount * bucketSize;
      for (let b = 0; b < partialBucketCount && capacity < count; b++) {
        capacity += view.getUint32(partialLengthsAt + 4 * b, true);
      }
      if (capacity < count) {
        throw new SplatFormatError(
          `.ksplat section ${i} bucket counts are inconsistent: its buckets hold ${capacity} splats, but it has ${count}`,
        );
      }
    }

    sections.push({
      index: i,
      splatCount: count,
      shDegree: degree,
      bytesPerSplat,
      bucketSize,
      fullBucketCount,
      partialBucketCount,
      blockSize,
      positionRange: rangeField || defaultRange,
      partialLengthsAt,
      centresAt,
      splatsAt,
    });
    if (count > 0 && degree > shDegree) shDegree = degree;
    sumSplats += count;
    sumMaxSplats += maxCount;
    base = end;
  }

  if (sumSplats !== splatCount || sumMaxSplats !== maxSplatCount) {
    throw new SplatFormatError(
      `.ksplat counts are inconsistent: the header says ${splatCount} splats (room for ${maxSplatCount}), ` +
      `but its sections hold ${sumSplats} (room for ${sumMaxSplats})`,
    );
  }
  if (splatCount === 0) throw new SplatFormatError('.ksplat file is empty: it holds 0 splats');

  // A stored 0 (or NaN) means the default, as in GaussianSplats3D.
  const shMin = view.getFloat32(36, true) || DEFAULT_SH_MIN;
  const shMax = view.getFloat32(40, true) || DEFAULT_SH_MAX;
  if (level === 2 && shDegree > 0 && !(Number.isFinite(shMin) && Number.isFinite(shMax) && shMax > shMin)) {
    throw new SplatFormatError(`.ksplat SH range ${shMin}..${shMax} in the header is not a valid range`);
  }
  return { level, splatCount, shDegree, shMin, shMax, sections };
}

/**
 * True when the bytes look like a .ksplat file: version 0.1, a known
 * compression level, and header and section counts that agree with each
 * other and with the byte length. PLY, SPZ, zip and .splat files fail it.
 */
export function looksLikeKsplat(bytes: Uint8Array): boolean {
  try {
    readLayout(bytes, true);
    return true;
  } catch (error) {
    if (error instanceof SplatFormatError) return false;
    throw error;
  }
}

let halfTable: Float32Array | undefined;

/** float16 bit pattern → value, for all 65,536 patterns (built on first use). */
function halfToFloatTable(): Float32Array {
  if (halfTable) return halfTable;
  const table = new Float32Array(65536);
  for (let h = 0; h < 65536; h++) {
    const exponent = (h >> 10) & 0x1f;
    const fraction = h & 0x3ff;
    let value: number;
    if (exponent === 0) value = fraction * 2 ** -24; // zero and subnormals
    else if (exponent === 31) value = fraction === 0 ? Infinity : NaN;
    else value = (1024 + fraction) * 2 ** (exponent - 25);
    table[h] = h & 0x8000 ? -value : value;
  }
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
  const bytes = toBytes(buffer);
  const layout = readLayout(bytes, false);
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

