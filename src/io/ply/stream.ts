/**
 * Streaming decoder for the vertex rows of an INRIA 3D Gaussian Splatting
 * PLY: bytes are pushed as they arrive (a fetch body, a File stream, or one
 * whole buffer) and decoded straight into the SplatCloud arrays, with
 * activations applied. Nothing but a partial row is kept from the file, so a
 * scene bigger than the memory for a second copy of its file still loads.
 * DOM-free.
 *
 * Rows whose properties are all float32 (every trainer writes these) are
 * read through a Float32Array; other layouts (mixed types, big endian) go
 * through a DataView.
 */
import {
  shCoefficients, shDegreeFromRestCount, writeUnitQuaternion,
  type ShDegree, type SplatCloud,
} from '../../scene/splat-cloud';
import { SplatFormatError } from '../format-error';
import { RecordStream } from '../record-stream';
import { expForFloat32 } from '../fast-exp';
import { MAX_MAGNITUDE, validateSplatCloud } from '../validate-splats';
import { checkSplatCount, type LoadLimits } from '../load-limits';
import { PLY_ANTIALIASED_COMMENT, readPlyScalar, type PlyHeader, type PlyScalarProperty } from './header';
import { ANTIALIASED_FILTER, foldFilter3D, MIP_FILTER, type SceneAntiAliasing } from '../../scene/anti-aliasing';

const REQUIRED = [
  'x', 'y', 'z', 'f_dc_0', 'f_dc_1', 'f_dc_2', 'opacity',
  'scale_0', 'scale_1', 'scale_2', 'rot_0', 'rot_1', 'rot_2', 'rot_3',
] as const;

/**
 * Mip-Splatting's per-splat 3D smoothing filter (a standard deviation in
 * scene units): its PLYs carry it, and its renderer folds it into every
 * splat (src/scene/anti-aliasing.ts). A file that has it was trained with
 * Mip-Splatting's 2D mip filter too.
 */
const FILTER_3D = 'filter_3D';

export interface PlyStreamOptions {
  /**
   * Bytes of the whole file, when known (a File, a Content-Length, a buffer):
   * the vertex count is then checked against it before anything is
   * allocated. Without it the arrays grow as rows arrive, so a lying count
   * cannot allocate more than the data that actually came.
   */
  totalBytes?: number;
  /** Fraction of the vertex rows decoded, in [0, 1]. */
  onProgress?: (fraction: number) => void;
  /** The most splats the renderer can hold: a header that declares more is refused. */
  limits?: LoadLimits;
  /** Told of something odd that does not stop the load (bytes after the declared data). */
  onWarning?: (message: string) => void;
}

/**
 * Checks a parsed header and returns a decoder for its vertex rows. The
 * bytes pushed into it start right after the header's `end_header` line.
 */
