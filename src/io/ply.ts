/**
 * Parser for INRIA 3D Gaussian Splatting .ply files (binary little endian)
 * into a SplatCloud with activations applied. DOM-free: runs in a worker,
 * on the main thread or in Node.
 */
import { allocateSplatCloud,computeBounds, shCoefficients, shDegreeFromRestCount, type SplatCloud } from '../scene/splat-cloud';

/** Thrown for any file this parser cannot read; the message says what is wrong. */
export class SplatFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SplatFormatError';
  }
}

export type PlyFormat = 'binary_little_endian' | 'binary_big_endian' | 'ascii';
export type PlyScalarType =
  | 'int8' | 'uint8' | 'int16' | 'uint16' | 'int32' | 'uint32' | 'float32' | 'float64';

export interface PlyScalarProperty {
  kind: 'scalar';
  name: string;
  type: PlyScalarType;
  /** Byte offset inside a row. Meaningful only when the element has no list property. */
  offset: number;
}

export interface PlyListProperty {
  kind: 'list';
  name: string;
  countType: PlyScalarType;
  itemType: PlyScalarType;
}

export type PlyProperty = PlyScalarProperty | PlyListProperty;

export interface PlyElement {
  name: string;
  count: number;
  properties: PlyProperty[];
  /** Bytes per row, or undefined when a list property makes rows variable-sized. */
  rowSize: number | undefined;
}

export interface PlyHeader {
  format: PlyFormat;
  version: string;
  elements: PlyElement[];
  /** Bytes up to and including the `end_header` line: where the data starts. */
  headerLength: number;
}

// Both the PLY spec names and the sized aliases that some writers use.
const TYPES: Record<string, PlyScalarType> = {
  char: 'int8', int8: 'int8', uchar: 'uint8', uint8: 'uint8',
  short: 'int16', int16: 'int16', ushort: 'uint16', uint16: 'uint16',
  int: 'int32', int32: 'int32', uint: 'uint32', uint32: 'uint32',
  float: 'float32', float32: 'float32', double: 'float64', float64: 'float64',
};

const SIZES: Record<PlyScalarType, number> = {
  int8: 1, uint8: 1, int16: 2, uint16: 2, int32: 4, uint32: 4, float32: 4, float64: 8,
};

const FORMATS: readonly string[] = ['binary_little_endian', 'binary_big_endian', 'ascii'];

function toBytes(buffer: ArrayBuffer | Uint8Array): Uint8Array {
  return buffer instanceof Uint8Array ? buffer : new Uint8Array(buffer);
}

function scalarType(name: string | undefined, line: string): PlyScalarType {
  const type = name === undefined ? undefined : TYPES[name];
  if (!type) throw new SplatFormatError(`PLY header has an unknown property type in "${line}"`);
  return type;
}

