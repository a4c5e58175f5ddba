/**
 * Parser for PlayCanvas / SuperSplat "compressed" PLY files into a SplatCloud
 * with activations applied. DOM-free.
 *
 * Layout (binary PLY, elements in any order, found by name):
 * - `chunk`, one row per 256 splats, float: min_x min_y min_z max_x max_y max_z,
 *   min_scale_x/y/z max_scale_x/y/z (log scales), and optionally
 *   min_r min_g min_b max_r max_g max_b (base colour range).
 * - `vertex`, uint: packed_position, packed_rotation, packed_scale, packed_color.
 *   Splat i uses chunk floor(i / 256).
 *   - position and scale: 11/10/11 bits (x in bits 21..31, y in 11..20,
 *     z in 0..10), each unorm, lerped between the chunk's min and max; the
 *     scale is then exp'ed.
 *   - rotation: bits 30..31 index (in w x y z order) of the largest
 *     component; the other three, in order, in bits 20..29, 10..19, 0..9,
 *     each (unorm - 0.5) * sqrt(2), i.e. in [-1/sqrt(2), 1/sqrt(2)]; the
 *     largest is sqrt(1 - sum of squares of the others).
 *   - colour: 8/8/8/8 bits r (bits 24..31), g, b, opacity (bits 0..7). The
 *     colour unorm is lerped by the chunk colour range when present (else used
 *     as is) and is the base colour 0.5 + SH_C0 * dc. Opacity unorm is the
 *     activated opacity (sigmoid output), not a logit.
 * - optional `sh`, uchar f_rest_0.. (9, 24 or 45 of them, INRIA channel-major
 *   naming): value = byte * 8 / 255 - 4.
 *
 * Every element's size is checked against the file before anything is
 * allocated; an element or property that appears twice, or a property of an
 * unknown type, is refused; bytes after the last element are ignored.
 */
import { allocateSplatCloud,
  computeBounds, shCoefficients, shDegreeFromRestCount, SH_C0, type SplatCloud,
} from '../../scene/splat-cloud';
import { SplatFormatError } from '../format-error';
import {
  PLY_SCALAR_SIZES, readPlyScalar, type PlyElement, type PlyHeader, type PlyScalarProperty, type PlyScalarType,
} from './header';
import { checkSplatCount, DEFAULT_LOAD_LIMITS, type LoadLimits } from '../load-limits';

export const CHUNK_SPLATS = 256;

const CHUNK_REQUIRED = [
  'min_x', 'min_y', 'min_z', 'max_x', 'max_y', 'max_z',
  'min_scale_x', 'min_scale_y', 'min_scale_z', 'max_scale_x', 'max_scale_y', 'max_scale_z',
] as const;
const CHUNK_COLOUR = ['min_r', 'min_g', 'min_b', 'max_r', 'max_g', 'max_b'] as const;
const VERTEX_REQUIRED = ['packed_position', 'packed_rotation', 'packed_scale', 'packed_color'] as const;

const PROGRESS_ROWS = 65536;

function scalarColumn(element: PlyElement, name: string, types: readonly PlyScalarType[]): PlyScalarProperty | undefined {
  const prop = element.properties.find((p) => p.name === name);
  if (!prop) return undefined;
  if (prop.kind !== 'scalar' || !types.includes(prop.type)) {
    throw new SplatFormatError(
      `Compressed PLY property "${element.name}.${name}" has an unexpected type (expected ${types.join(' or ')})`,
    );
  }
  return prop;
}

function requireColumn(element: PlyElement, name: string, types: readonly PlyScalarType[]): PlyScalarProperty {
  const prop = scalarColumn(element, name, types);
  if (!prop) throw new SplatFormatError(`Compressed PLY element "${element.name}" is missing property "${name}"`);
  return prop;
}

function readPacked(view: DataView, row: number, col: PlyScalarProperty, le: boolean): number {
  return readPlyScalar(view, row + col.offset, col.type, le) >>> 0;
}

const FLOATS: readonly PlyScalarType[] = ['float32', 'float64'];
const UINTS: readonly PlyScalarType[] = ['uint32', 'int32'];
const BYTES: readonly PlyScalarType[] = ['uint8'];

export interface ParseCompressedPlyOptions {
  /** Gets fractions in [0, 1] every 64K splats and 1 at the end. */
  onProgress?: (fraction: number) => void;
  /** What the scene may cost (default DEFAULT_LOAD_LIMITS): the vertex count is checked against it before allocating. */
  limits?: LoadLimits;
}