export function createPlyVertexStream(header: PlyHeader, options: PlyStreamOptions = {}): PlyVertexStream {
  if (header.format === 'ascii') {
    throw new SplatFormatError(
      'PLY format "ascii" is not supported: splat files are binary (binary_little_endian or binary_big_endian)',
    );
  }
  // Bytes of the elements written before the vertex rows: skipped.
  let skip = 0;
  const vertexIndex = header.elements.findIndex((e) => e.name === 'vertex');
  if (vertexIndex < 0) throw new SplatFormatError('PLY file has no "vertex" element');
  if (header.elements.filter((e) => e.name === 'vertex').length > 1) {
    throw new SplatFormatError('PLY file has element "vertex" twice: it is not clear which holds the splats');
  }
  for (const element of header.elements.slice(0, vertexIndex)) {
    if (element.rowSize === undefined) {
      throw new SplatFormatError(
        `PLY element "${element.name}" before the vertices has a list property: not a splat file`,
      );
    }
    skip += element.rowSize * element.count;
  }
  // Bytes the header declares after the vertex rows; unknown (Infinity) when an element there has lists.
  let declaredAfter = 0;
  for (const element of header.elements.slice(vertexIndex + 1)) {
    declaredAfter += element.rowSize === undefined ? Infinity : element.rowSize * element.count;
  }
  const vertex = header.elements[vertexIndex]!;
  const rowSize = vertex.rowSize;
  if (rowSize === undefined) throw new SplatFormatError('PLY vertex element has a list property: not a splat file');

  const columns = new Map<string, PlyScalarProperty>();
  for (const p of vertex.properties) {
    if (p.kind !== 'scalar') continue;
    if (columns.has(p.name)) throw new SplatFormatError(`PLY vertex element has property "${p.name}" twice`);
    columns.set(p.name, p);
  }
  for (const name of REQUIRED) {
    if (!columns.has(name)) throw new SplatFormatError(`PLY vertex element is missing required property "${name}"`);
  }
  let restCount = 0;
  while (columns.has(`f_rest_${restCount}`)) restCount++;
  const restTotal = vertex.properties.filter((p) => p.name.startsWith('f_rest_')).length;
  const shDegree = shDegreeFromRestCount(restCount);
  if (shDegree === undefined || restTotal !== restCount) {
    throw new SplatFormatError(
      `PLY vertex element has ${restTotal} f_rest_* properties; expected f_rest_0.. with 0, 9, 24 or 45 of them`,
    );
  }

  const count = vertex.count;
  const { totalBytes } = options;
  if (totalBytes !== undefined) {
    const available = Math.max(0, Math.floor((totalBytes - header.headerLength - skip) / rowSize));
    if (count > available) {
      throw new SplatFormatError(
        `PLY vertex count ${count.toLocaleString('en-US')} is larger than the data: the file holds only ` +
        `${available.toLocaleString('en-US')} rows of ${rowSize} bytes`,
      );
    }
  }
  if (count === 0) throw new SplatFormatError('PLY file holds no splats: its vertex count is 0');
  if (options.limits) checkSplatCount(count, shDegree, options.limits, 'The PLY header declares');

  // Source columns per output value, in output order. SH: the file is
  // channel-major (f_rest_{c*K+k}); the cloud wants sh[(i*K+k)*3+c].
  const K = shCoefficients(shDegree);
  const restOrder: string[] = [];
  for (let k = 0; k < K; k++) for (let c = 0; c < 3; c++) restOrder.push(`f_rest_${c * K + k}`);
  const filtered = columns.has(FILTER_3D);
  const antiAliasing: SceneAntiAliasing | undefined = filtered
    ? { filter: { ...MIP_FILTER }, source: 'PLY property "filter_3D" (Mip-Splatting)' }
    : header.comments.includes(PLY_ANTIALIASED_COMMENT)
      ? { filter: { ...ANTIALIASED_FILTER }, source: `PLY comment "${PLY_ANTIALIASED_COMMENT}"` }
      : undefined;
  const used = [...REQUIRED, ...restOrder, ...(filtered ? [FILTER_3D] : [])].map((name) => columns.get(name)!);
  const allFloat = header.format === 'binary_little_endian' && rowSize % 4 === 0 &&
    vertex.properties.every((p) => p.kind === 'scalar' && p.type === 'float32');
  return new PlyVertexStream({
    count, shDegree, rowSize, skip, used, allFloat, filtered, antiAliasing,
    littleEndian: header.format === 'binary_little_endian',
    growable: totalBytes === undefined,
    onProgress: options.onProgress,
    limits: options.limits,
    onWarning: options.onWarning,
    // Bytes of the file past the declared data, when its size is known.
    extraBytes: totalBytes === undefined ? undefined : totalBytes - header.headerLength - skip - count * rowSize - declaredAfter,
    declaredAfter,
  });
}

