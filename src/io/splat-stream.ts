/**
 * Loads a splat file from a stream of byte chunks (a fetch body, a File
 * stream) while the bytes arrive. DOM-free.
 *
 * The format is sniffed from the first bytes (formats/detect.ts). A format
 * that decodes as it arrives (INRIA PLY, the format of big trainer output,
 * and antimatter15 .splat: their `stream`) gets the chunks record by record:
 * only a partial record is kept from the file, never the file itself. The
 * others (compressed PLY, SPZ, ksplat, SOG) are small for their splat count
 * or need the whole file (a zip's directory is at its end), so their chunks
 * are gathered into one buffer of the file's size and parsed at the end.
 */
import type { SplatCloud } from '../scene/splat-cloud';
import { SplatFormatError } from './format-error';
import { detectFormat, SNIFF_BYTES, sniffFormat } from './formats/detect';
import type { ReadableFormat } from './formats/format';
import type { RecordStream } from './record-stream';
import { loadSplatFile } from './parse-splat-file';
import { allocateBytes, checkByteCount, DEFAULT_LOAD_LIMITS, type LoadLimits } from './load-limits';

export type StreamStage = 'read' | 'parse';

export interface SplatStreamOptions {
  /** File name or URL: tells header-less formats apart, and names the file in messages. */
  name?: string;
  /** Bytes the stream will deliver, when known (File.size, an uncompressed Content-Length). */
  totalBytes?: number;
  /**
   * Bytes the source expects to deliver, for progress only, when that is
   * not known to be the file's size (a cross-origin download whose
   * Content-Encoding the page may not see).
   */
  expectedBytes?: number;
  /**
   * 'read': fraction of the bytes arrived (INRIA PLY is decoded as they
   * arrive, so it is also the parse progress); 'parse': the decode of a
   * gathered file.
   */
  onProgress?: (stage: StreamStage, fraction: number) => void;
  /**
   * What the scene may cost (default DEFAULT_LOAD_LIMITS): a file that
   * declares, delivers or inflates to more is refused as soon as it does.
   */
  limits?: LoadLimits;
  /** Told of anything odd that does not stop the load (e.g. bytes after a PLY's declared data). */
  onWarning?: (message: string) => void;
  /** Stops the load: no chunk is read after it aborts, and the load rejects with its reason. */
  signal?: AbortSignal;
  /**
   * Told after each chunk of a format decoded as it arrives (INRIA PLY,
   * .splat) how far the decoding has come: `cloud`'s first `decoded`
   * splats are final (its arrays may be longer, and are filled on after
   * the call returns); `expected` is the count the file declares, if it does.
   */
  onDecoded?: (cloud: SplatCloud, decoded: number, expected: number | undefined) => void;
}

/** Where the chunks go once the format is known: a decoder of records as they arrive, or a buffer to parse at the end. */
interface Sink {
  push(chunk: Uint8Array): void;
  /** Where a sink that decodes as the bytes arrive has come (src/io/record-stream.ts). */
  decoded?: RecordStream;
  /** True when the sink has all it needs: the rest of the stream is left unread. */
  enough(): boolean;
  finish(): Promise<SplatCloud>;
}

/**
 * A growing byte buffer: sized once when the total is known, doubling
 * otherwise, never past the limit's byte budget.
 */
class ByteGatherer {
  private data: Uint8Array;
  length = 0;

  constructor(expected: number | undefined, private readonly limits: LoadLimits) {
    if (expected !== undefined) checkByteCount(expected, limits, 'The file');
    this.data = allocateBytes(expected !== undefined && expected > 0 ? expected : Math.min(1 << 20, limits.maxBytes), 'the file');
  }

  append(chunk: Uint8Array): void {
    if (this.length + chunk.length > this.data.length) {
      const needed = this.length + chunk.length;
      checkByteCount(needed, this.limits, 'The file');
      const grown = allocateBytes(Math.min(this.limits.maxBytes, Math.max(this.data.length * 2, needed)), 'the file');
      grown.set(this.data.subarray(0, this.length));
      this.data = grown;
    }
    this.data.set(chunk, this.length);
    this.length += chunk.length;
  }

