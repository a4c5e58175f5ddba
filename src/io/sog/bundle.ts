/**
 * Parser for a bundled .sog scene: a zip archive holding meta.json and the
 * images it names. Each entry is refused by its stated size before a byte
 * is inflated, and inflated as a stream that stops at that size
 * (zip-directory.ts, zip-inflate.ts). DOM-free.
 */
import type { SplatCloud } from '../../scene/splat-cloud';
import { SplatFormatError } from '../format-error';
import { isZip, listZipEntries, zipEntryData, type ZipEntry } from '../zip-directory';
import { inflateExactly, MAX_DEFLATE_RATIO } from '../zip-inflate';
import { decodeSog, type ParseSogOptions } from './decode';
import type { BoundedReader } from './images';
import { metaTooLarge, parseSogMeta, SOG_META_MAX_BYTES } from './meta';

const MAX_ENTRIES = 4096;

function zipError(err: unknown): SplatFormatError {
  if (err instanceof SplatFormatError) return err;
  return new SplatFormatError(
    `The .sog bundle is not a readable zip archive (truncated or damaged?): ${(err as Error).message}`,
  );
}

/**
 * Unpacks one entry of the bundle: refused by its stated size before a byte
 * is inflated when it is more than `maxBytes` (`refuse` throws the error),
 * then inflated into exactly that size, stopping at the first byte more.
 */
function unpackEntry(bytes: Uint8Array, entry: ZipEntry, maxBytes: number, refuse: (bytes: number) => never): Uint8Array {
  const { name, compressedSize, size, method } = entry;
  const what = `The .sog bundle's entry '${name}'`;
  if (method !== 0 && method !== 8) {
    throw new SplatFormatError(`${what} uses zip compression method ${method}; only stored and deflate are supported`);
  }
  if (entry.encrypted) throw new SplatFormatError(`${what} is encrypted`);
  // A stated size its compressed size could not give: damaged or forged, whatever the bound.
  const plausible = method === 0 ? compressedSize : compressedSize * MAX_DEFLATE_RATIO + 1024;
  if (size > plausible) {
    throw new SplatFormatError(`${what} claims ${size} bytes from ${compressedSize} compressed: the archive is damaged`);
  }
  if (size > maxBytes) refuse(size);
  let data: Uint8Array;
  try {
    data = zipEntryData(bytes, entry);
  } catch (err) {
    throw new SplatFormatError(`${what} could not be unpacked (truncated or damaged?): ${(err as Error).message}`);
  }
  return method === 0 ? data : inflateExactly(data, size, what);
}

/**
 * A path inside the archive in one spelling: '/' between its parts (a '\'
 * too, as some zip writers use), and no '.', '..' or empty parts. Entries
 * are found by this path, and names meta.json gives are resolved to it.
 */
function archivePath(path: string): string {
  const parts: string[] = [];
  for (const part of path.split(/[/\\]/)) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return parts.join('/');
}

/**
 * The bundle's files by archivePath (folder entries, which hold no data,
 * left out). Two entries of one path, or of paths that differ only in case
 * or in how an accented letter is composed (macOS writes names decomposed),
 * are refused: zip readers differ on which one such a name means (some take
 * the first, some the last, and unpacked on a file system that ignores case
 * one overwrites the other), so the same bundle would show different scenes.
 */
function filesByPath(entries: readonly ZipEntry[]): Map<string, ZipEntry> {
  const byPath = new Map<string, ZipEntry>();
  const byFoldedPath = new Map<string, ZipEntry>();
  for (const entry of entries) {
    if (/[/\\]$/.test(entry.name)) continue;
    const path = archivePath(entry.name);
    const folded = path.normalize('NFC').toLowerCase();
    const twin = byFoldedPath.get(folded);
    if (twin) {
      throw new SplatFormatError(twin.name === entry.name
        ? `The .sog bundle holds two entries named '${entry.name}': zip readers differ on which one to take, so the bundle is refused`
        : `The .sog bundle holds both '${twin.name}' and '${entry.name}', names of the same file (compared without './', ` +
          `case and how accents are composed): zip readers differ on which one to take, so the bundle is refused`);
    }
    byFoldedPath.set(folded, entry);
    byPath.set(path, entry);
  }
  return byPath;
}

/** Where meta.json is: at the root, else alone in one folder. */
function findMeta(files: ReadonlyMap<string, ZipEntry>): string {
  if (files.has('meta.json')) return 'meta.json';
  const nested = [...files.keys()].filter((path) => path.endsWith('/meta.json'));
  if (nested.length === 1) return nested[0]!;
  if (nested.length > 1) {
    const listed = nested.slice(0, 4).map((path) => `'${files.get(path)!.name}'`).join(', ');
    throw new SplatFormatError(
      `The .sog bundle has no meta.json at its root but ${nested.length} in folders (${listed}${nested.length > 4 ? ', …' : ''}): ` +
      'it is not clear which scene to load',
    );
  }
  const listed = [...files.values()].slice(0, 10).map((entry) => `'${entry.name}'`).join(', ');
  throw new SplatFormatError(`The .sog bundle has no meta.json (its entries: ${listed || 'none'})`);
}

/** A bundle whose zip directory is read and whose meta.json is unpacked (not yet parsed). */
export interface OpenedSogBundle {
  /** meta.json's bytes. */
  meta: Uint8Array;
  /** Reads a file meta.json names, relative to meta.json's folder. */
  readEntry: BoundedReader;
}

/**
 * The zip layer of a .sog bundle: its directory, its files by path and its
 * meta.json unpacked. Throws SplatFormatError for what is not a readable
 * bundle.
 */
export function openSogBundle(bytes: Uint8Array): OpenedSogBundle {
  if (!isZip(bytes)) {
    const head = Array.from(bytes.subarray(0, 4), (b) => b.toString(16).padStart(2, '0')).join(' ');
    throw new SplatFormatError(
      `Not a .sog bundle: a .sog file is a zip archive (starting 50 4b 03 04), but this ${head === '' ? 'is empty' : `starts ${head}`}`,
    );
  }
  let entries: ZipEntry[];
  try {
    entries = listZipEntries(bytes, MAX_ENTRIES);
  } catch (err) {
    throw zipError(err);
  }
  const files = filesByPath(entries);
  const metaPath = findMeta(files);
  const dir = metaPath.slice(0, metaPath.lastIndexOf('/') + 1);
  const meta = unpackEntry(bytes, files.get(metaPath)!, SOG_META_MAX_BYTES, (size) => { throw metaTooLarge(size); });
  const readEntry: BoundedReader = async (name, bound) => {
    const entry = files.get(archivePath(`${dir}${name}`));
    if (!entry) throw new SplatFormatError(`The .sog bundle has no entry '${name}' that meta.json names`);
    return unpackEntry(bytes, entry, bound.maxBytes, (size) => bound.refuse(name, size));
  };
  return { meta, readEntry };
}

/**
 * Parses a bundled .sog scene: a zip archive holding meta.json and the images
 * it names (meta.json at the root, or alone in one folder).
 */
export async function parseSogBundle(bytes: Uint8Array, options: ParseSogOptions = {}): Promise<SplatCloud> {
  const { meta, readEntry } = openSogBundle(bytes);
  const layout = parseSogMeta(meta);
  options.onProgress?.(0.02);
  return decodeSog(layout, readEntry, {
    limits: options.limits,
    onProgress: (f) => options.onProgress?.(0.02 + 0.98 * f),
  });
}
