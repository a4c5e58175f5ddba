/**
 * How each format of the list (index.ts) is recognised and read, and the
 * list with its readers, in the list's order: the order detection asks the
 * sniffs in. A sniff is light and imported here; a decoder is loaded when
 * a file of its format is read (a dynamic import, a chunk of its own in
 * the browser). The load worker's and Node's: the page's main thread
 * never imports this module, so neither a decoder nor the code that loads
 * one is in its bundle (format.ts). DOM-free.
 */
import { looksLikeKsplat, startsLikeKsplat } from '../ksplat/layout';
import { isGlb } from '../gltf/container';
import { parsePlyHeader, sniffPlyHeader } from '../ply/header';
import { SOG_META_MAX_BYTES } from '../sog/meta';
import { isSpz } from '../spz/layout';
import { isZip } from '../zip-directory';
import { isCompressedPly } from './compressed-ply';
import type { CompanionReader, FormatReader, ReadableFormat, ReadOptions } from './format';
import { SPLAT_FORMATS, type SplatFormatId } from './index';

const INRIA_PLY: FormatReader = {
  signature: "'ply'",
  sniff: (bytes, { partial }) => {
    const header = sniffPlyHeader(bytes, partial);
    if (header === undefined) return 'no';
    if (header === 'more') return 'more';
    // A header cut short is read as this one, whose parser says what is missing.
    return header === 'truncated' || !isCompressedPly(header) ? 'yes' : 'no';
  },
  read: async (bytes, options) => (await import('../ply/parse')).parseSplatPly(bytes, options),
  stream: async (start, options) => {
    const header = parsePlyHeader(start);
    const { createPlyVertexStream } = await import('../ply/stream');
    const stream = createPlyVertexStream(header, options);
    stream.push(start.subarray(header.headerLength));
    return stream;
  },
};

const COMPRESSED_PLY: FormatReader = {
  signature: "'ply'",
  sniff: (bytes, { partial }) => {
    const header = sniffPlyHeader(bytes, partial);
    if (header === 'more') return 'more';
    return typeof header === 'object' && isCompressedPly(header) ? 'yes' : 'no';
  },
  read: async (bytes, options) => (await import('../ply/compressed')).parseCompressedPly(bytes, parsePlyHeader(bytes), options),
};

const SPLAT: FormatReader = {
  byName: true,
  read: async (bytes, options) => (await import('../splat/parse')).parseSplatFormat(bytes, options),
  stream: async (start, options) => {
    const stream = new (await import('../splat/parse')).SplatRecordStream(options);
    stream.push(start);
    return stream;
  },
};

const SPZ: FormatReader = {
  signature: 'an SPZ magic',
  sniff: (bytes) => (isSpz(bytes) ? 'yes' : 'no'),
  read: async (bytes, options) => {
    const cloud = await (await import('../spz/parse')).parseSpz(bytes, { limits: options.limits });
    options.onProgress?.(1);
    return cloud;
  },
};

const KSPLAT: FormatReader = {
  signature: 'a ksplat header',
  sniff: (bytes, { partial }) => ((partial ? startsLikeKsplat(bytes) : looksLikeKsplat(bytes)) ? 'yes' : 'no'),
  // A damaged file named .ksplat gets the ksplat reader's message rather than "unrecognised".
  byName: true,
  read: async (bytes, options) => (await import('../ksplat/decode')).parseKsplat(bytes, options),
};

const SOG_BUNDLE: FormatReader = {
  signature: 'a zip (.sog) signature',
  sniff: (bytes) => (isZip(bytes) ? 'yes' : 'no'),
  read: async (bytes, options) => (await import('../sog/bundle')).parseSogBundle(bytes, options),
};

/** Both glTF files, the binary and the JSON text (with the files its buffers name, where it has them), are read by gltf/. */
const readGltf = async (bytes: Uint8Array, options: ReadOptions, companion?: CompanionReader) => {
  const cloud = await (await import('../gltf/parse')).parseGltf(bytes, options, companion);
  options.onProgress?.(1);
  return cloud;
};

const GLB: FormatReader = {
  signature: "a GLB magic 'glTF'",
  sniff: (bytes, { partial }) => (isGlb(bytes) ? 'yes' : partial && bytes.length < 4 ? 'more' : 'no'),
  read: readGltf,
};

// JSON alone says too little: a .gltf is known by its name. Read alone where its buffers are embedded.
const GLTF: FormatReader = {
  byName: true,
  read: readGltf,
  withCompanions: { read: (main, companion, options) => readGltf(main, options, companion) },
};

const SOG_META: FormatReader = {
  byName: true,
  withCompanions: {
    maxMainBytes: SOG_META_MAX_BYTES,
    read: async (meta, companion, options) => (await import('../sog/decode')).parseSog(meta, companion, options),
  },
};

/** Each format's reader by its id: a format without one is a type error here. */
const READERS: { readonly [Id in SplatFormatId]: FormatReader } = {
  ply: INRIA_PLY,
  'compressed-ply': COMPRESSED_PLY,
  splat: SPLAT,
  spz: SPZ,
  ksplat: KSPLAT,
  sog: SOG_BUNDLE,
  glb: GLB,
  gltf: GLTF,
  'sog-meta': SOG_META,
};

export const READABLE_FORMATS: readonly (ReadableFormat & { readonly id: SplatFormatId })[] = SPLAT_FORMATS.map((format) => ({ ...format, ...READERS[format.id] }));