interface StreamLayout {
  count: number;
  shDegree: ShDegree;
  rowSize: number;
  skip: number;
  /** The columns decoded, in decoding order: REQUIRED, the f_rest in cloud order, then filter_3D when `filtered`. */
  used: PlyScalarProperty[];
  allFloat: boolean;
  /** The rows carry Mip-Splatting's filter_3D (the last used column). */
  filtered: boolean;
  /** What the file says of its training's screen filter (filter_3D, or the header's comment). */
  antiAliasing: SceneAntiAliasing | undefined;
  littleEndian: boolean;
  growable: boolean;
  onProgress: ((fraction: number) => void) | undefined;
  limits: LoadLimits | undefined;
  onWarning: ((message: string) => void) | undefined;
  /** The file's bytes past everything its header declares, when its size is known (may be negative: truncated). */
  extraBytes: number | undefined;
  /** Bytes the header declares after the vertex rows (Infinity: not known). */
  declaredAfter: number;
}

/**
 * Bytes read past the vertex rows of a stream of unknown size before the
 * rest is left unread: enough to see that a file goes on, and what the
 * elements a header may declare there take in any splat file seen, while a
 * stream that never ends costs no more than this.
 */
export const PLY_TRAILING_READ_LIMIT = 4 * 2 ** 20;

export class PlyVertexStream extends RecordStream {
  /** The vertex count the header declares. */
  readonly count: number;
  private readonly layout: StreamLayout;
  private readonly floatIndex: Int32Array;
  private readonly byteOffset: Int32Array;
  /** 0, 1, 2, ...: the float index of the mixed path's converted rows. */
  private readonly usedOrder: Int32Array;
  private mixedBlock = new Float32Array(0);
  /** Running checks and bounds over the rows decoded so far. */
  private readonly summary = {
    /** Sum of the raw opacity, scale and rotation values: NaN or infinite if any of them is. */
    raw: 0,
    /** Largest |position|, |f_dc|, |f_rest| and linear scale: NaN if any is. */
    worst: 0,
    minX: Infinity, minY: Infinity, minZ: Infinity, maxX: -Infinity, maxY: -Infinity, maxZ: -Infinity,
  };

  constructor(layout: StreamLayout) {
    super({
      recordSize: layout.rowSize, count: layout.count, preallocate: !layout.growable,
      shDegree: layout.shDegree, skip: layout.skip, onProgress: layout.onProgress, limits: layout.limits,
    });
    this.layout = layout;
    this.count = layout.count;
    this.floatIndex = Int32Array.from(layout.used, (p) => p.offset / 4);
    this.byteOffset = Int32Array.from(layout.used, (p) => p.offset);
    this.usedOrder = Int32Array.from(layout.used, (_, j) => j);
  }

  /**
   * The decoded scene, its values checked as validateSplatCloud checks them
   * (on the way, not in another pass); throws when fewer rows arrived than
   * the header declares, or when a value is unusable.
   */
  override finish(): SplatCloud {
    if (this.records < this.count) {
      throw new SplatFormatError(
        `PLY file is truncated: the header declares ${this.count.toLocaleString('en-US')} splats, ` +
        `the data ends after ${this.records.toLocaleString('en-US')}` +
        (this.partialBytes > 0 ? ` and ${this.partialBytes} bytes of the next ${this.layout.rowSize}-byte row` : ''),
      );
    }
    this.warnAboutExtraBytes();
    const cloud = this.cloud;
    const { worst, minX, minY, minZ, maxX, maxY, maxZ } = this.summary;
    // Something is NaN, infinite or too large: the validator names it.
    if (!(worst <= MAX_MAGNITUDE)) validateSplatCloud(cloud);
    cloud.bounds = { min: [minX, minY, minZ], max: [maxX, maxY, maxZ] };
    if (this.layout.antiAliasing) cloud.antiAliasing = this.layout.antiAliasing;
    this.layout.onProgress?.(1);
    return cloud;
  }

