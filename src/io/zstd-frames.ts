/**
 * Bounded zstd decoding: a stream of zstd frames (RFC 8878) is decoded into
 * one buffer of the size the caller expects, and nothing the stream itself
 * claims (a content size, a window, a run of blocks) can make the decoder
 * allocate or write more. DOM-free.
 *
 * The decoder is fzstd (a small pure-JavaScript zstd; browsers and Node 20
 * have none built in). What bounds it, from its source (fzstd 0.1):
 * - `decompress(frame, out)` with a preallocated `out` allocates only a
 *   12-byte state and small tables: the window is `out` itself, and every
 *   block is written into `out` (a typed array drops writes past its end,
 *   or `set` throws a RangeError). Without `out` it allocates the window the
 *   frame header asks for and a new array per block, without limit.
 * - It trusts a frame's content size: with `out` it fills what the blocks
 *   give and says nothing about a shortfall or excess.
 * So each frame is walked here first (header and block headers, no
 * decoding): its content size must fit what is left of the output and be
 * one its blocks can produce, and only then is it decoded into its own
 * slice of the output. A frame without a content size goes through fzstd's
 * streaming Decompress, whose window the header check has bounded and whose
 * blocks are counted as they come, stopping at the first byte too many.
 */
import { decompress, Decompress } from 'fzstd';
import { allocateBytes } from './load-limits';
import { SplatFormatError } from './format-error';

/** RFC 8878 section 3.1.1.2: no block decodes to more than 128 KiB. */
const MAX_BLOCK_BYTES = 128 * 1024;
/**
 * The largest window accepted for a frame with no declared content size,
 * unless the output is bigger: zstd levels 1 to 19 use windows up to 8 MiB
 * (windowLog 23), and a window larger than both that and the content can
 * serve no back-reference. fzstd allocates the declared window up front.
 */
const MAX_WINDOW_BYTES = 8 * 2 ** 20;
const ZSTD_MAGIC = 0xfd2fb528;

const count = (n: number): string => n.toLocaleString('en-US');

/** True when `bytes` starts with the zstd frame magic (28 b5 2f fd). */
export function isZstdFrame(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x28 && bytes[1] === 0xb5 && bytes[2] === 0x2f && bytes[3] === 0xfd;
}

interface FrameWalk {
  /** Where the frame ends (after its checksum), from the start of the stream. */
  end: number;
  /** The declared content size, when the header has one. */
  contentSize: number | undefined;
  /** What its raw and RLE blocks decode to: the least the frame holds. */
  exact: number;
}

