/**
 * A scene's files as the loaders read them: a source gives its main
 * file's bytes as they arrive and any file beside it by name; the bytes
 * are taken whole but bounded, or chunk by chunk from a stream or from
 * memory. Nothing here knows a format, so the world's readers (lod/) use
 * it without the formats' list and every decoder that list loads. DOM-free.
 */
import { SplatLimitError } from './load-limits';

/** A file's bytes as they arrive. */
export interface SourceBytes {
  chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>;
  /** The file's size, when known for certain. */
  totalBytes: number | undefined;
  /** What the source announces, for progress only, when that is not known to be the size. */
  expectedBytes?: number;
}

export interface SceneSource {
  /** The main file's name, path or URL: its last path segment names it in messages and tells formats by name. */
  readonly name: string;
  /** How its bytes arrive: 'download' over the network, 'read' from a disk or memory. */
  readonly stage: 'download' | 'read';
  /** The main file's bytes; a download is cancelled once `signal` aborts. */
  open(signal?: AbortSignal): Promise<SourceBytes>;
  /**
   * A file beside the main one, by the name the main file gives it. Throws
   * (SplatLimitError) rather than hold more than `maxBytes`, and rejects
   * with the signal's reason (an AbortError) once `signal` aborts: a
   * download is cancelled, a file read is not started or not returned.
   */
  companion(name: string, maxBytes: number, signal?: AbortSignal): Promise<Uint8Array>;
}

/**
 * All of a file's bytes, refused with a SplatLimitError as soon as they pass
 * `maxBytes` (a size known up front is checked first), so a lying or
 * endless source costs no more than the bound.
 */
export async function readBounded(source: SourceBytes, maxBytes: number, what: string): Promise<Uint8Array> {
  const refuse = (bytes: number, more: string) => {
    throw new SplatLimitError(`${what} is ${bytes.toLocaleString('en-US')} bytes${more}: more than the ${maxBytes.toLocaleString('en-US')} it can take`);
  };
  if (source.totalBytes !== undefined && source.totalBytes > maxBytes) refuse(source.totalBytes, '');
  const parts: Uint8Array[] = [];
  let length = 0;
  for await (const chunk of source.chunks) {
    length += chunk.length;
    if (length > maxBytes) refuse(length, ' or more');
    parts.push(chunk);
  }
  const bytes = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  return bytes;
}

/**
 * Reads a ReadableStream as an async iterable of chunks (older browsers lack
 * its async iterator). A reader that stops early (an error, a cancelled
 * load, a file with all it needs) cancels the stream, which aborts a
 * download.
 */
export async function* streamChunks(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  let ended = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        ended = true;
        return;
      }
      if (value.byteLength > 0) yield value;
    }
  } finally {
    if (!ended) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

/** Splits one buffer into chunks, to feed the streaming path from memory (tests, benchmarks). */
export function* chunksOf(bytes: Uint8Array, chunkSize: number): Generator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += chunkSize) yield bytes.subarray(at, Math.min(bytes.length, at + chunkSize));
}
