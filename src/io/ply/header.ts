/**
 * The PLY container as splat files use it: its magic line, where its ASCII
 * header ends, the header itself (elements and their typed properties), and
 * reading one typed scalar. Every PLY reader here (INRIA rows, compressed
 * PLY, the stream that tells them apart) starts from this. DOM-free.
 *
 * Line ends: a header's lines end in \n, or \r\n from some Windows writers.
 * Old-Mac line ends (a lone \r) are refused: common PLY readers (rply,
 * Python's plyfile) also read header lines up to \n, in a binary file the
 * byte after an `end_header\r` could be the data's first byte or a \n, and
 * no writer of splat files uses them. A file that starts "ply\r" is still a PLY, so that it gets
 * that message rather than "unrecognised".
 */
import { SplatFormatError } from '../format-error';

const LF = 0x0a;
const CR = 0x0d;

/**
 * True when the bytes start with PLY's magic line: "ply" and a line break
 * (\n, \r\n, or a lone \r, which parsePlyHeader refuses with its own
 * message). The one test of the magic: detection, the stream and the header
 * parser all ask it.
 */
function hasPlyMagic(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x70 && bytes[1] === 0x6c && bytes[2] === 0x79 &&
    (bytes[3] === LF || bytes[3] === CR);
}

/** Throws for a header whose magic line ends in a lone \r (old-Mac line ends). */
function checkLineEnds(bytes: Uint8Array): void {
  if (bytes.length > 4 && bytes[3] === CR && bytes[4] !== LF) {
    throw new SplatFormatError(
      'PLY header ends its lines with a lone carriage return (old Mac line ends): only \\n and \\r\\n line ends are read',
    );
  }
}

/**
 * The header comment that says a scene was trained with gsplat's
 * antialiased rasterizer, as SPZ's flag "antialiased" and SOG's
 * `antialias` say: PLY has no property for it, and readers that know
 * nothing of it skip comments. Splatsort's PLY writer writes it for such a
 * scene; filter_3D, where a file has both, decides.
 */
export const PLY_ANTIALIASED_COMMENT = 'antialiased';

/** A PLY header longer than this is not a splat file's (real ones are under 2 KB). */
const MAX_PLY_HEADER = 1 << 20;

/**
 * What the start of a file says of its PLY header: undefined when the file
 * is no PLY; 'more' while the header of a file still arriving (`partial`)
 * has not ended; 'truncated' when whole bytes end inside it (the parser
 * names what is missing); else the header. Throws for a header that cannot
 * be a splat file's (malformed, old-Mac line ends, longer than any).
 */
export function sniffPlyHeader(bytes: Uint8Array, partial: boolean): PlyHeader | 'more' | 'truncated' | undefined {
  if (!hasPlyMagic(bytes)) return undefined;
  if (plyHeaderEnd(bytes) >= 0) return parsePlyHeader(bytes);
  if (!partial) return 'truncated';
  if (bytes.length > MAX_PLY_HEADER) {
    throw new SplatFormatError(`PLY header is not a splat header: no "end_header" line in the first ${MAX_PLY_HEADER / 1024} KB`);
  }
  return 'more';
}

const END_HEADER = [0x65, 0x6e, 0x64, 0x5f, 0x68, 0x65, 0x61, 0x64, 0x65, 0x72]; // "end_header"

/**
 * Where the data of a PLY whose magic line is there starts: the byte after
 * the `end_header` line, or -1 while the header is incomplete (a stream
 * still arriving). Throws for old-Mac line ends, whose header never ends.
 */
export function plyHeaderEnd(bytes: Uint8Array): number {
  checkLineEnds(bytes);
  let from = 0;
  for (;;) {
    const at = bytes.indexOf(END_HEADER[0]!, from);
    if (at < 0 || at + END_HEADER.length > bytes.length) return -1;
    let match = at === 0 || bytes[at - 1] === LF;
    for (let i = 1; match && i < END_HEADER.length; i++) match = bytes[at + i] === END_HEADER[i];
    if (match) {
      const lineEnd = bytes.indexOf(LF, at + END_HEADER.length);
      return lineEnd < 0 ? -1 : lineEnd + 1;
    }
    from = at + 1;
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
  /** The text of each `comment` line, after the keyword, trimmed. */
  comments: string[];
}

// Both the PLY spec names and the sized aliases that some writers use.
const TYPES: Record<string, PlyScalarType> = {
  char: 'int8', int8: 'int8', uchar: 'uint8', uint8: 'uint8',
  short: 'int16', int16: 'int16', ushort: 'uint16', uint16: 'uint16',
  int: 'int32', int32: 'int32', uint: 'uint32', uint32: 'uint32',
  float: 'float32', float32: 'float32', double: 'float64', float64: 'float64',
};

/** Bytes of each scalar type. */
export const PLY_SCALAR_SIZES: Record<PlyScalarType, number> = {
  int8: 1, uint8: 1, int16: 2, uint16: 2, int32: 4, uint32: 4, float32: 4, float64: 8,
};

const FORMATS: readonly string[] = ['binary_little_endian', 'binary_big_endian', 'ascii'];

function scalarType(name: string | undefined, line: string): PlyScalarType {
  // Own keys only: "toString" or "__proto__" must not pass for a type.
  const type = name === undefined || !Object.hasOwn(TYPES, name) ? undefined : TYPES[name];
  if (!type) throw new SplatFormatError(`PLY header has an unknown property type in "${line}"`);
  return type;
}

/** Reads the ASCII header. Throws SplatFormatError on a malformed or truncated header. */
export function parsePlyHeader(bytes: Uint8Array): PlyHeader {
  if (!hasPlyMagic(bytes)) throw new SplatFormatError('Not a PLY file: it does not start with the "ply" magic line');
  checkLineEnds(bytes);

  let format: PlyFormat | undefined;
  let version = '';
  const elements: PlyElement[] = [];
  const comments: string[] = [];
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
    if (keyword === 'comment') comments.push(line.trim().slice('comment'.length).trim());
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
        if (element.rowSize !== undefined) element.rowSize += PLY_SCALAR_SIZES[type];
      }
    } else {
      throw new SplatFormatError(`PLY header has an unexpected line "${line.trim().slice(0, 60)}"`);
    }
  }
  if (!format) throw new SplatFormatError('PLY header has no "format" line');
  return { format, version, elements, headerLength: pos, comments };
}

/** One scalar of a binary PLY row, as a number. */
export function readPlyScalar(view: DataView, at: number, type: PlyScalarType, littleEndian: boolean): number {
  switch (type) {
    case 'int8': return view.getInt8(at);
    case 'uint8': return view.getUint8(at);
    case 'int16': return view.getInt16(at, littleEndian);
    case 'uint16': return view.getUint16(at, littleEndian);
    case 'int32': return view.getInt32(at, littleEndian);
    case 'uint32': return view.getUint32(at, littleEndian);
    case 'float32': return view.getFloat32(at, littleEndian);
    case 'float64': return view.getFloat64(at, littleEndian);
  }
}
