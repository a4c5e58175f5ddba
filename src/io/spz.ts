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
 * fzstd (a small pure-JavaScript decoder, bounded by zstd-frames.ts) unless
 * options.zstdDecompress supplies another.
 *
 * Bytes after the last attribute plane or stream are ignored, as the
 * reference reader ignores them. What a file may cost follows from its
 * header: gzip is undone as a stream, the header is checked on its first 16
 * bytes and the count against the load limits (checkSplatCount) before
 * anything is allocated, the output is allocated once at the size the
 * header (and for version 4 the stream table) implies, and reading stops
 * there. So a decompression bomb or a header that lies about its count
 * costs no more than a real scene of the size it claims, and no more than
 * the GPU can draw. A header count above SPZ_MAX_POINTS, a stream table or
 * zstd frame that disagrees with the header's count, or a zstd window far
 * beyond the stream's size is refused before anything of that size is
 * allocated.
 *
 * SPZ stores coordinates as RUB (x right, y up, z back); PLY scenes are RDF
 * (y down, z forward). By default the parser converts to RDF (a 180° turn
 * about x: y and z of positions and quaternion axes negated, SH bands
 * sign-flipped accordingly) so SPZ and PLY scenes line up.
 */
import { ANTIALIASED_FILTER } from '../scene/anti-aliasing';
import { allocateSplatCloud, computeBounds, shCoefficients, type ShDegree, type SplatCloud } from '../scene/splat-cloud';
import { SplatFormatError } from './format-error';
import {
  allocateBytes, checkByteCount, checkSplatCount, DEFAULT_LOAD_LIMITS, type LoadLimits,
} from './load-limits';
import { checkZstdStream, decodeZstdStream, isZstdFrame } from './zstd-frames';

export const SPZ_MAGIC = 0x5053474e;
const GZIP_0 = 0x1f;
const GZIP_1 = 0x8b;
/** The most bytes deflate can expand one compressed byte to. */
const MAX_DEFLATE_RATIO = 1032;
const HEADER_BYTES = 16;
const V4_HEADER_BYTES = 32;
const COLOUR_SCALE = 0.15;
/**
 * The most splats an SPZ file may declare: the reference reader (Niantic's
 * load-spz.cc, maxPointsToRead) refuses more, so no file holds more; the cap
 * also bounds what a lying header can make the parser allocate.
 */
export const SPZ_MAX_POINTS = 10_000_000;
const SQRT1_2 = Math.SQRT1_2;

export interface SpzHeader {
  version: number;
  count: number;
  shDegree: ShDegree;
  fractionalBits: number;
  antialiased: boolean;
}

export interface ParseSpzOptions {
  /**
   * Decompresses one version 4 stream (its zstd frames, already checked
   * against `expectedBytes`), instead of the built-in bounded fzstd decode.
   */
  zstdDecompress?: (data: Uint8Array, expectedBytes: number) => Uint8Array | Promise<Uint8Array>;
  /** 'rdf' (default): convert to the PLY convention; 'rub': keep SPZ's axes. */
  coordinates?: 'rdf' | 'rub';
  /** What the scene may cost (default DEFAULT_LOAD_LIMITS): the header's count is checked against it first. */
  limits?: LoadLimits;
}

/** True for a gzip stream (1f 8b) or a raw 'NGSP' SPZ file. */
export function isSpz(bytes: Uint8Array): boolean {
  if (bytes.length >= 2 && bytes[0] === GZIP_0 && bytes[1] === GZIP_1) return true;
  return bytes.length >= 4 && bytes[0] === 0x4e && bytes[1] === 0x47 && bytes[2] === 0x53 && bytes[3] === 0x50;
}

/**
 * Bytes arriving from a decompression stream, gathered only as far as they
 * are asked for: the header decides how many the file may have.
 */
class GzipPrefix {
  private parts: Uint8Array[] = [];
  private have = 0;
  private ended = false;

  constructor(private readonly reader: ReadableStreamDefaultReader<Uint8Array>) {}

  /** Reads until `n` bytes have arrived or the stream has ended; returns how many have. */
  async fill(n: number): Promise<number> {
    while (this.have < n && !this.ended) {
      const { value, done } = await this.reader.read();
      if (done) this.ended = true;
      else if (value.length > 0) {
        this.parts.push(value);
        this.have += value.length;
      }
    }
    return this.have;
  }

  /** The first `n` bytes (or all there are, if fewer), as one array. */
  head(n: number): Uint8Array {
    const out = new Uint8Array(Math.min(n, this.have));
    let at = 0;
    for (const part of this.parts) {
      if (at >= out.length) break;
      const take = part.subarray(0, out.length - at);
      out.set(take, at);
      at += take.length;
    }
    return out;
  }

  /**
   * Fills `out` from the start of the stream, reading no further than its
   * length; returns how many bytes it got (fewer when the stream ended).
   */
  async readInto(out: Uint8Array): Promise<number> {
    let at = 0;
    const put = (chunk: Uint8Array): void => {
      const take = chunk.subarray(0, out.length - at);
      out.set(take, at);
      at += take.length;
    };
    for (const part of this.parts) put(part);
    this.parts = [];
    while (at < out.length && !this.ended) {
      const { value, done } = await this.reader.read();
      if (done) this.ended = true;
      else put(value);
    }
    return at;
  }
}

