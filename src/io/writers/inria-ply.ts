/**
 * Writes a SplatCloud as an INRIA 3D Gaussian Splatting PLY: binary little
 * endian, the properties in the order INRIA's trainer writes them (x y z,
 * nx ny nz, f_dc_0..2, f_rest_*, opacity, scale_0..2, rot_0..3), the stored
 * activations undone (logit opacity, log scales) and the higher SH bands
 * channel-major (15 R, then 15 G, then 15 B at degree 3). DOM-free.
 *
 * Lossless for what the PLY decoder (ply-stream.ts) produced: each raw value
 * written is a float32 whose activation, computed as the decoder computes it
 * (expForFloat32, writeUnitQuaternion), gives the cloud's float back
 * exactly, so a loaded PLY saved and loaded again is the same scene bit for
 * bit. A cloud from another format gets the nearest raw value where no
 * float32 maps exactly onto its own.
 *
 * A scene trained with Mip-Splatting (its 3D filter already folded into the
 * scales and opacities on load) is written with a filter_3D of 0 per
 * splat: folding 0 changes nothing, and the file still says how to draw it.
 * Its folded scales, sqrt(s² + f²), are not all exponentials of a float32:
 * those read back a float32 step off. One trained with gsplat's
 * antialiased rasterizer (an SPZ's or SOG's flag) gets the header comment
 * the PLY reader reads as that flag (PLY_ANTIALIASED_COMMENT).
 *
 * A negative scale (a .splat may hold one) is written as its magnitude, the
 * size it is drawn at: a log-scale has no sign. A scale of 0 gets a
 * log-scale that decodes to 0, not log 0 = −Infinity.
 */
import { shCoefficients, writeUnitQuaternion, type ShDegree, type SplatCloud } from '../../scene/splat-cloud';
import { ANTIALIASED_FILTER, MIP_FILTER, type ScreenFilter } from '../../scene/anti-aliasing';
import { expForFloat32 } from '../fast-exp';
import { PLY_ANTIALIASED_COMMENT } from '../ply/header';
import { checkWritable, drawnScale } from './writable';

/** The text of a PLY header from its lines between the magic line and end_header: "ply\n…end_header\n". */
export function plyHeaderText(lines: readonly string[], endHeader = 'end_header'): string {
  return ['ply', ...lines, endHeader].join('\n') + '\n';
}

/** Property names in the order INRIA's training code writes them (and Mip-Splatting's filter_3D last). */
export function inriaPlyProperties(shDegree: ShDegree, filter3D = false): string[] {
  const rest = shCoefficients(shDegree) * 3;
  return [
    'x', 'y', 'z', 'nx', 'ny', 'nz', 'f_dc_0', 'f_dc_1', 'f_dc_2',
    ...Array.from({ length: rest }, (_, i) => `f_rest_${i}`),
    'opacity', 'scale_0', 'scale_1', 'scale_2', 'rot_0', 'rot_1', 'rot_2', 'rot_3',
    ...(filter3D ? ['filter_3D'] : []),
  ];
}

/** The header of an INRIA PLY of `count` splats, every property a float; `comments` go after the format line. */
export function inriaPlyHeader(count: number, shDegree: ShDegree, filter3D = false, comments: readonly string[] = []): string {
  return plyHeaderText([
    'format binary_little_endian 1.0',
    ...comments.map((text) => `comment ${text}`),
    `element vertex ${count}`,
    ...inriaPlyProperties(shDegree, filter3D).map((name) => `property float ${name}`),
  ]);
}

/** The decoder's opacity of a stored logit. */
const opacityOf = (raw: number): number => Math.fround(1 / (1 + expForFloat32(-raw)));
/** The decoder's scale of a stored log-scale. */
const scaleOf = (raw: number): number => Math.fround(expForFloat32(raw));

/** Float32 steps searched either side of a first guess: the guess is within two of a preimage (the logit's and log's rounding, and expForFloat32's one step). */
const SEARCH_STEPS = 4;
const bits = new Float32Array(1);
const bitsInt = new Int32Array(bits.buffer);

/**
 * The float32 near `guess` that `activate` maps closest to `target`
 * (exactly, where one does), stepping a float32 at a time either side.
 */
function rawValue(target: number, guess: number, activate: (raw: number) => number): number {
  let best = Math.fround(guess);
  let bestError = Math.abs(activate(best) - target);
  if (!(bestError > 0)) return best;
  bits[0] = best;
  const start = bitsInt[0]!;
  for (let step = 1; step <= SEARCH_STEPS; step++) {
    for (const sign of [1, -1]) {
      bitsInt[0] = start + sign * step;
      const candidate = bits[0]!;
      const error = Math.abs(activate(candidate) - target);
      if (error < bestError) {
        best = candidate;
        bestError = error;
        if (error === 0) return best;
      }
    }
  }
  return best;
}