  /**
   * True once the rows are all in and nothing more needs reading: the file's
   * size is known (so the extra bytes are known too), or more than
   * PLY_TRAILING_READ_LIMIT bytes came after the rows. The caller may stop
   * reading then.
   */
  override get enough(): boolean {
    if (!this.complete) return false;
    return this.layout.extraBytes !== undefined || this.trailingBytes > PLY_TRAILING_READ_LIMIT;
  }

  /** Says (onWarning) that the file holds more than its header declares; the extra is not read. */
  private warnAboutExtraBytes(): void {
    const { extraBytes, declaredAfter, count, onWarning } = this.layout;
    if (!onWarning) return;
    const cut = extraBytes === undefined && this.trailingBytes > PLY_TRAILING_READ_LIMIT;
    const extra = extraBytes ?? this.trailingBytes - declaredAfter;
    if (!(extra > 0)) return;
    const amount = cut ? `more than ${(PLY_TRAILING_READ_LIMIT / 2 ** 20).toFixed(0)} MiB` : `${extra.toLocaleString('en-US')} bytes`;
    onWarning(
      `The PLY file holds ${amount} after the ${count.toLocaleString('en-US')} splats its header declares. ` +
      'They were ignored: the file may be damaged, or written by a tool that miscounted.',
    );
  }

  protected decodeBlock(block: Uint8Array, rows: number): void {
    const { rowSize, allFloat, littleEndian } = this.layout;
    if (allFloat) {
      const f32 = new Float32Array(block.buffer, block.byteOffset, (rows * rowSize) / 4);
      this.decodeFloatRows(f32, rows, rowSize / 4, this.floatIndex);
    } else {
      this.decodeMixedRows(new DataView(block.buffer, block.byteOffset, rows * rowSize), rows, littleEndian);
    }
  }

  /** Decodes `rows` rows of `stride` floats; idx[j] is where used column j sits in a row. */
  private decodeFloatRows(f32: Float32Array, rows: number, stride: number, idx: Int32Array): void {
    const ix = idx[0]!, iy = idx[1]!, iz = idx[2]!, ir = idx[3]!, ig = idx[4]!, ib = idx[5]!, io = idx[6]!;
    const is0 = idx[7]!, is1 = idx[8]!, is2 = idx[9]!, iw = idx[10]!, iqx = idx[11]!, iqy = idx[12]!, iqz = idx[13]!;
    const { positions, scales, rotations, opacities, dc, sh } = this.cloud;
    const shStride = idx.length - 14 - (this.layout.filtered ? 1 : 0);
    const summary = this.summary;
    let { raw, worst, minX, minY, minZ, maxX, maxY, maxZ } = summary;
    let i = this.records;
    for (let r = 0; r < rows; r++, i++) {
      const b = r * stride;
      const i3 = 3 * i;
      const x = f32[b + ix]!, y = f32[b + iy]!, z = f32[b + iz]!;
      const red = f32[b + ir]!, green = f32[b + ig]!, blue = f32[b + ib]!;
      const o = f32[b + io]!, l0 = f32[b + is0]!, l1 = f32[b + is1]!, l2 = f32[b + is2]!;
      const w = f32[b + iw]!, qx = f32[b + iqx]!, qy = f32[b + iqy]!, qz = f32[b + iqz]!;
      positions[i3] = x;
      positions[i3 + 1] = y;
      positions[i3 + 2] = z;
      dc[i3] = red;
      dc[i3 + 1] = green;
      dc[i3 + 2] = blue;
      opacities[i] = 1 / (1 + expForFloat32(-o));
      const s0 = expForFloat32(l0), s1 = expForFloat32(l1), s2 = expForFloat32(l2);
      scales[i3] = s0;
      scales[i3 + 1] = s1;
      scales[i3 + 2] = s2;
      writeUnitQuaternion(rotations, 4 * i, w, qx, qy, qz);
      raw += o + l0 + l1 + l2 + w + qx + qy + qz;
      worst = Math.max(worst, Math.abs(x), Math.abs(y), Math.abs(z), Math.abs(red), Math.abs(green), Math.abs(blue), s0, s1, s2);
      // Bounds on the way, saving computeBounds' pass over the positions.
      if (x < minX) minX = x;
      if (x > maxX) maxX = x;
      if (y < minY) minY = y;
      if (y > maxY) maxY = y;
      if (z < minZ) minZ = z;
      if (z > maxZ) maxZ = z;
      const s = i * shStride;
      for (let j = 0; j < shStride; j++) {
        const v = f32[b + idx[14 + j]!]!;
        sh[s + j] = v;
        worst = Math.max(worst, Math.abs(v));
      }
    }
    Object.assign(summary, { raw, worst, minX, minY, minZ, maxX, maxY, maxZ });
    if (raw - raw !== 0) this.throwNonFinite(rows, (r, j) => f32[r * stride + idx[j]!]!);
    if (this.layout.filtered) this.foldFilters(f32, rows, stride, idx[idx.length - 1]!);
  }