/** Reads the ASCII header. Throws SplatFormatError on a malformed or truncated header. */
export function parsePlyHeader(bytes: Uint8Array): PlyHeader {
  // "ply" then a line break (\n, or \r\n from some Windows writers).
  const isPly = bytes.length >= 4 && bytes[0] === 0x70 && bytes[1] === 0x6c && bytes[2] === 0x79 &&
    (bytes[3] === 0x0a || bytes[3] === 0x0d);
  if (!isPly) throw new SplatFormatError('Not a PLY file: it does not start with the "ply" magic line');

  let format: PlyFormat | undefined;
  let version = '';
  const elements: PlyElement[] = [];
  let pos = bytes.indexOf(0x0a) + 1;
  for (;;) {
    const end = bytes.indexOf(0x0a, pos);
    if (end < 0) {
      throw new SplatFormatError('PLY header is truncated: the file ends before the "end_header" line');
    }
    let line = '';
    for (let i = pos; i < end; i++) line += String.fromCharCode(bytes[i]!);
    pos = end + 1;
    const words = line.trim().split(/\s+/);
    const keyword = words[0];
    if (keyword === 'end_header') break;
    if (keyword === '' || keyword === 'comment' || keyword === 'obj_info') continue;
    if (keyword === 'format') {
      const name = words[1] ?? '';
      if (!FORMATS.includes(name)) throw new SplatFormatError(`PLY header has an unknown format "${name}"`);
      format = name as PlyFormat;
      version = words[2] ?? '';
    } else if (keyword === 'element') {
      const count = Number(words[2]);
      if (words.length !== 3 || !Number.isSafeInteger(count) || count < 0) {
        throw new SplatFormatError(`PLY header has a malformed element line "${line.trim()}"`);
      }
      elements.push({ name: words[1]!, count, properties: [], rowSize: 0 });
    } else if (keyword === 'property') {
      const element = elements[elements.length - 1];
      if (!element) throw new SplatFormatError(`PLY header has a property before any element: "${line.trim()}"`);
      if (words[1] === 'list') {
        if (words.length !== 5) throw new SplatFormatError(`PLY header has a malformed list property "${line.trim()}"`);
        const countType = scalarType(words[2], line.trim());
        const itemType = scalarType(words[3], line.trim());
        element.properties.push({ kind: 'list', name: words[4]!, countType, itemType });
        element.rowSize = undefined;
      } else {
        if (words.length !== 3) throw new SplatFormatError(`PLY header has a malformed property "${line.trim()}"`);
        const type = scalarType(words[1], line.trim());
        const offset = element.rowSize ?? 0;
        element.properties.push({ kind: 'scalar', name: words[2]!, type, offset });
        if (element.rowSize !== undefined) element.rowSize += SIZES[type];
      }
    } else {
      throw new SplatFormatError(`PLY header has an unexpected line "${line.trim().slice(0, 60)}"`);
    }
  }
  if (!format) throw new SplatFormatError('PLY header has no "format" line');
  return { format, version, elements, headerLength: pos };
}

/** Byte length of an element whose rows contain list properties (walks every row). */
function variableElementLength(view: DataView, start: number, element: PlyElement): number {
  let p = start;
  try {
    for (let r = 0; r < element.count; r++) {
      for (const prop of element.properties) {
        if (prop.kind === 'scalar') {
          p += SIZES[prop.type];
          continue;
        }
        const n = readScalar(view, p, prop.countType);
        p += SIZES[prop.countType] + n * SIZES[prop.itemType];
      }
    }
  } catch {
    p = Infinity; // the DataView ran off the end
  }
  if (p > view.byteLength) {
    throw new SplatFormatError(`PLY data ends inside element "${element.name}" (before the vertices)`);
  }
  return p - start;
}

function readScalar(view: DataView, at: number, type: PlyScalarType): number {
  switch (type) {
    case 'int8': return view.getInt8(at);
    case 'uint8': return view.getUint8(at);
    case 'int16': return view.getInt16(at, true);
    case 'uint16': return view.getUint16(at, true);
    case 'int32': return view.getInt32(at, true);
    case 'uint32': return view.getUint32(at, true);
    case 'float32': return view.getFloat32(at, true);
    case 'float64': return view.getFloat64(at, true);
  }
}

/** Copies bytes into a fresh (4-byte aligned) Float32Array. */
function realign(bytes: Uint8Array): Float32Array {
  const out = new Float32Array(bytes.byteLength / 4);
  new Uint8Array(out.buffer).set(bytes);
  return out;
}

const REQUIRED = [
  'x', 'y', 'z', 'f_dc_0', 'f_dc_1', 'f_dc_2', 'opacity',
  'scale_0', 'scale_1', 'scale_2', 'rot_0', 'rot_1', 'rot_2', 'rot_3',
] as const;

const PROGRESS_ROWS = 65536;

/**
 * Parses an INRIA 3DGS binary little-endian PLY. Properties are found by name
 * in any order and read by their declared type; other properties and other
 * elements are skipped. `onProgress` gets fractions in [0, 1] every 64K rows.
 */