  bytes(): Uint8Array {
    return this.data.subarray(0, this.length);
  }
}

/**
 * Loads a splat file from its chunks and checks the decoded values
 * (validateSplatCloud). Throws SplatFormatError for a file that cannot be
 * read; errors of the stream itself (a network failure) pass through.
 */
export async function loadSplatStream(
  chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  options: SplatStreamOptions = {},
): Promise<SplatCloud> {
  const { totalBytes, onProgress, signal } = options;
  const limits = options.limits ?? DEFAULT_LOAD_LIMITS;
  signal?.throwIfAborted();
  // Formats decoded as they arrive are bounded by their splat count, not
  // their size; the gathered ones check the size when they start gathering.
  let received = 0;
  const progressBytes = totalBytes ?? options.expectedBytes;
  const reportRead = () => {
    if (onProgress && progressBytes !== undefined && progressBytes > 0) onProgress('read', Math.min(1, received / progressBytes));
  };

  // Bytes before the format is known: the PLY header, or the first few KB.
  const head = new ByteGatherer(SNIFF_BYTES, limits);
  let sink: Sink | undefined;

  for await (const chunk of chunks) {
    signal?.throwIfAborted();
    received += chunk.length;
    if (totalBytes !== undefined && received > totalBytes) {
      throw new SplatFormatError(
        `The file is longer than the ${totalBytes.toLocaleString('en-US')} bytes announced for it: the source gives a wrong size`,
      );
    }
    if (sink) {
      sink.push(chunk);
    } else {
      // A first chunk that is enough to decide is used as it is, not copied.
      if (head.length > 0) head.append(chunk);
      const start = head.length > 0 ? head.bytes() : chunk;
      // Fails on an unknown format now, not after gathering all of it.
      const format = sniffFormat(start, options.name);
      if (format !== 'more') sink = await open(format, start);
      else if (start === chunk) head.append(chunk);
    }
    reportRead();
    const decoded = sink?.decoded;
    if (decoded && options.onDecoded && decoded.decodedRecords > 0) options.onDecoded(decoded.decodedCloud, decoded.decodedRecords, decoded.expectedRecords);
    // Leaving the loop stops the stream (and its download), which a browser
    // then counts as an aborted request: so only when bytes are left to
    // come. A stream that has delivered all it announced ends by itself.
    if (sink?.enough() && (totalBytes === undefined || received < totalBytes)) break;
  }
  signal?.throwIfAborted();
  // A stream that ended while still deciding is a short file.
  sink ??= await open(detectFormat(head.bytes(), options.name), head.bytes());
  return sink.finish();

  /** Where the chunks of a file of `format` go, `start` being those that arrived so far. */
  async function open(format: ReadableFormat, start: Uint8Array): Promise<Sink> {
    if (format.stream) {
      // Without a known size, records decoded is the only progress there is.
      const recordProgress = progressBytes === undefined ? (f: number) => onProgress?.('read', f) : undefined;
      const stream = await format.stream(start, { totalBytes, onProgress: recordProgress, limits, onWarning: options.onWarning });
      // The decoder checks the values it decodes (RecordStream.finish).
      return { push: (chunk) => stream.push(chunk), decoded: stream, enough: () => stream.enough, finish: async () => stream.finish() };
    }
    const gatherer = new ByteGatherer(totalBytes, limits);
    gatherer.append(start);
    return {
      push: (chunk) => gatherer.append(chunk),
      enough: () => false,
      // Detected again on the whole file: a partial file is told by fewer bytes (a ksplat by its version).
      finish: () => loadSplatFile(gatherer.bytes(), options.name, { onProgress: (f) => onProgress?.('parse', f), limits, onWarning: options.onWarning }),
    };
  }
}
