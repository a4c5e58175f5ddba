/**
 * Small synthetic splat files of every format, byte by byte, for the broken
 * file corpus and the fuzzer: valid ones to start from, and the knobs to
 * make them lie (counts, types, missing or duplicate properties, endianness).
 * Also where the sections of the real files start, for truncation.
 */
import { gzipSync } from 'node:zlib';
import { splatPlyProperties } from './ply-writer';
import { plyHeaderText } from '../../src/io/writers/inria-ply';
import { shCoefficients, type ShDegree } from '../../src/scene/splat-cloud';

const encoder = new TextEncoder();

export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export function ascii(text: string): Uint8Array {
  return encoder.encode(text);
}

/** A deterministic generator of floats in [0, 1) (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ---------------------------------------------------------------------------
// INRIA ply.

export type PlyTypeName = 'char' | 'uchar' | 'short' | 'ushort' | 'int' | 'uint' | 'float' | 'double';

const PLY_SIZES: Record<PlyTypeName, number> = { char: 1, uchar: 1, short: 2, ushort: 2, int: 4, uint: 4, float: 4, double: 8 };

/** A plausible raw (file) value of an INRIA property for splat `i`. */
export function inriaValue(name: string, i: number, random: () => number): number {
  if (name === 'x' || name === 'y' || name === 'z') return (random() - 0.5) * 10 + i * 0.01;
  if (name.startsWith('n')) return 0;
  if (name.startsWith('f_dc_')) return random() * 2 - 1;
  if (name.startsWith('f_rest_')) return (random() - 0.5) * 0.2;
  if (name === 'opacity') return random() * 8 - 4; // a logit
  if (name.startsWith('scale_')) return -6 + random() * 4; // log scale
  if (name === 'rot_0') return 0.5 + random();
  if (name.startsWith('rot_')) return random() - 0.5;
  return 0;
}

export interface InriaPlyOptions {
  count: number;
  shDegree?: ShDegree;
  /** Property names in order (default: INRIA's order for the SH degree). */
  properties?: string[];
  /** Declared type per property (default float). */
  type?: (name: string) => PlyTypeName;
  format?: 'binary_little_endian' | 'binary_big_endian' | 'ascii';
  /** The count written on the `element vertex` line (default: count). */
  declaredCount?: string | number;
  /** Raw value override: return undefined to keep the default. */
  value?: (name: string, i: number) => number | undefined;
  /** Extra header lines inserted before `element vertex`. */
  before?: string[];
  /** Replaces "end_header" (e.g. to drop it). */
  endHeader?: string;
  seed?: number;
}

/** The header of a ply file from its lines: "ply" ... "end_header\n" (the product's writer's). */
export { plyHeaderText };

/** An INRIA-style splat ply with `count` rows of plausible values, every knob adjustable. */
export function inriaPly(options: InriaPlyOptions): Uint8Array {
  const shDegree = options.shDegree ?? 0;
  const names = options.properties ?? splatPlyProperties(shDegree);
  const typeOf = options.type ?? (() => 'float' as PlyTypeName);
  const format = options.format ?? 'binary_little_endian';
  const lines = [
    `format ${format} 1.0`,
    ...(options.before ?? []),
    `element vertex ${options.declaredCount ?? options.count}`,
    ...names.map((n) => `property ${typeOf(n)} ${n}`),
  ];
  const header = ascii(plyHeaderText(lines, options.endHeader));
  const random = rng(options.seed ?? 7);
  const values = (i: number): number[] =>
    names.map((n) => options.value?.(n, i) ?? inriaValue(n, i, random));
  if (format === 'ascii') {
    const rows: string[] = [];
    for (let i = 0; i < options.count; i++) rows.push(values(i).join(' '));
    return concat(header, ascii(rows.join('\n') + '\n'));
  }
  const le = format === 'binary_little_endian';
  const rowSize = names.reduce((n, name) => n + PLY_SIZES[typeOf(name)], 0);
  const body = new Uint8Array(rowSize * options.count);
  const view = new DataView(body.buffer);
  let at = 0;
  for (let i = 0; i < options.count; i++) {
    const row = values(i);
    names.forEach((name, j) => {
      const v = row[j]!;
      switch (typeOf(name)) {
        case 'char': view.setInt8(at, v); break;
        case 'uchar': view.setUint8(at, v); break;
        case 'short': view.setInt16(at, v, le); break;
        case 'ushort': view.setUint16(at, v, le); break;
        case 'int': view.setInt32(at, v, le); break;
        case 'uint': view.setUint32(at, v, le); break;
        case 'float': view.setFloat32(at, v, le); break;
        case 'double': view.setFloat64(at, v, le); break;
      }
      at += PLY_SIZES[typeOf(name)];
    });
  }
  return concat(header, body);
}

