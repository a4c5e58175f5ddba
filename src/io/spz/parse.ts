/**
 * Parser for Niantic .spz files into a SplatCloud with activations applied
 * (layout.ts describes the format). DOM-free; async because gzip is undone
 * with the global DecompressionStream (gunzip.ts).
 *
 * Bytes after the last attribute plane or stream are ignored, as the
 * reference reader ignores them. What a file may cost follows from its
 * header: the count is checked against the load limits (checkSplatCount)
 * before anything is allocated, gzip is undone only as far as the header
 * calls for (gunzip.ts), and every zstd frame is checked against the size
 * its stream must have before it is decoded (zstd-frames.ts). So a
 * decompression bomb or a header that lies about its count costs no more
 * than a real scene of the size it claims, and no more than the GPU can
 * draw.
 *
 * SPZ stores coordinates as RUB (x right, y up, z back); PLY scenes are RDF
 * (y down, z forward). By default the parser converts to RDF (a 180° turn
 * about x, in axes.ts, which the writer applies in reverse) so SPZ and PLY
 * scenes line up. Versions 2, 3 and 4 turn alike; the PlayCanvas biker's
 * .spz and .compressed.ply then agree splat for splat. A file that records
 * its frame (the SPZ_ADOBE_coordinate_system extension: stored-frame.ts)
 * is read from that frame instead, and its cloud says its axes are
 * 'recorded'.
 *
 * The header has no field for the frame, and many files hold PLY's axes
 * unturned: the reference library's ply_to_spz and splat-transform since
 * 3.2 write with the "unspecified" frame (and read raw), where Scaniverse,
 * Niantic's samples and splat-transform 3.0–3.1 wrote RUB. The two differ
 * by the half turn about x, so such a file opens upside down here, and
 * nothing in its bytes says which it is: its cloud's axes are 'two-way',
 * and the viewer picks the side its splats stand on
 * (app/camera/framing.ts sceneUp).
 */
import { ANTIALIASED_FILTER } from '../../scene/anti-aliasing';
import { allocateSplatCloud, computeBounds, shCoefficients, type SplatCloud } from '../../scene/splat-cloud';
import { SplatFormatError } from '../format-error';
import { checkSplatCount, DEFAULT_LOAD_LIMITS, type LoadLimits } from '../load-limits';
import { checkZstdStream, decodeZstdStream, isZstdFrame } from '../zstd-frames';
import { RUB_RDF_AXIS_SIGNS, RUB_RDF_SH_SIGNS, SAME_AXIS_SIGNS } from './axes';
import { DEFAULT_SPZ_FRAME, frameToRdf, recordedFrame, type SpzFrame } from './stored-frame';
import { rotateSh, shRotation } from '../sh-rotation';
import { quaternionOf } from '../rotation-quaternion';
import { gunzipSpz } from './gunzip';
import {
  describeMagic, GZIP_0, HEADER_BYTES, isSpz, planeSizes, readSpzHeader, splitPacked, toPlanes, V4_HEADER_BYTES, v4Streams, type Planes, type SpzHeader,
} from './layout';

const COLOUR_SCALE = 0.15;
const SQRT1_2 = Math.SQRT1_2;

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

/**
 * The frame the splats are stored in, where the coordinate system
 * extension records one (version 4: in the header zone before the stream
 * table; before: after the planes), else null.
 */
function storedFrame(data: Uint8Array, h: SpzHeader): SpzFrame | null {
  if (!h.hasExtensions) return null;
  const records = h.version >= 4
    ? data.subarray(V4_HEADER_BYTES, new DataView(data.buffer, data.byteOffset, data.byteLength).getUint32(16, true))
    : data.subarray(HEADER_BYTES + planeSizes(h).reduce((a, b) => a + b, 0));
  return recordedFrame(records);
}

