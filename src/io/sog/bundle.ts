/**
 * Parser for a bundled .sog scene: a zip archive holding meta.json and the
 * images it names. Each entry is refused by its stated size before a byte
 * is inflated, and inflated as a stream that stops at that size
 * (zip-directory.ts, zip-inflate.ts). DOM-free.
 */
import type { SplatCloud } from '../../scene/splat-cloud';
import { SplatFormatError } from '../format-error';
import { lastPathSegment } from '../path-name';
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

/** A path inside the archive: `name` relative to the folder `dir` ('' or ending in '/'). */
function resolveEntryName(dir: string, name: string): string {
  const parts: string[] = [];
  for (const part of `${dir}${name}`.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return parts.join('/');
}

/**
 * Parses a bundled .sog scene: a zip archive holding meta.json and the images
 * it names (meta.json at the root, or alone in one folder).
 */
export async function parseSogBundle(bytes: Uint8Array, options: ParseSogOptions = {}): Promise<SplatCloud> {
  if (!isZip(bytes)) {
    const head = Array.from(bytes.subarray(0, 4), (b) => b.toString(16).padStart(2, '0')).join(' ');
    throw new SplatFormatError(
      `Not a .sog bundle: a .sog file is a zip archive (starting 50 4b 03 04), but this ${head === '' ? 'is empty' : `starts ${head}`}`,
    );
  }
  let entries: Map<string, ZipEntry>;
  try {
    entries = listZipEntries(bytes, MAX_ENTRIES);
  } catch (err) {
    throw zipError(err);
  }
  let metaName = entries.has('meta.json') ? 'meta.json' : undefined;
  if (!metaName) {
    const nested = [...entries.keys()].filter((n) => lastPathSegment(n) === 'meta.json');
    if (nested.length === 1) metaName = nested[0];
  }
  if (!metaName) {
    const listed = [...entries.keys()].slice(0, 10).map((n) => `'${n}'`).join(', ');
    throw new SplatFormatError(`The .sog bundle has no meta.json (its entries: ${listed || 'none'})`);
  }
  const dir = metaName.slice(0, metaName.lastIndexOf('/') + 1);
  const meta = unpackEntry(bytes, entries.get(metaName)!, SOG_META_MAX_BYTES, (size) => { throw metaTooLarge(size); });
  const layout = parseSogMeta(meta);
  options.onProgress?.(0.02);
  const readEntry: BoundedReader = async (name, bound) => {
    const entry = entries.get(resolveEntryName(dir, name));
    if (!entry) throw new SplatFormatError(`The .sog bundle has no entry '${name}' that meta.json names`);
    return unpackEntry(bytes, entry, bound.maxBytes, (size) => bound.refuse(name, size));
  };
  return decodeSog(layout, readEntry, {
    limits: options.limits,
    onProgress: (f) => options.onProgress?.(0.02 + 0.98 * f),
  });
}