/** Byte offset of the data (just after "end_header\n") of a ply file. */
export function plyDataStart(bytes: Uint8Array): number {
  const text = new TextDecoder('latin1').decode(bytes.subarray(0, Math.min(bytes.length, 1 << 16)));
  const at = text.indexOf('end_header\n');
  if (at < 0) throw new Error('no end_header in the first 64 KiB');
  return at + 'end_header\n'.length;
}

// ---------------------------------------------------------------------------
// PlayCanvas compressed ply.

export interface CompressedPlyOptions {
  count: number;
  /** Chunk rows (default: ceil(count / 256)). */
  chunks?: number;
  shDegree?: ShDegree;
  /** Chunk value override per chunk row and property name. */
  chunkValue?: (name: string, chunk: number) => number | undefined;
  declaredVertexCount?: number | string;
  declaredChunkCount?: number | string;
  format?: 'binary_little_endian' | 'binary_big_endian';
  /** Type of the packed vertex properties (default uint). */
  packedType?: PlyTypeName;
  seed?: number;
}

export const CHUNK_PROPERTIES = [
  'min_x', 'min_y', 'min_z', 'max_x', 'max_y', 'max_z',
  'min_scale_x', 'min_scale_y', 'min_scale_z', 'max_scale_x', 'max_scale_y', 'max_scale_z',
  'min_r', 'min_g', 'min_b', 'max_r', 'max_g', 'max_b',
];

const CHUNK_DEFAULTS: Record<string, number> = {
  min_x: -1, min_y: -1, min_z: -1, max_x: 1, max_y: 1, max_z: 1,
  min_scale_x: -7, min_scale_y: -7, min_scale_z: -7, max_scale_x: -2, max_scale_y: -2, max_scale_z: -2,
  min_r: 0, min_g: 0, min_b: 0, max_r: 1, max_g: 1, max_b: 1,
};

/** A compressed ply: chunk + vertex (+ sh) elements with valid packed values. */
export function compressedPly(options: CompressedPlyOptions): Uint8Array {
  const { count } = options;
  const chunks = options.chunks ?? Math.ceil(count / 256);
  const shDegree = options.shDegree ?? 0;
  const rest = shCoefficients(shDegree) * 3;
  const format = options.format ?? 'binary_little_endian';
  const le = format === 'binary_little_endian';
  const packedType = options.packedType ?? 'uint';
  const lines = [
    `format ${format} 1.0`,
    `element chunk ${options.declaredChunkCount ?? chunks}`,
    ...CHUNK_PROPERTIES.map((n) => `property float ${n}`),
    `element vertex ${options.declaredVertexCount ?? count}`,
    ...['packed_position', 'packed_rotation', 'packed_scale', 'packed_color'].map((n) => `property ${packedType} ${n}`),
  ];
  if (rest > 0) {
    lines.push(`element sh ${count}`);
    for (let i = 0; i < rest; i++) lines.push(`property uchar f_rest_${i}`);
  }
  const header = ascii(plyHeaderText(lines));
  const random = rng(options.seed ?? 11);
  const chunkBytes = new Uint8Array(chunks * 18 * 4);
  const chunkView = new DataView(chunkBytes.buffer);
  for (let c = 0; c < chunks; c++) {
    CHUNK_PROPERTIES.forEach((name, j) => {
      chunkView.setFloat32((c * 18 + j) * 4, options.chunkValue?.(name, c) ?? CHUNK_DEFAULTS[name]!, le);
    });
  }
  const packedSize = PLY_SIZES[packedType];
  const vertexBytes = new Uint8Array(count * 4 * packedSize);
  const vertexView = new DataView(vertexBytes.buffer);
  for (let i = 0; i < count * 4; i++) {
    const v = (random() * 2 ** 32) >>> 0;
    if (packedSize === 4) vertexView.setUint32(i * 4, v, le);
    else if (packedSize === 8) vertexView.setFloat64(i * 8, v, le);
    else if (packedSize === 2) vertexView.setUint16(i * 2, v & 0xffff, le);
    else vertexView.setUint8(i, v & 0xff);
  }
  const shBytes = new Uint8Array(count * rest);
  for (let i = 0; i < shBytes.length; i++) shBytes[i] = Math.floor(random() * 256);
  return concat(header, chunkBytes, vertexBytes, shBytes);
}

// ---------------------------------------------------------------------------
// Niantic spz.

export interface SpzOptions {
  version: 2 | 3 | 4;
  count: number;
  shDegree?: ShDegree;
  fractionalBits?: number;
  /** The count written in the header (default: count). */
  declaredCount?: number;
  /** The SH degree written in the header (default: shDegree). */
  declaredShDegree?: number;
  /** The version written in the header (default: version). */
  declaredVersion?: number;
  seed?: number;
}

/** Bytes per splat of each attribute plane, in file order. */
export function spzPlaneSizes(version: number, count: number, shDegree: ShDegree): number[] {
  const sizes = [count * 9, count, count * 3, count * 3, count * (version >= 3 ? 4 : 3)];
  const sh = shCoefficients(shDegree) * 3;
  if (sh > 0) sizes.push(count * sh);
  return sizes;
}

