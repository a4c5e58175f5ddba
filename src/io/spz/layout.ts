/**
 * The layout of Niantic .spz data: its header, and where each attribute
 * plane (versions 2 and 3) or compressed stream (version 4) lies, every size
 * checked against the header's count and the data's length. DOM-free.
 *
 * Header, 16 bytes, little endian: magic 'NGSP' (0x5053474e), uint32 version,
 * uint32 splat count, uint8 SH degree, uint8 fractional bits, uint8 flags
 * (bit 0: antialiased), uint8 reserved.
 *
 * Versions 2 and 3: the whole file is usually gzip-wrapped; after the header
 * the attributes follow as planes, in this order:
 * - positions: 3 × 24-bit signed fixed point per splat (value / 2^fractionalBits);
 * - alphas: 1 byte, the activated opacity × 255;
 * - colours: 3 bytes, dc = (byte / 255 - 0.5) / 0.15;
 * - scales: 3 bytes, log scale = byte / 16 - 10;
 * - rotations: v2, 3 bytes x y z, each byte / 127.5 - 1, w = sqrt(1 - |xyz|²);
 *   v3 and later, 4 bytes "smallest three": a little-endian uint32 whose bits
 *   30..31 index (in x y z w order) the largest component; the other three,
 *   from the highest index down, take 10 bits each from bit 0 up: 9 bits of
 *   magnitude (× sqrt(1/2) / 511) and a sign bit;
 * - SH: shDim × 3 bytes per splat, coefficient-major with RGB inside,
 *   value = (byte - 128) / 128.
 *
 * Version 4: not gzip-wrapped. The header is 32 bytes: the 16 above, except
 * that byte 15 holds the stream count; then uint32 table-of-contents offset
 * (at byte 16) and padding.
 * The table holds, per stream, uint64 compressed and uint64 uncompressed
 * sizes; the streams follow it, each a zstd frame, in the attribute order
 * above (positions, alphas, colours, scales, rotations, then SH if any).
 * zstd is not built into browsers or Node 20: version 4 streams go through
 * fzstd (a small pure-JavaScript decoder, bounded by zstd-frames.ts) unless
 * ParseSpzOptions.zstdDecompress (parse.ts) supplies another.
 *
 * A header count above SPZ_MAX_POINTS, or a stream table that disagrees
 * with the header's count, is refused before anything of that size is
 * allocated.
 */
import { shCoefficients, type ShDegree } from '../../scene/splat-cloud';
import { SplatFormatError } from '../format-error';

export const SPZ_MAGIC = 0x5053474e;
export const GZIP_0 = 0x1f;
const GZIP_1 = 0x8b;
export const HEADER_BYTES = 16;
export const V4_HEADER_BYTES = 32;
/**
 * The most splats an SPZ file may declare: the reference reader (Niantic's
 * load-spz.cc, maxPointsToRead) refuses more, so no file holds more; the cap
 * also bounds what a lying header can make the parser allocate.
 */
export const SPZ_MAX_POINTS = 10_000_000;

export interface SpzHeader {
  version: number;
  count: number;
  shDegree: ShDegree;
  fractionalBits: number;
  antialiased: boolean;
  /** Flag 0x2: extension records follow (version 4: in the header zone; before: after the planes). */
  hasExtensions: boolean;
}

/** True for a gzip stream (1f 8b) or a raw 'NGSP' SPZ file. */
export function isSpz(bytes: Uint8Array): boolean {
  if (bytes.length >= 2 && bytes[0] === GZIP_0 && bytes[1] === GZIP_1) return true;
  return bytes.length >= 4 && bytes[0] === 0x4e && bytes[1] === 0x47 && bytes[2] === 0x53 && bytes[3] === 0x50;
}

export function describeMagic(bytes: Uint8Array): string {
  const head = Array.from(bytes.subarray(0, 4), (b) => b.toString(16).padStart(2, '0')).join(' ');
  return head === '' ? 'an empty file' : `bytes ${head}`;
}

/** Reads the 16-byte header of an uncompressed SPZ payload. */
export function readSpzHeader(data: Uint8Array): SpzHeader {
  if (data.length < HEADER_BYTES) {
    throw new SplatFormatError(`SPZ data is truncated: ${data.length} bytes, shorter than the ${HEADER_BYTES}-byte header`);
  }
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const magic = view.getUint32(0, true);
  if (magic !== SPZ_MAGIC) {
    throw new SplatFormatError(`Not an SPZ file: expected magic 'NGSP', found ${describeMagic(data)}`);
  }
  const version = view.getUint32(4, true);
  if (version < 2 || version > 4) {
    throw new SplatFormatError(`Unsupported SPZ version ${version}: only versions 2, 3 and 4 are supported`);
  }
  const count = view.getUint32(8, true);
  if (count > SPZ_MAX_POINTS) {
    throw new SplatFormatError(
      `SPZ header says ${count.toLocaleString('en-US')} splats: more than the ` +
      `${SPZ_MAX_POINTS.toLocaleString('en-US')} the reference SPZ reader accepts (the file is corrupt)`,
    );
  }
  const shDegree = data[12]!;
  if (shDegree > 3) throw new SplatFormatError(`SPZ header has SH degree ${shDegree}: at most 3 is supported`);
  const fractionalBits = data[13]!;
  if (fractionalBits > 23) throw new SplatFormatError(`SPZ header has ${fractionalBits} fractional bits: at most 23 make sense`);
  return { version, count, shDegree: shDegree as ShDegree, fractionalBits, antialiased: (data[14]! & 1) !== 0, hasExtensions: (data[14]! & 2) !== 0 };
}

