/**
 * The structure of a zip archive held in memory: its signature, and its
 * entries' names, sizes, methods and offsets from the central directory
 * (APPNOTE.TXT 4.3.12 to 4.3.16, with the Zip64 records of 4.3.14 and
 * 4.5.3), so that an entry can be judged by its stated size before a byte
 * of it is inflated (zip-inflate.ts). Reads, inflates nothing. DOM-free.
 */

/** True for a zip archive: it starts with a local file header (PK\x03\x04), as a .sog bundle does. */
export function isZip(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;
}

export interface ZipEntry {
  name: string;
  /** 0: stored; 8: deflate. Others are listed but cannot be read. */
  method: number;
  compressedSize: number;
  /** The uncompressed size the central directory states. */
  size: number;
  /** Where the entry's local header starts. */
  localOffset: number;
  encrypted: boolean;
}

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

class ZipReader {
  readonly view: DataView;
  constructor(readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  need(at: number, length: number, what: string): void {
    if (at < 0 || at + length > this.bytes.length) throw new Error(`${what} runs past the end of the ${this.bytes.length}-byte archive`);
  }
  u16(at: number): number { return this.view.getUint16(at, true); }
  u32(at: number): number { return this.view.getUint32(at, true); }
  u64(at: number): number { return Number(this.view.getBigUint64(at, true)); }
}

/** The end of central directory record: where the directory is and how many entries it lists. */
function findDirectory(zip: ZipReader): { offset: number; size: number; entries: number } {
  const { bytes } = zip;
  const lowest = Math.max(0, bytes.length - 22 - 0xffff);
  let eocd = -1;
  for (let at = bytes.length - 22; at >= lowest; at--) {
    if (zip.u32(at) === EOCD) {
      eocd = at;
      break;
    }
  }
  if (eocd < 0) throw new Error('no end of central directory record (the archive is cut short or is not a zip)');
  let entries = zip.u16(eocd + 10);
  let size = zip.u32(eocd + 12);
  let offset = zip.u32(eocd + 16);
  if ((entries === 0xffff || size === 0xffffffff || offset === 0xffffffff) && eocd >= 20 && zip.u32(eocd - 20) === ZIP64_LOCATOR) {
    const at = zip.u64(eocd - 12);
    zip.need(at, 56, 'the Zip64 end of central directory record');
    if (zip.u32(at) !== ZIP64_EOCD) throw new Error('the Zip64 end of central directory record is missing');
    entries = zip.u64(at + 32);
    size = zip.u64(at + 40);
    offset = zip.u64(at + 48);
  }
  zip.need(offset, size, 'the central directory');
  return { offset, size, entries };
}

/**
 * The entries of a zip archive in the order its central directory lists
 * them, names as written (two entries may share one: the caller decides
 * what a name means); unpacks nothing. Throws a plain Error when the
 * directory cannot be read, or when it lists more than `maxEntries` entries.
 */
export function listZipEntries(bytes: Uint8Array, maxEntries: number): ZipEntry[] {
  const zip = new ZipReader(bytes);
  if (bytes.length < 22) throw new Error(`${bytes.length} bytes, too short for a zip archive`);
  const directory = findDirectory(zip);
  if (directory.entries > maxEntries) throw new Error(`it lists ${directory.entries} entries, more than the ${maxEntries} accepted`);
  const entries: ZipEntry[] = [];
  let at = directory.offset;
  for (let i = 0; i < directory.entries; i++) {
    zip.need(at, 46, `central directory entry ${i}`);
    if (zip.u32(at) !== CENTRAL) throw new Error(`central directory entry ${i} has no PK\\x01\\x02 signature`);
    const flags = zip.u16(at + 8);
    const nameLength = zip.u16(at + 28);
    const extraLength = zip.u16(at + 30);
    const commentLength = zip.u16(at + 32);
    zip.need(at + 46, nameLength + extraLength + commentLength, `central directory entry ${i}`);
    const name = entryName(bytes, at + 46, nameLength, flags);
    let size = zip.u32(at + 24);
    let compressedSize = zip.u32(at + 20);
    let localOffset = zip.u32(at + 42);
    // Zip64 extended information (header 0x0001): the fields that overflowed, in this order.
    for (let e = at + 46 + nameLength; e + 4 <= at + 46 + nameLength + extraLength;) {
      const id = zip.u16(e);
      const length = zip.u16(e + 2);
      if (id === 0x0001) {
        let p = e + 4;
        const next = (): number => {
          if (p + 8 > e + 4 + length) throw new Error(`entry '${name}' has a short Zip64 extra field`);
          const value = zip.u64(p);
          p += 8;
          return value;
        };
        if (size === 0xffffffff) size = next();
        if (compressedSize === 0xffffffff) compressedSize = next();
        if (localOffset === 0xffffffff) localOffset = next();
      }
      e += 4 + length;
    }
    entries.push({ name, method: zip.u16(at + 10), compressedSize, size, localOffset, encrypted: (flags & 1) !== 0 });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** A name in a central or local header: UTF-8 when flag bit 11 is set, else code page 437, read here as Latin-1. */
function entryName(bytes: Uint8Array, at: number, length: number, flags: number): string {
  return new TextDecoder(flags & 0x800 ? 'utf-8' : 'latin1').decode(bytes.subarray(at, at + length));
}

/**
 * The compressed bytes of an entry, found through its local header. The
 * local header must give the entry the name the directory gives it: readers
 * that walk the local headers would otherwise see another file there.
 */
export function zipEntryData(bytes: Uint8Array, entry: ZipEntry): Uint8Array {
  const zip = new ZipReader(bytes);
  const at = entry.localOffset;
  zip.need(at, 30, `the local header of '${entry.name}'`);
  if (zip.u32(at) !== LOCAL) throw new Error(`the local header of '${entry.name}' has no PK\\x03\\x04 signature`);
  const nameLength = zip.u16(at + 26);
  zip.need(at + 30, nameLength, `the local header of '${entry.name}'`);
  const localName = entryName(bytes, at + 30, nameLength, zip.u16(at + 6));
  if (localName !== entry.name) throw new Error(`the local header of '${entry.name}' names it '${localName}'`);
  const start = at + 30 + nameLength + zip.u16(at + 28);
  zip.need(start, entry.compressedSize, `the data of '${entry.name}'`);
  return bytes.subarray(start, start + entry.compressedSize);
}