function spzPlanes(options: SpzOptions): Uint8Array[] {
  const shDegree = options.shDegree ?? 0;
  const random = rng(options.seed ?? 13);
  return spzPlaneSizes(options.version, options.count, shDegree).map((size, plane) => {
    const bytes = new Uint8Array(size);
    for (let i = 0; i < size; i++) bytes[i] = Math.floor(random() * 256);
    if (plane === 3) for (let i = 0; i < size; i++) bytes[i] = 40 + (bytes[i]! % 80); // log scales -7.5..-2.5
    return bytes;
  });
}

function spzHeader(options: SpzOptions, bytes: number): Uint8Array {
  const header = new Uint8Array(bytes);
  const view = new DataView(header.buffer);
  view.setUint32(0, 0x5053474e, true);
  view.setUint32(4, options.declaredVersion ?? options.version, true);
  view.setUint32(8, options.declaredCount ?? options.count, true);
  header[12] = options.declaredShDegree ?? options.shDegree ?? 0;
  header[13] = options.fractionalBits ?? 12;
  return header;
}

/** An uncompressed version 2 or 3 spz payload: header and planes (gzip it for a file). */
export function spzPayload(options: SpzOptions & { version: 2 | 3 }): Uint8Array {
  return concat(spzHeader(options, 16), ...spzPlanes(options));
}

export function gzip(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(gzipSync(bytes));
}

/**
 * A zstd frame holding `data` in raw (stored) blocks: what any zstd decoder
 * reads, without needing a compressor. Single segment, 4-byte content size.
 */
export function zstdStored(data: Uint8Array): Uint8Array {
  const MAX_BLOCK = 128 * 1024;
  const parts: Uint8Array[] = [];
  const header = new Uint8Array(9);
  const view = new DataView(header.buffer);
  view.setUint32(0, 0xfd2fb528, true);
  header[4] = 0xa0; // FCS field 4 bytes, single segment, no checksum, no dictionary
  view.setUint32(5, data.length, true);
  parts.push(header);
  let at = 0;
  do {
    const size = Math.min(MAX_BLOCK, data.length - at);
    const last = at + size >= data.length ? 1 : 0;
    const blockHeader = (size << 3) | (0 << 1) | last; // type 0: raw
    parts.push(new Uint8Array([blockHeader & 0xff, (blockHeader >>> 8) & 0xff, (blockHeader >>> 16) & 0xff]));
    parts.push(data.subarray(at, at + size));
    at += size;
  } while (at < data.length);
  return concat(...parts);
}

/** A version 4 spz: 32-byte header, stream table, one zstd frame per plane. */
export function spzV4(options: Omit<SpzOptions, 'version'> & { streams?: number }): Uint8Array {
  const opts: SpzOptions = { ...options, version: 4 };
  const frames = spzPlanes(opts).map((plane) => ({ raw: plane.length, frame: zstdStored(plane) }));
  const header = spzHeader(opts, 32);
  header[15] = options.streams ?? frames.length;
  new DataView(header.buffer).setUint32(16, 32, true);
  const toc = new Uint8Array(frames.length * 16);
  const tocView = new DataView(toc.buffer);
  frames.forEach((f, s) => {
    tocView.setBigUint64(s * 16, BigInt(f.frame.length), true);
    tocView.setBigUint64(s * 16 + 8, BigInt(f.raw), true);
  });
  return concat(header, toc, ...frames.map((f) => f.frame));
}

/** Where each stream of a version 4 spz starts and ends (from its table). */
export function spzV4Streams(bytes: Uint8Array): { start: number; end: number }[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const streams = bytes[15]!;
  const toc = view.getUint32(16, true);
  let at = toc + streams * 16;
  const out: { start: number; end: number }[] = [];
  for (let s = 0; s < streams; s++) {
    const size = Number(view.getBigUint64(toc + s * 16, true));
    out.push({ start: at, end: at + size });
    at += size;
  }
  return out;
}

// ---------------------------------------------------------------------------
// antimatter15 .splat.

/** `count` valid 32-byte records; `value` overrides a float (0..5: position, scale). */
export function splatFile(count: number, value?: (field: number, i: number) => number | undefined, seed = 17): Uint8Array {
  const bytes = new Uint8Array(count * 32);
  const view = new DataView(bytes.buffer);
  const random = rng(seed);
  for (let i = 0; i < count; i++) {
    for (let f = 0; f < 6; f++) {
      const fallback = f < 3 ? (random() - 0.5) * 10 : 0.001 + random() * 0.05;
      view.setFloat32(i * 32 + f * 4, value?.(f, i) ?? fallback, true);
    }
    for (let b = 24; b < 32; b++) bytes[i * 32 + b] = Math.floor(random() * 256);
  }
  return bytes;
}
