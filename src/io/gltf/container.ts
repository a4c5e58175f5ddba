/**
 * The two ways a glTF asset comes as one file: a binary .glb (a 12-byte
 * header, then a JSON chunk and an optional BIN chunk) or a .gltf JSON
 * text. Every length the header and chunks declare is checked against the
 * bytes present before anything is sliced or decoded. DOM-free.
 */
import { SplatFormatError } from '../format-error';

/** 'glTF' read as a little-endian uint32: the first four bytes of every .glb. */
export const GLB_MAGIC = 0x46546c67;
export const GLB_VERSION = 2;
export const GLB_HEADER_BYTES = 12;
export const CHUNK_HEADER_BYTES = 8;
/** 'JSON' and 'BIN\0' as little-endian uint32s. */
export const CHUNK_JSON = 0x4e4f534a;
export const CHUNK_BIN = 0x004e4942;

/** The asset's JSON text, parsed, and the GLB's BIN chunk when it has one. */
export interface GltfContainer {
  json: unknown;
  bin?: Uint8Array;
  /** True for a .glb: a buffer without a uri is then its BIN chunk. */
  binary: boolean;
}

export function isGlb(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true) === GLB_MAGIC;
}

/** The container of a .glb or .gltf held whole in memory. */
export function readContainer(bytes: Uint8Array): GltfContainer {
  if (isGlb(bytes)) return readGlb(bytes);
  return { json: parseJson(bytes, 'The .gltf file'), binary: false };
}

function readGlb(bytes: Uint8Array): GltfContainer {
  if (bytes.length < GLB_HEADER_BYTES + CHUNK_HEADER_BYTES) {
    throw new SplatFormatError(`GLB file is truncated: ${bytes.length} bytes, fewer than its header and first chunk header (20)`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint32(4, true);
  if (version !== GLB_VERSION) throw new SplatFormatError(`GLB version ${version} is not read: only version 2 is`);
  const declared = view.getUint32(8, true);
  if (declared > bytes.length) {
    throw new SplatFormatError(`GLB file is truncated: its header declares ${declared} bytes, but the file has ${bytes.length}`);
  }
  let json: unknown;
  let bin: Uint8Array | undefined;
  let at = GLB_HEADER_BYTES;
  for (let chunk = 0; at + CHUNK_HEADER_BYTES <= declared; chunk++) {
    const length = view.getUint32(at, true);
    const type = view.getUint32(at + 4, true);
    const start = at + CHUNK_HEADER_BYTES;
    if (length > declared - start) {
      throw new SplatFormatError(
        `GLB chunk ${chunk} declares ${length} bytes at byte ${start}, past the end of the file's ${declared} bytes`,
      );
    }
    const data = bytes.subarray(start, start + length);
    if (chunk === 0) {
      if (type !== CHUNK_JSON) throw new SplatFormatError('GLB file does not start with a JSON chunk');
      json = parseJson(data, 'The GLB JSON chunk');
    } else if (chunk === 1 && type === CHUNK_BIN) {
      bin = data;
    }
    // Chunks of other types are skipped, as the glTF specification asks.
    at = start + length;
  }
  if (json === undefined) throw new SplatFormatError('GLB file has no JSON chunk');
  return { json, bin, binary: true };
}

function parseJson(bytes: Uint8Array, what: string): unknown {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new SplatFormatError(`${what} is not UTF-8 text`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    // The engine's message may quote the text around the fault: kept to one short line.
    const reason = (error as Error).message.replace(/\s+/g, ' ').slice(0, 160);
    throw new SplatFormatError(`${what} is not valid JSON: ${reason}`);
  }
}
