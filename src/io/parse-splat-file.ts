/**
 * Tells splat file formats apart and parses any supported one into a
 * SplatCloud. DOM-free.
 */
import type { SplatCloud } from '../scene/splat-cloud';
import { parsePlyHeader, parseSplatPly, SplatFormatError } from './ply';
import { isZip, parseSogBundle } from './sog';
import { looksLikeKsplat, parseKsplat } from './ksplat';
import { validateSplatCloud } from './validate-splats';
import { isCompressedPly, parseCompressedPly } from './compressed-ply';
import { isSpz, parseSpz } from './spz';
import { parseSplatFormat } from './splat-format';
import type { LoadLimits } from './load-limits';

export type SplatFileFormat = 'ply' | 'splat' | 'spz' | 'sog' | 'ksplat';

export interface ParseSplatFileOptions {
  onProgress?: (fraction: number) => void;
  /**
   * What the scene may cost (default DEFAULT_LOAD_LIMITS): each decoder
   * checks the count it is told against it before allocating, and SPZ and
   * SOG bound what they decompress by it.
   */
  limits?: LoadLimits;
}

function startsWithPly(bytes: Uint8Array): boolean {
  if (bytes.length < 4 || bytes[0] !== 0x70 || bytes[1] !== 0x6c || bytes[2] !== 0x79) return false;
  return bytes[3] === 0x0a || (bytes[3] === 0x0d && bytes[4] === 0x0a);
}

/** The first bytes, printable ASCII kept and the rest shown as \xNN, for messages. */
function describeStart(bytes: Uint8Array): string {
  if (bytes.length === 0) return 'an empty file';
  let text = '';
  for (const byte of bytes.subarray(0, 8)) {
    text += byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : `\\x${byte.toString(16).padStart(2, '0')}`;
  }
  return `a file starting with "${text}"`;
}

/** The last path segment of a file name or URL, without query or fragment. */
function baseName(name: string): string {
  const path = name.split(/[?#]/)[0] ?? '';
  const segments = path.split(/[/\\]/);
  return segments[segments.length - 1] ?? '';
}

/**
 * The format of a splat file: by content first (a "ply" magic line means PLY,
 * whatever the name; the SPZ magic or gzip; a zip is a SOG bundle; a ksplat
 * header consistent with the file's length), then by name (`.ksplat`, and
 * `.splat`, which has no header). Throws SplatFormatError when neither says.
 * `partial`: `bytes` is only the start of the file (a stream still
 * arriving), so a ksplat is recognised by its version bytes alone.
 */
export function detectSplatFormat(bytes: Uint8Array, name?: string, options: { partial?: boolean } = {}): SplatFileFormat {
  if (startsWithPly(bytes)) return 'ply';
  if (isSpz(bytes)) return 'spz';
  if (isZip(bytes)) return 'sog';
  if (options.partial ? startsLikeKsplat(bytes) : looksLikeKsplat(bytes)) return 'ksplat';
  const base = name === undefined ? undefined : baseName(name);
  if (base !== undefined && /\.ksplat$/i.test(base)) return 'ksplat';
  if (base !== undefined && /\.splat$/i.test(base)) return 'splat';
  const named = name === undefined ? 'it has no file name' : `its name "${name}" does not end in .splat or .ksplat`;
  throw new SplatFormatError(
    `Unrecognised splat file: ${describeStart(bytes)} does not start with 'ply', an SPZ magic, a zip (.sog) ` +
    `signature or a ksplat header, and ${named}`,
  );
}

/** A ksplat's first four bytes: version 0.1, then two zero bytes. */
function startsLikeKsplat(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0 && bytes[1] === 1 && bytes[2] === 0 && bytes[3] === 0;
}

/**
 * Parses any supported splat file held in memory (what the streaming loader
 * calls for the formats it gathers) and checks the decoded values
 * (validateSplatCloud). SPZ and SOG are asynchronous (their streams and
 * images are decompressed), the other formats are not.
 */
export async function loadSplatFile(
  buffer: ArrayBuffer | Uint8Array,
  name?: string,
  options: ParseSplatFileOptions = {},
): Promise<SplatCloud> {
  const bytes = buffer instanceof Uint8Array ? buffer : new Uint8Array(buffer);
  const cloud = await parseAnyFormat(bytes, name, options);
  validateSplatCloud(cloud);
  return cloud;
}

async function parseAnyFormat(bytes: Uint8Array, name: string | undefined, options: ParseSplatFileOptions): Promise<SplatCloud> {
  switch (detectSplatFormat(bytes, name)) {
    case 'spz': {
      const cloud = await parseSpz(bytes, { limits: options.limits });
      options.onProgress?.(1);
      return cloud;
    }
    case 'sog': return parseSogBundle(bytes, options);
    default: return parseSplatFile(bytes, name, options);
  }
}

/** Parses a .ply or .splat file, as detectSplatFormat tells them apart (SPZ, SOG: loadSplatFile). */
export function parseSplatFile(
  buffer: ArrayBuffer | Uint8Array,
  name?: string,
  options: ParseSplatFileOptions = {},
): SplatCloud {
  const bytes = buffer instanceof Uint8Array ? buffer : new Uint8Array(buffer);
  switch (detectSplatFormat(bytes, name)) {
    case 'ply': {
      // PlayCanvas compressed PLY shares the container; its elements tell it apart.
      const header = parsePlyHeader(bytes);
      return isCompressedPly(header) ? parseCompressedPly(bytes, header, options) : parseSplatPly(bytes, options);
    }
    case 'splat': return parseSplatFormat(bytes, options);
    case 'ksplat': return parseKsplat(bytes, options);
    case 'spz':
    case 'sog':
      throw new SplatFormatError('SPZ and SOG files are decompressed asynchronously: open them with loadSplatFile');
  }
}