export interface Planes {
  positions: Uint8Array;
  alphas: Uint8Array;
  colours: Uint8Array;
  scales: Uint8Array;
  rotations: Uint8Array;
  sh: Uint8Array;
}

export function planeSizes(h: SpzHeader): number[] {
  const n = h.count;
  const sizes = [n * 9, n, n * 3, n * 3, n * (h.version >= 3 ? 4 : 3)];
  const shDim = shCoefficients(h.shDegree);
  if (shDim > 0) sizes.push(n * shDim * 3);
  return sizes;
}

export function toPlanes(parts: Uint8Array[]): Planes {
  return {
    positions: parts[0]!, alphas: parts[1]!, colours: parts[2]!, scales: parts[3]!, rotations: parts[4]!,
    sh: parts[5] ?? new Uint8Array(0),
  };
}

/** Versions 2 and 3: planes one after another right after the header. */
export function splitPacked(data: Uint8Array, h: SpzHeader): Planes {
  const sizes = planeSizes(h);
  const need = sizes.reduce((a, b) => a + b, 0);
  const have = data.length - HEADER_BYTES;
  if (have < need) {
    throw new SplatFormatError(
      `SPZ data is truncated: the header says ${h.count} splats (${need} bytes of attributes) ` +
      `but the data holds only ${have} bytes`,
    );
  }
  const parts: Uint8Array[] = [];
  let at = HEADER_BYTES;
  for (const size of sizes) {
    parts.push(data.subarray(at, at + size));
    at += size;
  }
  return toPlanes(parts);
}

/** Version 4: where the stream table ends, after checking the stream count and where the table lies. */
export function v4TableEnd(data: Uint8Array, h: SpzHeader): number {
  if (data.length < V4_HEADER_BYTES) {
    throw new SplatFormatError(`SPZ data is truncated: ${data.length} bytes, shorter than the ${V4_HEADER_BYTES}-byte version 4 header`);
  }
  const streams = data[15]!;
  const tocOffset = new DataView(data.buffer, data.byteOffset, data.byteLength).getUint32(16, true);
  const needed = planeSizes(h).length;
  if (streams < needed) {
    throw new SplatFormatError(`SPZ version 4 header lists ${streams} streams, but SH degree ${h.shDegree} needs ${needed}`);
  }
  if (tocOffset < V4_HEADER_BYTES) {
    throw new SplatFormatError(`SPZ version 4 stream table at byte ${tocOffset} overlaps the ${V4_HEADER_BYTES}-byte header`);
  }
  return tocOffset + streams * 16;
}

interface StreamEntry {
  /** Where the compressed stream starts, its compressed size, and the size it must decompress to. */
  at: number;
  packed: number;
  raw: number;
}

/** Version 4: the streams the header's SH degree needs, their raw sizes checked against the header's count. */
export function v4Streams(data: Uint8Array, h: SpzHeader): StreamEntry[] {
  const tocEnd = v4TableEnd(data, h);
  const tocOffset = tocEnd - data[15]! * 16;
  if (tocEnd > data.length) {
    throw new SplatFormatError(
      `SPZ data is truncated: the stream table (${data[15]} entries at byte ${tocOffset}) runs past the end of the ${data.length}-byte file`,
    );
  }
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let at = tocEnd;
  return planeSizes(h).map((size, s) => {
    const packed = Number(view.getBigUint64(tocOffset + s * 16, true));
    const raw = Number(view.getBigUint64(tocOffset + s * 16 + 8, true));
    if (raw !== size) {
      throw new SplatFormatError(
        `SPZ stream ${s} holds ${raw} bytes, but the header says ${h.count} splats, which need ${size} bytes`,
      );
    }
    const entry = { at, packed, raw };
    at += packed;
    return entry;
  });
}

/** Version 4: where the last stream the header needs ends (what a gzip-wrapped file must hold). */
export function v4DataEnd(data: Uint8Array, h: SpzHeader): number {
  const last = v4Streams(data, h).at(-1)!;
  return last.at + last.packed;
}
