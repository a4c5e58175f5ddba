/**
 * Parser for Niantic .spz files into a SplatCloud with activations applied.
 * DOM-free; async because gzip is undone with the global DecompressionStream.
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
 * fzstd (a small pure-JavaScript decoder) unless options.zstdDecompress
 * supplies another.
 *
 * Bytes after the last attribute plane or stream are ignored, as the
 * reference reader ignores them. A header count above SPZ_MAX_POINTS, a
 * stream table or zstd frame header that disagrees with the header's count,
 * or a zstd window far beyond the stream's size is refused before anything
 * of that size is allocated.
 *
 * SPZ stores coordinates as RUB (x right, y up, z back); PLY scenes are RDF
 * (y down, z forward). By default the parser converts to RDF (a 180° turn
 * about x: y and z of positions and quaternion axes negated, SH bands
 * sign-flipped accordingly) so SPZ and PLY scenes line up.
 */
import { allocateSplatCloud, computeBounds, shCoefficients, type ShDegree, type SplatCloud } from '../scene/splat-cloud';
import { SplatFormatError } from './ply';
import { decompress as zstdDecompress } from 'fzstd';

export const SPZ_MAGIC = 0x5053474e;
const GZIP_0 = 0x1f;
const GZIP_1 = 0x8b;
const HEADER_BYTES = 16;
const V4_HEADER_BYTES = 32;
const COLOUR_SCALE = 0.15;
/**
 * The most splats an SPZ file may declare: the reference reader (Niantic's
 * load-spz.cc, maxPointsToRead) refuses more, so no file holds more; the cap
 * also bounds what a lying header can make the parser allocate.
 */
export const SPZ_MAX_POINTS = 10_000_000;
/**
 * The largest zstd window accepted for a stream with no declared content
 * size, unless the stream itself is bigger: zstd levels 1 to 19 use windows
 * up to 8 MiB (windowLog 23), and a window larger than both that and the
 * content can serve no back-reference. fzstd allocates the declared window
 * up front, so a bigger one would be an allocation the file only claims.
 */
const MAX_ZSTD_WINDOW = 8 * 2 ** 20;
const SQRT1_2 = Math.SQRT1_2;

export interface SpzHeader {
  version: number;
  count: number;
  shDegree: ShDegree;
  fractionalBits: number;
  antialiased: boolean;
}

export interface ParseSpzOptions {
  /** Decompresses one zstd frame (needed for version 4 files). */
  zstdDecompress?: (data: Uint8Array) => Uint8Array | Promise<Uint8Array>;
  /** 'rdf' (default): convert to the PLY convention; 'rub': keep SPZ's axes. */
  coordinates?: 'rdf' | 'rub';
}

/** True for a gzip stream (1f 8b) or a raw 'NGSP' SPZ file. */
export function isSpz(bytes: Uint8Array): boolean {
  if (bytes.length >= 2 && bytes[0] === GZIP_0 && bytes[1] === GZIP_1) return true;
  return bytes.length >= 4 && bytes[0] === 0x4e && bytes[1] === 0x47 && bytes[2] === 0x53 && bytes[3] === 0x50;
}

async function gunzip(bytes: Uint8Array): Promise<Uint8Array> {
  if (typeof DecompressionStream === 'undefined') {
    throw new SplatFormatError('SPZ file is gzip-compressed, but DecompressionStream is not available here');
  }
  try {
    const copy = new Uint8Array(bytes); // a plain ArrayBuffer-backed view for the Blob
    const stream = new Blob([copy]).stream().pipeThrough(new DecompressionStream('gzip'));
    return new Uint8Array(await new Response(stream).arrayBuffer());
  } catch (err) {
    throw new SplatFormatError(`SPZ file is not valid gzip: ${(err as Error).message}`);
  }
}

function describeMagic(bytes: Uint8Array): string {
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
  return { version, count, shDegree: shDegree as ShDegree, fractionalBits, antialiased: (data[14]! & 1) !== 0 };
}

interface Planes {
  positions: Uint8Array;
  alphas: Uint8Array;
  colours: Uint8Array;
  scales: Uint8Array;
  rotations: Uint8Array;
  sh: Uint8Array;
}

function planeSizes(h: SpzHeader): number[] {
  const n = h.count;
  const sizes = [n * 9, n, n * 3, n * 3, n * (h.version >= 3 ? 4 : 3)];
  const shDim = shCoefficients(h.shDegree);
  if (shDim > 0) sizes.push(n * shDim * 3);
  return sizes;
}

function toPlanes(parts: Uint8Array[]): Planes {
  return {
    positions: parts[0]!, alphas: parts[1]!, colours: parts[2]!, scales: parts[3]!, rotations: parts[4]!,
    sh: parts[5] ?? new Uint8Array(0),
  };
}