/** Decodes a compressed PLY whose header `parsePlyHeader` has already read. */
export function parseCompressedPly(
  bytes: Uint8Array,
  header: PlyHeader,
  options: ParseCompressedPlyOptions = {},
): SplatCloud {
  if (header.format === 'ascii') {
    throw new SplatFormatError('Compressed PLY in ascii format is not supported: only binary formats are');
  }
  const le = header.format === 'binary_little_endian';
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);

  // Element start offsets, in header order; every element must have fixed-size rows
  // of known types, and no element or property may appear twice (which one would count?).
  const starts = new Map<string, number>();
  let offset = header.headerLength;
  for (const element of header.elements) {
    if (element.rowSize === undefined) {
      throw new SplatFormatError(`Compressed PLY element "${element.name}" has a list property: not supported`);
    }
    if (starts.has(element.name)) throw new SplatFormatError(`Compressed PLY has element "${element.name}" twice`);
    const names = new Set<string>();
    for (const prop of element.properties) {
      if (prop.kind !== 'scalar' || !Object.hasOwn(PLY_SCALAR_SIZES, prop.type)) {
        throw new SplatFormatError(`Compressed PLY property "${element.name}.${prop.name}" has an unknown type`);
      }
      if (names.has(prop.name)) {
        throw new SplatFormatError(`Compressed PLY element "${element.name}" has property "${prop.name}" twice`);
      }
      names.add(prop.name);
    }
    if (!Number.isSafeInteger(element.rowSize * element.count)) {
      throw new SplatFormatError(
        `Compressed PLY element "${element.name}" is absurdly large: ${element.count} rows of ${element.rowSize} bytes`,
      );
    }
    const length = element.rowSize * element.count;
    if (offset + length > bytes.byteLength) {
      throw new SplatFormatError(
        `Compressed PLY data is too short: element "${element.name}" needs ${length} bytes at offset ${offset}, ` +
        `but the file has ${bytes.byteLength} bytes`,
      );
    }
    starts.set(element.name, offset);
    offset += length;
  }

  const chunk = header.elements.find((e) => e.name === 'chunk');
  const vertex = header.elements.find((e) => e.name === 'vertex');
  if (!chunk) throw new SplatFormatError('Compressed PLY has no "chunk" element');
  if (!vertex) throw new SplatFormatError('Compressed PLY has no "vertex" element');

  const count = vertex.count;
  if (count > chunk.count * CHUNK_SPLATS) {
    throw new SplatFormatError(
      `Compressed PLY has ${count} vertices but only ${chunk.count} chunks ` +
      `(at most ${chunk.count * CHUNK_SPLATS} vertices, ${CHUNK_SPLATS} per chunk)`,
    );
  }

  // Optional SH element.
  const shElement = header.elements.find((e) => e.name === 'sh');
  let restCols: PlyScalarProperty[] = [];
  let shStart = 0;
  let shRow = 0;
  let restCount = 0;
  if (shElement) {
    while (shElement.properties.some((p) => p.name === `f_rest_${restCount}`)) restCount++;
    const total = shElement.properties.filter((p) => p.name.startsWith('f_rest_')).length;
    if (shDegreeFromRestCount(restCount) === undefined || total !== restCount) {
      throw new SplatFormatError(
        `Compressed PLY sh element has ${total} f_rest_* properties; expected f_rest_0.. with 9, 24 or 45 of them`,
      );
    }
    if (shElement.count !== count) {
      throw new SplatFormatError(`Compressed PLY sh element has ${shElement.count} rows for ${count} vertices`);
    }
    restCols = Array.from({ length: restCount }, (_, i) => requireColumn(shElement, `f_rest_${i}`, BYTES));
    shStart = starts.get('sh')!;
    shRow = shElement.rowSize!;
  }
  const shDegree = shDegreeFromRestCount(restCount)!;
  checkSplatCount(count, shDegree, options.limits ?? DEFAULT_LOAD_LIMITS, 'The compressed PLY header declares');

  // Chunk table: 18 floats per chunk (colour range defaults to 0..1).
  const chunkCols = CHUNK_REQUIRED.map((name) => requireColumn(chunk, name, FLOATS));
  const colourCols = CHUNK_COLOUR.map((name) => scalarColumn(chunk, name, FLOATS));
  const hasColour = colourCols.every((c) => c !== undefined);
  if (!hasColour && colourCols.some((c) => c !== undefined)) {
    throw new SplatFormatError('Compressed PLY chunk element has only some of min_r..max_b: all six are needed');
  }
  const chunkStart = starts.get('chunk')!;
  const chunkRow = chunk.rowSize!;
  const chunkCount = Math.ceil(count / CHUNK_SPLATS);
  const table = new Float64Array(chunkCount * 18);
  for (let c = 0; c < chunkCount; c++) {
    const base = chunkStart + c * chunkRow;
    for (let j = 0; j < 12; j++) {
      const col = chunkCols[j]!;
      table[c * 18 + j] = readPlyScalar(view, base + col.offset, col.type, le);
    }
    for (let j = 0; j < 6; j++) {
      const col = colourCols[j];
      table[c * 18 + 12 + j] = col ? readPlyScalar(view, base + col.offset, col.type, le) : j < 3 ? 0 : 1;
    }
  }

  const [posCol, rotCol, scaleCol, colourCol] = VERTEX_REQUIRED.map((name) => requireColumn(vertex, name, UINTS));
  const vertexStart = starts.get('vertex')!;
  const vertexRow = vertex.rowSize!;

  const K = shCoefficients(shDegree);
  // Output slot (k * 3 + channel) reads file column f_rest_{channel * K + k}.
  const shOffsets = new Int32Array(K * 3);
  for (let k = 0; k < K; k++) for (let c = 0; c < 3; c++) shOffsets[k * 3 + c] = restCols[c * K + k]!.offset;

  const cloud = allocateSplatCloud(count, shDegree);
  const { positions, scales, rotations, opacities, dc, sh } = cloud;
  const q = new Float64Array(4);
  const onProgress = options.onProgress;
  const ROT_SCALE = Math.SQRT2; // (unorm - 0.5) * sqrt(2) spans ±1/sqrt(2)

  for (let i = 0; i < count; i++) {
    const t = Math.floor(i / CHUNK_SPLATS) * 18;
    const row = vertexStart + i * vertexRow;

    const p = readPacked(view, row, posCol!, le);
    const px = (p >>> 21) / 2047, py = ((p >>> 11) & 0x3ff) / 1023, pz = (p & 0x7ff) / 2047;
    positions[3 * i] = table[t]! + (table[t + 3]! - table[t]!) * px;
    positions[3 * i + 1] = table[t + 1]! + (table[t + 4]! - table[t + 1]!) * py;
    positions[3 * i + 2] = table[t + 2]! + (table[t + 5]! - table[t + 2]!) * pz;

    const s = readPacked(view, row, scaleCol!, le);
    const sx = (s >>> 21) / 2047, sy = ((s >>> 11) & 0x3ff) / 1023, sz = (s & 0x7ff) / 2047;
    scales[3 * i] = Math.exp(table[t + 6]! + (table[t + 9]! - table[t + 6]!) * sx);
    scales[3 * i + 1] = Math.exp(table[t + 7]! + (table[t + 10]! - table[t + 7]!) * sy);
    scales[3 * i + 2] = Math.exp(table[t + 8]! + (table[t + 11]! - table[t + 8]!) * sz);

    const r = readPacked(view, row, rotCol!, le);
    const largest = r >>> 30;
    const a = (((r >>> 20) & 0x3ff) / 1023 - 0.5) * ROT_SCALE;
    const b = (((r >>> 10) & 0x3ff) / 1023 - 0.5) * ROT_SCALE;
    const c = ((r & 0x3ff) / 1023 - 0.5) * ROT_SCALE;
    const m = Math.sqrt(Math.max(0, 1 - (a * a + b * b + c * c)));
    // The three stored components fill the other slots of w x y z in order.
    for (let k = 0, j = 0; k < 4; k++) {
      if (k === largest) {
        q[k] = m;
      } else {
        q[k] = j === 0 ? a : j === 1 ? b : c;
        j++;
      }
    }
    const norm = Math.hypot(q[0]!, q[1]!, q[2]!, q[3]!);
    for (let k = 0; k < 4; k++) rotations[4 * i + k] = q[k]! / norm;

    const col = readPacked(view, row, colourCol!, le);
    const cr = (col >>> 24) / 255, cg = ((col >>> 16) & 0xff) / 255, cb = ((col >>> 8) & 0xff) / 255;
    dc[3 * i] = (table[t + 12]! + (table[t + 15]! - table[t + 12]!) * cr - 0.5) / SH_C0;
    dc[3 * i + 1] = (table[t + 13]! + (table[t + 16]! - table[t + 13]!) * cg - 0.5) / SH_C0;
    dc[3 * i + 2] = (table[t + 14]! + (table[t + 17]! - table[t + 14]!) * cb - 0.5) / SH_C0;
    opacities[i] = (col & 0xff) / 255;

    if (K > 0) {
      const shBase = shStart + i * shRow;
      const out = i * K * 3;
      for (let o = 0; o < K * 3; o++) sh[out + o] = bytes[shBase + shOffsets[o]!]! * (8 / 255) - 4;
    }
    if (onProgress && (i + 1) % PROGRESS_ROWS === 0) onProgress((i + 1) / count);
  }
  onProgress?.(1);

  cloud.bounds = computeBounds(positions, count);
  return cloud;
}
