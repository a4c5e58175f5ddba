/**
 * Undoing the gzip wrapping of an SPZ file with the global
 * DecompressionStream, as a stream that keeps only the bytes its header
 * calls for: the header is checked on its first 16 bytes and the count
 * against the load limits before anything is allocated, the output is
 * allocated once at the size the header (and for version 4 the stream
 * table) implies, and inflating stops there. So a decompression bomb costs
 * no more than a real scene of the size it claims. DOM-free.
 */
import { SPZ_EXTENSIONS_MAX_BYTES } from './stored-frame';
import { SplatFormatError } from '../format-error';
import { allocateBytes, checkByteCount, checkSplatCount, type LoadLimits } from '../load-limits';
import { MAX_DEFLATE_RATIO } from '../zip-inflate';
import { HEADER_BYTES, planeSizes, readSpzHeader, V4_HEADER_BYTES, v4DataEnd, v4TableEnd } from './layout';

/**
 * Bytes arriving from a decompression stream, gathered only as far as they
 * are asked for: the header decides how many the file may have.
 */
class GzipPrefix {
  private parts: Uint8Array[] = [];
  private have = 0;
  private ended = false;

  constructor(private readonly reader: ReadableStreamDefaultReader<Uint8Array>) {}

  /** Reads until `n` bytes have arrived or the stream has ended; returns how many have. */
  async fill(n: number): Promise<number> {
    while (this.have < n && !this.ended) {
      const { value, done } = await this.reader.read();
      if (done) this.ended = true;
      else if (value.length > 0) {
        this.parts.push(value);
        this.have += value.length;
      }
    }
    return this.have;
  }

  /** The first `n` bytes (or all there are, if fewer), as one array. */
  head(n: number): Uint8Array {
    const out = new Uint8Array(Math.min(n, this.have));
    let at = 0;
    for (const part of this.parts) {
      if (at >= out.length) break;
      const take = part.subarray(0, out.length - at);
      out.set(take, at);
      at += take.length;
    }
    return out;
  }

  /**
   * Fills `out` from the start of the stream, reading no further than its
   * length; returns how many bytes it got (fewer when the stream ended).
   */
  async readInto(out: Uint8Array): Promise<number> {
    let at = 0;
    const put = (chunk: Uint8Array): void => {
      const take = chunk.subarray(0, out.length - at);
      out.set(take, at);
      at += take.length;
    };
    for (const part of this.parts) put(part);
    this.parts = [];
    while (at < out.length && !this.ended) {
      const { value, done } = await this.reader.read();
      if (done) this.ended = true;
      else put(value);
    }
    return at;
  }
}

/**
 * Undoes the gzip wrapping of an SPZ file as a stream, keeping only the
 * bytes its header calls for: 16 + the planes for versions 2 and 3, the
 * header, stream table and streams for version 4. The count is checked
 * against the limits, and a version 4 table's sizes against maxBytes,
 * before the output is allocated (once); reading stops when it is full.
 */
export async function gunzipSpz(bytes: Uint8Array, limits: LoadLimits): Promise<Uint8Array> {
  if (typeof DecompressionStream === 'undefined') {
    throw new SplatFormatError('SPZ file is gzip-compressed, but DecompressionStream is not available here');
  }
  // The Blob copies the bytes itself; a copy here would double the input's cost.
  const reader = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new DecompressionStream('gzip')).getReader();
  const input = new GzipPrefix(reader);
  try {
    await input.fill(HEADER_BYTES);
    const h = readSpzHeader(input.head(HEADER_BYTES));
    checkSplatCount(h.count, h.shDegree, limits, 'The SPZ header declares');
    // Deflate expands at most 1032:1 (a 258-byte match in 2 bits), so a size
    // beyond that is refused before it is allocated or inflated: the stream
    // is cut short or the header lies.
    const most = MAX_DEFLATE_RATIO * bytes.length;
    const inflatable = (size: number, what: string): void => {
      if (size <= most) return;
      throw new SplatFormatError(
        `SPZ data is truncated: ${what} calls for ${size} bytes, but a ${bytes.length}-byte gzip stream inflates to at most ${most}`,
      );
    };
    let size: number;
    if (h.version < 4) {
      size = HEADER_BYTES + planeSizes(h).reduce((a, b) => a + b, 0);
      inflatable(size, `the header's count of ${h.count} splats`);
    } else {
      await input.fill(V4_HEADER_BYTES);
      const tableEnd = v4TableEnd(input.head(V4_HEADER_BYTES), h);
      checkByteCount(tableEnd, limits, 'The decompressed SPZ data, up to its stream table,');
      inflatable(tableEnd, 'the stream table\'s place');
      await input.fill(tableEnd);
      size = v4DataEnd(input.head(tableEnd), h);
      checkByteCount(size, limits, 'The decompressed SPZ data its stream table describes');
      inflatable(size, 'the stream table');
    }
    // A gzip-wrapped file's extension records follow its planes: a bounded few more bytes are kept.
    const extensions = h.version < 4 && h.hasExtensions ? SPZ_EXTENSIONS_MAX_BYTES : 0;
    const kept = allocateBytes(size + extensions, 'the decompressed SPZ data');
    const got = await input.readInto(kept);
    const out = kept.subarray(0, Math.max(size, Math.min(got, kept.length)));
    if (got < size) {
      throw new SplatFormatError(h.version < 4
        ? `SPZ data is truncated: the header says ${h.count} splats (${size - HEADER_BYTES} bytes of attributes) ` +
          `but the data holds only ${got - HEADER_BYTES} bytes`
        : `SPZ data is truncated: its header and stream table call for ${size} bytes, but the data holds only ${got}`);
    }
    return out;
  } catch (err) {
    if (err instanceof SplatFormatError) throw err;
    throw new SplatFormatError(`SPZ file is not valid gzip: ${(err as Error).message}`);
  } finally {
    // Stop inflating: what follows the data is ignored, however much it is.
    reader.cancel().catch(() => undefined);
  }
}