  /** Folds each row's filter_3D into the splat just decoded from it (scales and opacity), as Mip-Splatting renders it. */
  private foldFilters(f32: Float32Array, rows: number, stride: number, column: number): void {
    const { scales, opacities } = this.cloud;
    let worst = this.summary.worst;
    for (let r = 0, i = this.records; r < rows; r++, i++) {
      const filter = f32[r * stride + column]!;
      if (!(Math.abs(filter) <= MAX_MAGNITUDE)) {
        throw new SplatFormatError(`PLY property filter_3D of splat ${i.toLocaleString('en-US')} is ${filter}: not a usable filter size`);
      }
      opacities[i] = foldFilter3D(scales, 3 * i, opacities[i]!, filter);
      worst = Math.max(worst, scales[3 * i]!, scales[3 * i + 1]!, scales[3 * i + 2]!);
    }
    this.summary.worst = worst;
  }

  /**
   * Rows of other layouts (mixed types, big endian) are converted to a block
   * of float32 rows holding just the used columns, in `used` order, and
   * decoded by the float path.
   */
  private decodeMixedRows(view: DataView, rows: number, littleEndian: boolean): void {
    const { rowSize, used } = this.layout;
    const { byteOffset } = this;
    const n = used.length;
    if (this.mixedBlock.length < rows * n) this.mixedBlock = new Float32Array(rows * n);
    const block = this.mixedBlock;
    for (let r = 0; r < rows; r++) {
      for (let j = 0; j < n; j++) block[r * n + j] = readPlyScalar(view, r * rowSize + byteOffset[j]!, used[j]!.type, littleEndian);
    }
    this.decodeFloatRows(block, rows, n, this.usedOrder);
  }

  /**
   * Names the first activated value (opacity, scale, rotation: columns 6..13
   * of `used`) that is NaN or infinite in this block, and how many splats of
   * the block have one. `readRaw(r, j)`: the raw value of column j in block row r.
   */
  private throwNonFinite(rows: number, readRaw: (r: number, j: number) => number): never {
    let first: { row: number; column: number; value: number } | undefined;
    let bad = 0;
    for (let r = 0; r < rows; r++) {
      let rowBad = false;
      for (let j = 6; j < 14; j++) {
        const value = readRaw(r, j);
        if (value - value === 0) continue;
        rowBad = true;
        first ??= { row: r, column: j, value };
      }
      if (rowBad) bad++;
    }
    const name = first ? this.layout.used[first.column]!.name : 'a value';
    const splat = (this.records + (first?.row ?? 0)).toLocaleString('en-US');
    throw new SplatFormatError(
      `PLY property ${name} of splat ${splat} is ${first?.value ?? 'not finite'} ` +
      `(${bad.toLocaleString('en-US')} of the ${rows.toLocaleString('en-US')} splats read with it have a NaN or infinite opacity, scale or rotation)`,
    );
  }
}