/** Versions 2 and 3: planes one after another right after the header. */
function splitPacked(data: Uint8Array, h: SpzHeader): Planes {
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

/**
 * Checks a zstd frame header (RFC 8878, section 3.1.1.1) against the size
 * the stream must decompress to, before fzstd allocates what the header
 * claims: a declared content size may not exceed that size, and without one
 * the window must be reasonable (MAX_ZSTD_WINDOW).
 */
function checkZstdFrame(frame: Uint8Array, expected: number, stream: number): void {
  if (frame.length < 6) {
    throw new SplatFormatError(`SPZ stream ${stream} is truncated: ${frame.length} bytes, too short for a zstd frame header`);
  }
  const descriptor = frame[4]!;
  const contentSizeFlag = descriptor >> 6;
  const singleSegment = (descriptor >> 5) & 1;
  if (descriptor & 0x08) throw new SplatFormatError(`SPZ stream ${stream} has an invalid zstd frame header (reserved bit set)`);
  let at = 5;
  let window = 0;
  if (!singleSegment) {
    const w = frame[at++]!;
    const base = 2 ** (10 + (w >> 3));
    window = base + (base / 8) * (w & 7);
  }
  at += [0, 1, 2, 4][descriptor & 3]!; // dictionary id
  const sizeBytes = contentSizeFlag === 0 ? singleSegment : 1 << contentSizeFlag;
  if (at + sizeBytes > frame.length) {
    throw new SplatFormatError(`SPZ stream ${stream} is truncated inside its zstd frame header`);
  }
  if (sizeBytes > 0) {
    let size = 0;
    for (let i = sizeBytes - 1; i >= 0; i--) size = size * 256 + frame[at + i]!;
    if (sizeBytes === 2) size += 256;
    // Smaller is possible (a stream may be several frames); the decoded length is checked after.
    if (size > expected) {
      throw new SplatFormatError(
        `SPZ stream ${stream}: its zstd frame says it holds ${size.toLocaleString('en-US')} bytes, more than the ` +
        `${expected.toLocaleString('en-US')} the header's splat count calls for`,
      );
    }
  } else if (window > Math.max(expected, MAX_ZSTD_WINDOW)) {
    throw new SplatFormatError(
      `SPZ stream ${stream}: its zstd frame asks for a ${window.toLocaleString('en-US')}-byte window to decompress ` +
      `${expected.toLocaleString('en-US')} bytes`,
    );
  }
}

/** Version 4: a table of zstd-compressed streams. */
async function splitStreams(data: Uint8Array, h: SpzHeader, options: ParseSpzOptions): Promise<Planes> {
  if (data.length < V4_HEADER_BYTES) {
    throw new SplatFormatError(`SPZ data is truncated: ${data.length} bytes, shorter than the ${V4_HEADER_BYTES}-byte version 4 header`);
  }
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const streams = data[15]!;
  const tocOffset = view.getUint32(16, true);
  const sizes = planeSizes(h);
  if (streams < sizes.length) {
    throw new SplatFormatError(`SPZ version 4 header lists ${streams} streams, but SH degree ${h.shDegree} needs ${sizes.length}`);
  }
  const tocEnd = tocOffset + streams * 16;
  if (tocOffset < V4_HEADER_BYTES || tocEnd > data.length) {
    throw new SplatFormatError(`SPZ data is truncated: the stream table (${streams} entries at byte ${tocOffset}) runs past the end of the ${data.length}-byte file`);
  }
  let at = tocEnd;
  const compressed: Uint8Array[] = [];
  for (let s = 0; s < sizes.length; s++) {
    const packedSize = Number(view.getBigUint64(tocOffset + s * 16, true));
    const rawSize = Number(view.getBigUint64(tocOffset + s * 16 + 8, true));
    if (rawSize !== sizes[s]) {
      throw new SplatFormatError(
        `SPZ stream ${s} holds ${rawSize} bytes, but the header says ${h.count} splats, which need ${sizes[s]} bytes`,
      );
    }
    if (at + packedSize > data.length) {
      throw new SplatFormatError(
        `SPZ data is truncated: stream ${s} needs ${packedSize} bytes at byte ${at}, but the file has ${data.length} bytes`,
      );
    }
    compressed.push(data.subarray(at, at + packedSize));
    at += packedSize;
  }
  const isZstd = (b: Uint8Array): boolean => b[0] === 0x28 && b[1] === 0xb5 && b[2] === 0x2f && b[3] === 0xfd;
  if (compressed.some((b) => b.length > 0 && !isZstd(b))) {
    throw new SplatFormatError('SPZ version 4 stream is not a zstd frame: no other stream compression is known');
  }
  compressed.forEach((frame, s) => {
    if (frame.length > 0) checkZstdFrame(frame, sizes[s]!, s);
  });
  // fzstd: a small pure-JavaScript zstd decoder (browsers and Node have none built in).
  const decompress = options.zstdDecompress ?? ((frame: Uint8Array) => zstdDecompress(frame));
  const parts: Uint8Array[] = [];
  for (let s = 0; s < sizes.length; s++) {
    let raw: Uint8Array;
    try {
      raw = await decompress(compressed[s]!);
    } catch (err) {
      throw new SplatFormatError(`SPZ stream ${s} could not be zstd-decompressed: ${(err as Error).message}`);
    }
    if (raw.length !== sizes[s]) {
      throw new SplatFormatError(`SPZ stream ${s} decompressed to ${raw.length} bytes, expected ${sizes[s]}`);
    }
    parts.push(raw);
  }
  return toPlanes(parts);
}

/** Sign of each SH coefficient (degree 1..3, 15 in all) under (x, y, z) → (x, -y, -z). */
const SH_FLIP_RDF = [
  -1, -1, 1,
  -1, 1, 1, -1, 1,
  -1, 1, -1, -1, 1, -1, 1,
];

/** Parses an .spz file (gzip-wrapped or raw). */
export async function parseSpz(bytes: Uint8Array, options: ParseSpzOptions = {}): Promise<SplatCloud> {
  if (!isSpz(bytes)) {
    throw new SplatFormatError(`Not an SPZ file: expected gzip (1f 8b) or magic 'NGSP', found ${describeMagic(bytes)}`);
  }
  const data = bytes[0] === GZIP_0 ? await gunzip(bytes) : bytes;
  const h = readSpzHeader(data);
  const planes = h.version >= 4 ? await splitStreams(data, h, options) : splitPacked(data, h);
  const rdf = (options.coordinates ?? 'rdf') === 'rdf';
  const flip = rdf ? -1 : 1;

  const n = h.count;
  const shDim = shCoefficients(h.shDegree);
  const cloud = allocateSplatCloud(n, h.shDegree);
  const { positions, scales, rotations, opacities, dc, sh } = cloud;

  const unit = 1 / (1 << h.fractionalBits);
  const p = planes.positions;
  for (let i = 0; i < n * 3; i++) {
    let fixed = p[3 * i]! | (p[3 * i + 1]! << 8) | (p[3 * i + 2]! << 16);
    if (fixed & 0x800000) fixed -= 0x1000000;
    positions[i] = fixed * unit * (i % 3 === 0 ? 1 : flip);
  }
  for (let i = 0; i < n; i++) opacities[i] = planes.alphas[i]! / 255;
  for (let i = 0; i < n * 3; i++) {
    dc[i] = (planes.colours[i]! / 255 - 0.5) / COLOUR_SCALE;
    scales[i] = Math.exp(planes.scales[i]! / 16 - 10);
  }

  const r = planes.rotations;
  const q = [0, 0, 0, 0]; // x y z w
  for (let i = 0; i < n; i++) {
    if (h.version >= 3) {
      let comp = (r[4 * i]! | (r[4 * i + 1]! << 8) | (r[4 * i + 2]! << 16) | (r[4 * i + 3]! << 24)) >>> 0;
      const largest = comp >>> 30;
      let sum = 0;
      for (let c = 3; c >= 0; c--) {
        if (c === largest) continue;
        const mag = comp & 0x1ff;
        const negative = (comp >>> 9) & 1;
        comp >>>= 10;
        const v = (SQRT1_2 * mag) / 0x1ff;
        q[c] = negative ? -v : v;
        sum += v * v;
      }
      q[largest] = Math.sqrt(Math.max(0, 1 - sum));
    } else {
      let sum = 0;
      for (let c = 0; c < 3; c++) {
        const v = r[3 * i + c]! / 127.5 - 1;
        q[c] = v;
        sum += v * v;
      }
      q[3] = Math.sqrt(Math.max(0, 1 - sum));
    }
    const len = Math.hypot(q[0]!, q[1]!, q[2]!, q[3]!) || 1;
    rotations[4 * i] = q[3]! / len;
    rotations[4 * i + 1] = q[0]! / len;
    rotations[4 * i + 2] = (q[1]! * flip) / len;
    rotations[4 * i + 3] = (q[2]! * flip) / len;
  }

  const s = planes.sh;
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < shDim; k++) {
      const sign = rdf ? SH_FLIP_RDF[k]! : 1;
      for (let c = 0; c < 3; c++) {
        const at = (i * shDim + k) * 3 + c;
        sh[at] = (sign * (s[at]! - 128)) / 128;
      }
    }
  }

  cloud.bounds = computeBounds(positions, n);
  return cloud;
}