export function parseSplatPly(
  buffer: ArrayBuffer | Uint8Array,
  options: { onProgress?: (fraction: number) => void } = {},
): SplatCloud {
  const bytes = toBytes(buffer);
  const header = parsePlyHeader(bytes);
  if (header.format !== 'binary_little_endian') {
    throw new SplatFormatError(
      `PLY format "${header.format}" is not supported: only binary_little_endian is supported`,
    );
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);

  // Find where the vertex rows start by skipping the elements before them.
  let start = header.headerLength;
  let vertex: PlyElement | undefined;
  for (const element of header.elements) {
    if (element.name === 'vertex') {
      vertex = element;
      break;
    }
    start += element.rowSize !== undefined
      ? element.rowSize * element.count
      : variableElementLength(view, start, element);
  }
  if (!vertex) throw new SplatFormatError('PLY file has no "vertex" element');
  const rowSize = vertex.rowSize;
  if (rowSize === undefined) throw new SplatFormatError('PLY vertex element has a list property: not a splat file');

  const columns = new Map<string, PlyScalarProperty>();
  for (const p of vertex.properties) if (p.kind === 'scalar') columns.set(p.name, p);
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
  const available = Math.max(0, Math.floor((bytes.byteLength - start) / rowSize));
  if (count > available) {
    throw new SplatFormatError(
      `PLY vertex count ${count} is larger than the data: the bytes hold only ${available} rows of ${rowSize} bytes`,
    );
  }

  // Source columns per output value, in output order. SH: the file is
  // channel-major (f_rest_{c*K+k}); the cloud wants sh[(i*K+k)*3+c].
  const K = shCoefficients(shDegree);
  const restOrder: string[] = [];
  for (let k = 0; k < K; k++) for (let c = 0; c < 3; c++) restOrder.push(`f_rest_${c * K + k}`);
  const used = [...REQUIRED, ...restOrder].map((name) => columns.get(name)!);

  // Every used column is copied into a small float row first, from a Float32Array
  // view when the whole row is float32 (the common case), else via the DataView.
  const allFloat = vertex.properties.every((p) => p.kind === 'scalar' && p.type === 'float32');
  let f32: Float32Array | undefined;
  if (allFloat && rowSize % 4 === 0 && count > 0) {
    const from = bytes.byteOffset + start;
    const length = count * rowSize;
    f32 = from % 4 === 0
      ? new Float32Array(bytes.buffer, from, length / 4)
      : realign(bytes.subarray(start, start + length));
  }
  const stride = rowSize / 4;
  const floatIndex = Int32Array.from(used, (p) => p.offset / 4);
  const byteOffset = Int32Array.from(used, (p) => p.offset);
  const types = used.map((p) => p.type);
  const nUsed = used.length;
  const row = new Float32Array(nUsed);

  const cloud = allocateSplatCloud(count, shDegree);
  const { positions, scales, rotations, opacities, dc, sh } = cloud;
  const shStride = K * 3;
  const onProgress = options.onProgress;

  for (let i = 0; i < count; i++) {
    if (f32) {
      const base = i * stride;
      for (let j = 0; j < nUsed; j++) row[j] = f32[base + floatIndex[j]!]!;
    } else {
      const base = start + i * rowSize;
      for (let j = 0; j < nUsed; j++) row[j] = readScalar(view, base + byteOffset[j]!, types[j]!);
    }
    positions[3 * i] = row[0]!;
    positions[3 * i + 1] = row[1]!;
    positions[3 * i + 2] = row[2]!;
    dc[3 * i] = row[3]!;
    dc[3 * i + 1] = row[4]!;
    dc[3 * i + 2] = row[5]!;
    opacities[i] = 1 / (1 + Math.exp(-row[6]!));
    scales[3 * i] = Math.exp(row[7]!);
    scales[3 * i + 1] = Math.exp(row[8]!);
    scales[3 * i + 2] = Math.exp(row[9]!);
    // Trainer output is not normalised; a zero (or NaN) quaternion becomes identity.
    const w = row[10]!, x = row[11]!, y = row[12]!, z = row[13]!;
    const norm = Math.sqrt(w * w + x * x + y * y + z * z);
    if (norm > 0) {
      rotations[4 * i] = w / norm;
      rotations[4 * i + 1] = x / norm;
      rotations[4 * i + 2] = y / norm;
      rotations[4 * i + 3] = z / norm;
    } else {
      rotations[4 * i] = 1;
    }
    const shBase = i * shStride;
    for (let j = 0; j < shStride; j++) sh[shBase + j] = row[14 + j]!;
    if (onProgress && (i + 1) % PROGRESS_ROWS === 0) onProgress((i + 1) / count);
  }
  onProgress?.(1);

  cloud.bounds = computeBounds(positions, count);
  return cloud;
}