function u32(bytes: Uint8Array, at: number): number {
  return (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>> 0;
}

/**
 * Reads the frame header at `at` and walks its block headers (RFC 8878
 * sections 3.1.1.1 and 3.1.1.2) without decoding. Refuses a frame that runs
 * past the stream, a declared content size larger than `room` or that its
 * blocks cannot produce, and without a content size a window larger than
 * the output (or MAX_WINDOW_BYTES).
 */
function walkFrame(stream: Uint8Array, at: number, room: number, what: string): FrameWalk {
  const truncated = (where: string): SplatFormatError =>
    new SplatFormatError(`${what} is truncated inside its zstd ${where}`);
  if (at + 6 > stream.length) {
    throw new SplatFormatError(`${what} is truncated: ${stream.length - at} bytes, too short for a zstd frame header`);
  }
  const descriptor = stream[at + 4]!;
  const contentSizeFlag = descriptor >> 6;
  const singleSegment = (descriptor >> 5) & 1;
  const checksum = (descriptor >> 2) & 1;
  if (descriptor & 0x08) throw new SplatFormatError(`${what} has an invalid zstd frame header (reserved bit set)`);
  let p = at + 5;
  let window = 0;
  if (!singleSegment) {
    const w = stream[p++]!;
    const base = 2 ** (10 + (w >> 3));
    window = base + (base / 8) * (w & 7);
  }
  p += [0, 1, 2, 4][descriptor & 3]!; // dictionary id
  const sizeBytes = contentSizeFlag === 0 ? singleSegment : 1 << contentSizeFlag;
  if (p + sizeBytes > stream.length) throw truncated('frame header');
  let contentSize: number | undefined;
  if (sizeBytes > 0) {
    let size = 0;
    for (let i = sizeBytes - 1; i >= 0; i--) size = size * 256 + stream[p + i]!;
    if (sizeBytes === 2) size += 256;
    contentSize = size;
    if (size > room) {
      throw new SplatFormatError(
        `${what}: its zstd frame says it holds ${count(size)} bytes, more than the ${count(room)} the header's splat count calls for`,
      );
    }
  } else if (window > Math.max(room, MAX_WINDOW_BYTES)) {
    throw new SplatFormatError(
      `${what}: its zstd frame asks for a ${count(window)}-byte window to decompress ${count(room)} bytes`,
    );
  }
  p += sizeBytes;

  // Raw and RLE blocks say how much they decode to; a compressed one at most 128 KiB.
  let exact = 0;
  let compressedBlocks = 0;
  for (let last = 0; !last;) {
    if (p + 3 > stream.length) throw truncated('block header');
    const header = stream[p]! | (stream[p + 1]! << 8) | (stream[p + 2]! << 16);
    last = header & 1;
    const type = (header >> 1) & 3;
    const size = header >>> 3;
    p += 3;
    if (type === 3) throw new SplatFormatError(`${what} has a zstd block of the reserved type 3`);
    if (size > MAX_BLOCK_BYTES) {
      throw new SplatFormatError(`${what} has a zstd block of ${count(size)} bytes, more than the 128 KiB a block may hold`);
    }
    if (type === 1) {
      p += 1;
      exact += size;
    } else {
      p += size;
      if (type === 0) exact += size;
      else compressedBlocks++;
    }
    if (p > stream.length) throw truncated('block');
  }
  if (checksum) p += 4;
  if (p > stream.length) throw truncated('frame checksum');

  const most = exact + compressedBlocks * MAX_BLOCK_BYTES;
  if (contentSize !== undefined && (contentSize < exact || contentSize > most)) {
    throw new SplatFormatError(
      `${what}: its zstd frame says it holds ${count(contentSize)} bytes, but its blocks hold ` +
      (compressedBlocks === 0 ? `${count(exact)}` : `${count(exact)} to ${count(most)}`),
    );
  }
  if (exact > room) {
    throw new SplatFormatError(`${what}: its zstd blocks hold more than the ${count(room)} bytes the header's splat count calls for`);
  }
  return { end: p, contentSize, exact };
}

/** Skippable frames (magic 0x184d2a50..5f, then a uint32 size) carry no content. */
function skippableEnd(stream: Uint8Array, at: number): number | undefined {
  if (at + 8 > stream.length || (u32(stream, at) & 0xfffffff0) !== 0x184d2a50) return undefined;
  return at + 8 + u32(stream, at + 4);
}

/**
 * Checks every frame of `stream` against `expected` bytes of output, without
 * decoding (what decodeZstdStream does first; also useful before handing
 * the stream to another decoder). `what` names the stream in messages.
 */
export function checkZstdStream(stream: Uint8Array, expected: number, what: string): void {
  walkStream(stream, expected, what, (_frame, walk, at) => at + (walk.contentSize ?? walk.exact));
}

function walkStream(
  stream: Uint8Array, expected: number, what: string,
  visit: (frame: Uint8Array, walk: FrameWalk, room: number) => number,
): number {
  let at = 0;
  let written = 0;
  while (at < stream.length) {
    const skip = skippableEnd(stream, at);
    if (skip !== undefined) {
      if (skip > stream.length) throw new SplatFormatError(`${what} is truncated inside a skippable zstd frame`);
      at = skip;
      continue;
    }
    if (at + 4 > stream.length || u32(stream, at) !== ZSTD_MAGIC) {
      throw new SplatFormatError(`${what} holds bytes at ${count(at)} that are not a zstd frame`);
    }
    const walk = walkFrame(stream, at, expected - written, what);
    written = visit(stream.subarray(at, walk.end), walk, written);
    at = walk.end;
  }
  return written;
}

/**
 * Decodes a stream of zstd frames that must come to exactly `expected`
 * bytes, allocating the output once and nothing the frames only claim.
 * Throws SplatFormatError (naming `what`) for a damaged stream or one that
 * decodes to more or fewer bytes.
 */
export function decodeZstdStream(stream: Uint8Array, expected: number, what: string): Uint8Array {
  // Walk all frames first: a damaged frame late in the stream costs no decoding.
  checkZstdStream(stream, expected, what);
  const out = allocateBytes(expected, what);
  const fail = (err: unknown): never => {
    if (err instanceof SplatFormatError) throw err;
    throw new SplatFormatError(`${what} could not be zstd-decompressed: ${(err as Error).message}`);
  };
  const written = walkStream(stream, expected, what, (frame, walk, at) => {
    try {
      if (walk.contentSize !== undefined) {
        decompress(frame, out.subarray(at, at + walk.contentSize));
        return at + walk.contentSize;
      }
      let end = at;
      const decoder = new Decompress((block) => {
        if (end + block.length > expected) {
          throw new SplatFormatError(`${what} decompresses to more than the ${count(expected)} bytes the header's splat count calls for`);
        }
        out.set(block, end);
        end += block.length;
      });
      decoder.push(frame, true);
      return end;
    } catch (err) {
      return fail(err);
    }
  });
  if (written !== expected) {
    throw new SplatFormatError(`${what} decompressed to ${count(written)} bytes, expected ${count(expected)}`);
  }
  return out;
}