/** The logit whose sigmoid (as decoded) is `opacity`; opacities of 0 and 1 get ones far enough out to decode to 0 and 1. */
export function rawOpacity(opacity: number): number {
  // Beyond ±104 expForFloat32 saturates: the sigmoid is exactly 0 or 1.
  const guess = opacity <= 0 ? -104 : opacity >= 1 ? 104 : Math.log(opacity / (1 - opacity));
  return rawValue(opacity, Math.min(104, Math.max(-104, guess)), opacityOf);
}

/** The log-scale whose exponential (as decoded) is `scale`; 0 gets one that decodes to 0. */
export function rawScale(scale: number): number {
  return rawValue(scale, scale > 0 ? Math.log(scale) : -104, scaleOf);
}

const unit = new Float32Array(4);
const candidate = new Float32Array(4);
/**
 * Lengths tried: 1, then 1 ± 1/4096, 1 ± 2/4096, … up to ±1/2. Each rounds
 * the components anew; on the real scenes and 20,000 random quaternions
 * about 1 in 200 needed more than the first, and none more than 350.
 */
const LENGTHS = 4096;

/**
 * Writes at `out[at..at+3]` a quaternion that the decoder's normalisation
 * (writeUnitQuaternion) turns into `q[from..from+3]` exactly: the unit
 * quaternion itself, or where rounding its quotients misses, the same
 * direction at a slightly different length.
 */
function writeRawRotation(q: Float32Array, from: number, out: DataView, at: number): void {
  for (let k = 0; k < LENGTHS; k++) {
    const length = 1 + (k % 2 === 1 ? 1 : -1) * Math.ceil(k / 2) / LENGTHS;
    for (let c = 0; c < 4; c++) candidate[c] = q[from + c]! * length;
    writeUnitQuaternion(unit, 0, candidate[0]!, candidate[1]!, candidate[2]!, candidate[3]!);
    if (unit[0] === q[from] && unit[1] === q[from + 1] && unit[2] === q[from + 2] && unit[3] === q[from + 3]) break;
    // None found (none has been): the quaternion as it is, a float32 step off at most.
    if (k === LENGTHS - 1) candidate.set(q.subarray(from, from + 4));
  }
  for (let c = 0; c < 4; c++) out.setFloat32(at + 4 * c, candidate[c]!, true);
}

const isFilter = (filter: ScreenFilter | undefined, like: ScreenFilter): boolean =>
  filter?.variance === like.variance && filter.compensate === like.compensate;

/** The file's bytes: header, then one row of float32 properties per splat. */
export function writeInriaPly(cloud: SplatCloud): Uint8Array {
  checkWritable(cloud, 'INRIA PLY');
  const { count, shDegree } = cloud;
  const filtered = isFilter(cloud.antiAliasing?.filter, MIP_FILTER);
  const comments = isFilter(cloud.antiAliasing?.filter, ANTIALIASED_FILTER) ? [PLY_ANTIALIASED_COMMENT] : [];
  const header = new TextEncoder().encode(inriaPlyHeader(count, shDegree, filtered, comments));
  const K = shCoefficients(shDegree);
  const rowBytes = inriaPlyProperties(shDegree, filtered).length * 4;
  const bytes = new Uint8Array(header.length + count * rowBytes);
  bytes.set(header);
  // A DataView: the header's length leaves the rows unaligned for a Float32Array.
  const view = new DataView(bytes.buffer);
  const { positions, scales, rotations, opacities, dc, sh } = cloud;
  let at = header.length;
  const put = (value: number): void => {
    view.setFloat32(at, value, true);
    at += 4;
  };
  for (let i = 0; i < count; i++) {
    put(positions[3 * i]!);
    put(positions[3 * i + 1]!);
    put(positions[3 * i + 2]!);
    at += 12; // normals: 0
    put(dc[3 * i]!);
    put(dc[3 * i + 1]!);
    put(dc[3 * i + 2]!);
    for (let c = 0; c < 3; c++) for (let k = 0; k < K; k++) put(sh[(i * K + k) * 3 + c]!);
    put(rawOpacity(opacities[i]!));
    put(rawScale(drawnScale(scales[3 * i]!)));
    put(rawScale(drawnScale(scales[3 * i + 1]!)));
    put(rawScale(drawnScale(scales[3 * i + 2]!)));
    writeRawRotation(rotations, 4 * i, view, at);
    at += 16;
    if (filtered) at += 4; // filter_3D: 0
  }
  return bytes;
}