/**
 * Turns a cloud read in a stored frame into RDF by `m` (row-major, a
 * signed permutation: a turn or a mirror): positions p → m p; each
 * splat's axes turned by m's turn (its rotation left-multiplied, the
 * scales kept on their axes; a mirror's sign drops out of the covariance);
 * the view-dependent colour looked up along mᵀ d.
 */
function turnToRdf(cloud: SplatCloud, m: readonly number[]): void {
  const { positions, rotations, count } = cloud;
  for (let i = 0; i < count; i++) {
    const [x, y, z] = [positions[3 * i]!, positions[3 * i + 1]!, positions[3 * i + 2]!];
    for (let r = 0; r < 3; r++) positions[3 * i + r] = m[3 * r]! * x + m[3 * r + 1]! * y + m[3 * r + 2]! * z;
  }
  const det = m[0]! * (m[4]! * m[8]! - m[5]! * m[7]!) - m[1]! * (m[3]! * m[8]! - m[5]! * m[6]!) + m[2]! * (m[3]! * m[7]! - m[4]! * m[6]!);
  const [tw, tx, ty, tz] = quaternionOf((row, col) => det * m[3 * row + col]!);
  for (let i = 0; i < count; i++) {
    const [w, x, y, z] = [rotations[4 * i]!, rotations[4 * i + 1]!, rotations[4 * i + 2]!, rotations[4 * i + 3]!];
    rotations[4 * i] = tw * w - tx * x - ty * y - tz * z;
    rotations[4 * i + 1] = tw * x + tx * w + ty * z - tz * y;
    rotations[4 * i + 2] = tw * y - tx * z + ty * w + tz * x;
    rotations[4 * i + 3] = tw * z + tx * y - ty * x + tz * w;
  }
  if (cloud.shDegree > 0) rotateSh(cloud.sh, shCoefficients(cloud.shDegree), 0, count, shRotation(m, cloud.shDegree));
}

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
  const recorded = storedFrame(data, h);
  const stored = recorded ?? DEFAULT_SPZ_FRAME;
  // RUB, the format's default, turns to RDF by signs alone; any other recorded frame by its matrix, after.
  const rdf = (options.coordinates ?? 'rdf') === 'rdf' && stored === DEFAULT_SPZ_FRAME;
  const axis = rdf ? RUB_RDF_AXIS_SIGNS : SAME_AXIS_SIGNS;

  const n = h.count;
  const shDim = shCoefficients(h.shDegree);
  const cloud = allocateSplatCloud(n, h.shDegree);
  const { positions, scales, rotations, opacities, dc, sh } = cloud;

  const unit = 1 / (1 << h.fractionalBits);
  const p = planes.positions;
  for (let i = 0; i < n * 3; i++) {
    let fixed = p[3 * i]! | (p[3 * i + 1]! << 8) | (p[3 * i + 2]! << 16);
    if (fixed & 0x800000) fixed -= 0x1000000;
    positions[i] = fixed * unit * axis[i % 3]!;
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
    rotations[4 * i + 1] = (q[0]! * axis[0]) / len;
    rotations[4 * i + 2] = (q[1]! * axis[1]) / len;
    rotations[4 * i + 3] = (q[2]! * axis[2]) / len;
  }

  const s = planes.sh;
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < shDim; k++) {
      const sign = rdf ? RUB_RDF_SH_SIGNS[k]! : 1;
      for (let c = 0; c < 3; c++) {
        const at = (i * shDim + k) * 3 + c;
        sh[at] = (sign * (s[at]! - 128)) / 128;
      }
    }
  }

  if ((options.coordinates ?? 'rdf') === 'rdf' && stored !== DEFAULT_SPZ_FRAME) turnToRdf(cloud, frameToRdf(stored));
  cloud.bounds = computeBounds(positions, n);
  cloud.axes = recorded ? 'recorded' : 'two-way';
  if (h.antialiased) cloud.antiAliasing = { filter: { ...ANTIALIASED_FILTER }, source: 'SPZ flag "antialiased"' };
  return cloud;
}