/**
 * Undoes the gzip wrapping of an SPZ file as a stream, keeping only the
 * bytes its header calls for: 16 + the planes for versions 2 and 3, the
 * header, stream table and streams for version 4. The count is checked
 * against the limits, and a version 4 table's sizes against maxBytes,
 * before the output is allocated (once); reading stops when it is full.
 */
async function gunzipSpz(bytes: Uint8Array, limits: LoadLimits): Promise<Uint8Array> {
  if (typeof DecompressionStream === 'undefined') {
    throw new SplatFormatError('SPZ file is gzip-compressed, but DecompressionStream is not available here');
  }
  // The Blob copies the bytes itself; a copy here would double the input's cost.
  const reader = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new DecompressionStream('gzip')).getReader();
  const input = new GzipPrefix(reader);
  try {
    await input.fill(HEADER_BYTES);
    const h = readSpzHeader(input.head(HEADER_BYTES));
    checkSplatCount(h.count, h.shDegree, limits, 'The SPZ header declares');
    // Deflate expands at most 1032:1 (a 258-byte match in 2 bits), so a size
    // beyond that is refused before it is allocated or inflated: the stream
    // is cut short or the header lies.
    const most = MAX_DEFLATE_RATIO * bytes.length;
    const inflatable = (size: number, what: string): void => {
      if (size <= most) return;
      throw new SplatFormatError(
        `SPZ data is truncated: ${what} calls for ${size} bytes, but a ${bytes.length}-byte gzip stream inflates to at most ${most}`,
      );
    };
    let size: number;
    if (h.version < 4) {
      size = HEADER_BYTES + planeSizes(h).reduce((a, b) => a + b, 0);
      inflatable(size, `the header's count of ${h.count} splats`);
    } else {
      await input.fill(V4_HEADER_BYTES);
      const tableEnd = v4TableEnd(input.head(V4_HEADER_BYTES), h);
      checkByteCount(tableEnd, limits, 'The decompressed SPZ data, up to its stream table,');
      inflatable(tableEnd, 'the stream table\'s place');
      await input.fill(tableEnd);
      size = v4DataEnd(input.head(tableEnd), h);
      checkByteCount(size, limits, 'The decompressed SPZ data its stream table describes');
      inflatable(size, 'the stream table');
    }
    const out = allocateBytes(size, 'the decompressed SPZ data');
    const got = await input.readInto(out);
    if (got < size) {
      throw new SplatFormatError(h.version < 4
        ? `SPZ data is truncated: the header says ${h.count} splats (${size - HEADER_BYTES} bytes of attributes) ` +
          `but the data holds only ${got - HEADER_BYTES} bytes`
        : `SPZ data is truncated: its header and stream table call for ${size} bytes, but the data holds only ${got}`);
    }
    return out;
  } catch (err) {
    if (err instanceof SplatFormatError) throw err;
    throw new SplatFormatError(`SPZ file is not valid gzip: ${(err as Error).message}`);
  } finally {
    // Stop inflating: what follows the data is ignored, however much it is.
    reader.cancel().catch(() => undefined);
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

/** Version 4: where the stream table ends, after checking the stream count and where the table lies. */
function v4TableEnd(data: Uint8Array, h: SpzHeader): number {
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
function v4Streams(data: Uint8Array, h: SpzHeader): StreamEntry[] {
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
function v4DataEnd(data: Uint8Array, h: SpzHeader): number {
  const last = v4Streams(data, h).at(-1)!;
  return last.at + last.packed;
}

/** Version 4: a table of zstd-compressed streams, each decoded into exactly the bytes the header's count needs. */
async function splitStreams(data: Uint8Array, h: SpzHeader, options: ParseSpzOptions): Promise<Planes> {
  const entries = v4Streams(data, h);
  const compressed = entries.map(({ at, packed }, s) => {
    if (at + packed > data.length) {
      throw new SplatFormatError(
        `SPZ data is truncated: stream ${s} needs ${packed} bytes at byte ${at}, but the file has ${data.length} bytes`,
      );
    }
    return data.subarray(at, at + packed);
  });
  if (compressed.some((b) => b.length > 0 && !isZstdFrame(b))) {
    throw new SplatFormatError('SPZ version 4 stream is not a zstd frame: no other stream compression is known');
  }
  // Every frame of every stream is checked before anything is decoded.
  compressed.forEach((stream, s) => checkZstdStream(stream, entries[s]!.raw, `SPZ stream ${s}`));
  const parts: Uint8Array[] = [];
  for (let s = 0; s < entries.length; s++) {
    const expected = entries[s]!.raw;
    if (!options.zstdDecompress) {
      parts.push(decodeZstdStream(compressed[s]!, expected, `SPZ stream ${s}`));
      continue;
    }
    let raw: Uint8Array;
    try {
      raw = await options.zstdDecompress(compressed[s]!, expected);
    } catch (err) {
      throw new SplatFormatError(`SPZ stream ${s} could not be zstd-decompressed: ${(err as Error).message}`);
    }
    if (raw.length !== expected) {
      throw new SplatFormatError(`SPZ stream ${s} decompressed to ${raw.length} bytes, expected ${expected}`);
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
  const limits = options.limits ?? DEFAULT_LOAD_LIMITS;
  const data = bytes[0] === GZIP_0 ? await gunzipSpz(bytes, limits) : bytes;
  const h = readSpzHeader(data);
  checkSplatCount(h.count, h.shDegree, limits, 'The SPZ header declares');
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
  if (h.antialiased) cloud.antiAliasing = { filter: { ...ANTIALIASED_FILTER }, source: 'SPZ flag "antialiased"' };
  return cloud;
}
