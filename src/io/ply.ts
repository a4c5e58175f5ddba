/**
 * Parser for INRIA 3D Gaussian Splatting .ply files (binary, either endianness)
 * into a SplatCloud with activations applied. DOM-free: runs in a worker,
 * on the main thread or in Node.
 */
import type { SplatCloud } from '../scene/splat-cloud';
import { SplatFormatError } from './format-error';
import { createPlyVertexStream, type PlyStreamOptions } from './ply-stream';

export { SplatFormatError };

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
  // Own keys only: "toString" or "__proto__" must not pass for a type.
  const type = name === undefined || !Object.hasOwn(TYPES, name) ? undefined : TYPES[name];
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
      // Decimal digits only: Number() would also take "1e3", "0x3e8" or "+1000".
      const count = /^\d+$/.test(words[2] ?? '') ? Number(words[2]) : NaN;
      if (words.length !== 3 || !Number.isSafeInteger(count)) {
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

/**
 * Parses an INRIA 3DGS binary PLY held whole in memory. Properties are found
 * by name in any order and read by their declared type; other properties and
 * other elements are skipped. `onProgress` gets fractions in [0, 1] every 64K
 * rows. (Streams: parsePlyHeader + createPlyVertexStream.)
 */
export function parseSplatPly(
  buffer: ArrayBuffer | Uint8Array,
  options: Omit<PlyStreamOptions, 'totalBytes'> = {},
): SplatCloud {
  const bytes = toBytes(buffer);
  const header = parsePlyHeader(bytes);
  const stream = createPlyVertexStream(header, { ...options, totalBytes: bytes.byteLength });
  stream.push(bytes.subarray(header.headerLength));
  return stream.finish();
}
