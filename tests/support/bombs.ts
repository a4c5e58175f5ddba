/**
 * Decompression bombs and lying headers, built in code in well under a
 * second: small files that claim or expand to gigabytes (the faults of
 * tests/unit/bombs.test.ts, and seeds of the fuzzer).
 *
 * A long run of one byte value is deflated once per MiB, not as a whole:
 * zlib's raw deflate of 1 MiB of the byte, given 32 KiB of it as a preset
 * dictionary and ended with a sync flush (byte-aligned, not final), is a
 * piece that decodes to another MiB wherever the previous 32 KiB were that
 * byte; repeated n times after a first piece, and closed with an empty
 * final block, it is one deflate stream of n MiB at zlib's ~1000:1.
 */
import { constants, crc32, deflateRawSync } from 'node:zlib';
import { concat } from './splat-files';

const MIB = 2 ** 20;
/** An empty final block with fixed codes: BFINAL 1, BTYPE 01, end-of-block. */
const FINAL_BLOCK = new Uint8Array([0x03, 0x00]);

export interface Deflated {
  /** Raw deflate data. */
  data: Uint8Array;
  /** What it inflates to, in bytes, and the CRC-32 of that. */
  size: number;
  crc: number;
}

/** Raw deflate of `prefix` followed by `mebibytes` MiB (at least 1) of the byte `fill`. */
export function deflateRun(prefix: Uint8Array, fill: number, mebibytes: number): Deflated {
  const run = new Uint8Array(MIB).fill(fill);
  const options = { level: 9, finishFlush: constants.Z_SYNC_FLUSH };
  const first = deflateRawSync(concat(prefix, run), options);
  const piece = deflateRawSync(run, { ...options, dictionary: run.subarray(0, 32 * 1024) });
  const parts: Uint8Array[] = [first];
  for (let i = 1; i < mebibytes; i++) parts.push(piece);
  parts.push(FINAL_BLOCK);
  let crc = crc32(prefix);
  for (let i = 0; i < mebibytes; i++) crc = crc32(run, crc);
  return { data: concat(...parts), size: prefix.length + mebibytes * MIB, crc: crc >>> 0 };
}

/** A gzip member of `prefix` followed by `mebibytes` MiB of the byte `fill`. */
export function gzipRun(prefix: Uint8Array, fill: number, mebibytes: number): Uint8Array {
  const { data, size, crc } = deflateRun(prefix, fill, mebibytes);
  const header = new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]);
  const trailer = new Uint8Array(8);
  const view = new DataView(trailer.buffer);
  view.setUint32(0, crc, true);
  view.setUint32(4, size >>> 0, true); // ISIZE is the size mod 2^32
  return concat(header, data, trailer);
}

/** A 16-byte SPZ header (versions 2 and 3; version 4's first 16 bytes). */
export function spzHeader(version: number, count: number, shDegree: number): Uint8Array {
  const header = new Uint8Array(16);
  const view = new DataView(header.buffer);
  view.setUint32(0, 0x5053474e, true);
  view.setUint32(4, version, true);
  view.setUint32(8, count, true);
  header[12] = shDegree;
  header[13] = 12;
  return header;
}

/** Bytes of the attribute planes an SPZ version 2 or 3 header of `count` splats calls for. */
export function spzPlaneBytes(version: number, count: number, shDegree: number): number {
  const sh = [0, 3, 8, 15][shDegree]! * 3;
  return count * (9 + 1 + 3 + 3 + (version >= 3 ? 4 : 3) + sh);
}

export interface ZipInput {
  name: string;
  /** Stored data, or raw deflate data with what it inflates to. */
  stored?: Uint8Array;
  deflated?: Deflated;
  /** The uncompressed size to state, when it should lie. */
  statedSize?: number;
}

/** A zip archive of the given entries (no data descriptors, no Zip64). */
export function zipArchive(entries: ZipInput[]): Uint8Array {
  const locals: Uint8Array[] = [];
  const centrals: Uint8Array[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = new TextEncoder().encode(entry.name);
    const data = entry.stored ?? entry.deflated!.data;
    const size = entry.statedSize ?? (entry.stored ? entry.stored.length : entry.deflated!.size);
    const crc = entry.stored ? crc32(entry.stored) >>> 0 : entry.deflated!.crc;
    const method = entry.stored ? 0 : 8;
    const local = new Uint8Array(30 + name.length);
    const l = new DataView(local.buffer);
    l.setUint32(0, 0x04034b50, true);
    l.setUint16(4, 20, true);
    l.setUint16(8, method, true);
    l.setUint32(14, crc, true);
    l.setUint32(18, data.length, true);
    l.setUint32(22, size, true);
    l.setUint16(26, name.length, true);
    local.set(name, 30);
    const central = new Uint8Array(46 + name.length);
    const c = new DataView(central.buffer);
    c.setUint32(0, 0x02014b50, true);
    c.setUint16(4, 20, true);
    c.setUint16(6, 20, true);
    c.setUint16(10, method, true);
    c.setUint32(16, crc, true);
    c.setUint32(20, data.length, true);
    c.setUint32(24, size, true);
    c.setUint16(28, name.length, true);
    c.setUint32(42, offset, true);
    central.set(name, 46);
    locals.push(local, data);
    centrals.push(central);
    offset += local.length + data.length;
  }
  const directory = concat(...centrals);
  const end = new Uint8Array(22);
  const e = new DataView(end.buffer);
  e.setUint32(0, 0x06054b50, true);
  e.setUint16(8, entries.length, true);
  e.setUint16(10, entries.length, true);
  e.setUint32(12, directory.length, true);
  e.setUint32(16, offset, true);
  return concat(...locals, directory, end);
}

/** A SOG bundle: `files` stored, except the entries `replace` gives instead. */
export function sogWith(metaJson: string, files: ReadonlyMap<string, Uint8Array>, replace: ZipInput[]): Uint8Array {
  const replaced = new Set(replace.map((r) => r.name));
  const entries: ZipInput[] = [];
  if (!replaced.has('meta.json')) entries.push({ name: 'meta.json', stored: new TextEncoder().encode(metaJson) });
  for (const [name, bytes] of files) if (!replaced.has(name)) entries.push({ name, stored: bytes });
  return zipArchive([...entries, ...replace]);
}

/**
 * A version 4 SPZ stream: one zstd frame with no content size (1 KiB
 * window) of `blocks` RLE blocks of 128 KiB each, 4 bytes a block.
 */
export function zstdRleFrame(blocks: number): Uint8Array {
  const frame = new Uint8Array(6 + blocks * 4);
  new DataView(frame.buffer).setUint32(0, 0xfd2fb528, true);
  frame[4] = 0x00; // no content size, not single segment, no checksum, no dictionary
  frame[5] = 0x00; // window 1 KiB
  for (let b = 0; b < blocks; b++) {
    const header = ((128 * 1024) << 3) | (1 << 1) | (b === blocks - 1 ? 1 : 0);
    frame.set([header & 0xff, (header >>> 8) & 0xff, (header >>> 16) & 0xff, 0], 6 + b * 4);
  }
  return frame;
}
