/**
 * The layout of GaussianSplats3D `.ksplat` files (its "SplatBuffer" saved
 * to disk): the headers read and checked against each other and the file's
 * length before anything is decoded or allocated. DOM-free.
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
import { shCoefficients, type ShDegree } from '../../scene/splat-cloud';
import { SplatFormatError } from '../format-error';

const HEADER_BYTES = 4096;
const SECTION_HEADER_BYTES = 1024;
/** A bucket is stored as its centre, 3 × float32. */
export const BUCKET_BYTES = 12;
/** The level-2 SH range when the header leaves it at 0. */
const DEFAULT_SH_MIN = -1.5;
const DEFAULT_SH_MAX = 1.5;

/** Bytes per splat without SH, bytes per SH value, default position range. */
const LEVELS = [
  { baseBytes: 44, shBytes: 4, defaultRange: 1 },
  { baseBytes: 24, shBytes: 2, defaultRange: 32767 },
  { baseBytes: 24, shBytes: 1, defaultRange: 32767 },
] as const;

type CompressionLevel = 0 | 1 | 2;

export interface KsplatSection {
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

export interface KsplatLayout {
  level: CompressionLevel;
  splatCount: number;
  shDegree: ShDegree;
  shMin: number;
  shMax: number;
  sections: KsplatSection[];
}

/**
 * Reads and checks the main header and every section header against the
 * byte length, without decoding splats or allocating per-splat memory.
 * `strict` adds checks that only serve content detection.
 */
export function readKsplatLayout(bytes: Uint8Array, strict: boolean): KsplatLayout {
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

/** A ksplat's first four bytes, all a file still arriving can show: version 0.1, then two zero bytes. */
export function startsLikeKsplat(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0 && bytes[1] === 1 && bytes[2] === 0 && bytes[3] === 0;
}

/**
 * True when the bytes look like a .ksplat file: version 0.1, a known
 * compression level, and header and section counts that agree with each
 * other and with the byte length. PLY, SPZ, zip and .splat files fail it.
 */
export function looksLikeKsplat(bytes: Uint8Array): boolean {
  try {
    readKsplatLayout(bytes, true);
    return true;
  } catch (error) {
    if (error instanceof SplatFormatError) return false;
    throw error;
  }
}
