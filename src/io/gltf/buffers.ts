/**
 * The bytes behind a glTF document's buffers and buffer views: the GLB's
 * BIN chunk, a data: URI decoded with a bound, a file beside the document
 * (buffer-files.ts), or a buffer view compressed with
 * EXT_meshopt_compression, decoded by the meshoptimizer package's decoder
 * (loaded only for a file that uses it). Only the buffers the splats' views
 * use are read. Every range is checked against the bytes present, and
 * every byte decoded or read from another file counts against the load's
 * byte limit before it is allocated or asked for. DOM-free.
 */
import type { CompanionReader } from '../formats/format';
import { SplatFormatError } from '../format-error';
import { allocateBytes, checkByteCount, type LoadLimits } from '../load-limits';
import { readBufferFile } from './buffer-files';
import type { GltfContainer } from './container';
import { entry, integer, isObject, objectAt, optionalString, type JsonObject } from './json';

export const MESHOPT = 'EXT_meshopt_compression';

/** A buffer view's bytes and the stride between its elements (undefined: tightly packed). */
export interface ViewBytes {
  bytes: Uint8Array;
  stride?: number;
}

const MESHOPT_MODES = new Set(['ATTRIBUTES', 'TRIANGLES', 'INDICES']);
const MESHOPT_FILTERS = new Set(['NONE', 'OCTAHEDRAL', 'QUATERNION', 'EXPONENTIAL', 'COLOR']);

export class GltfBuffers {
  private readonly buffers = new Map<number, Promise<Uint8Array>>();
  private readonly views = new Map<number, Promise<ViewBytes>>();
  /** Bytes decoded or read so far (data: URIs, buffer files, meshopt views): held with the file, so bounded with it. */
  private decodedBytes = 0;

  /** `companion` reads the files beside the document; absent, it was given alone and has none. */
  constructor(
    private readonly root: JsonObject,
    private readonly container: GltfContainer,
    private readonly limits: LoadLimits,
    private readonly companion?: CompanionReader,
  ) {}

  /** The bytes of buffer view `index`, decoded when compressed. */
  view(index: number): Promise<ViewBytes> {
    return once(this.views, index, () => this.readView(index));
  }

  private async readView(index: number): Promise<ViewBytes> {
    const where = `bufferViews[${index}]`;
    const json = entry(this.root, 'bufferViews', index);
    const byteLength = integer(json, 'byteLength', where, 1);
    const stride = json.byteStride === undefined ? undefined : integer(json, 'byteStride', where, 4, 252);
    const meshopt = isObject(json.extensions) ? json.extensions[MESHOPT] : undefined;
    if (meshopt !== undefined) return { bytes: await this.decodeMeshopt(objectAt(meshopt, `${where}.extensions.${MESHOPT}`), byteLength, where), stride };
    const buffer = integer(json, 'buffer', where);
    const byteOffset = integer(json, 'byteOffset', where, 0, Number.MAX_SAFE_INTEGER, 0);
    return { bytes: await this.range(buffer, byteOffset, byteLength, where), stride };
  }

  /** `byteLength` bytes at `byteOffset` of buffer `buffer`, checked against the bytes present. */
  private async range(buffer: number, byteOffset: number, byteLength: number, where: string): Promise<Uint8Array> {
    const bytes = await this.buffer(buffer);
    if (byteOffset + byteLength > bytes.length) {
      throw new SplatFormatError(
        `glTF ${where} takes bytes ${byteOffset} to ${byteOffset + byteLength} of buffers[${buffer}], which has ${bytes.length}`,
      );
    }
    return bytes.subarray(byteOffset, byteOffset + byteLength);
  }

  /** The bytes of buffer `index`, read once however many views use it. */
  private buffer(index: number): Promise<Uint8Array> {
    return once(this.buffers, index, () => this.readBuffer(index));
  }

  private async readBuffer(index: number): Promise<Uint8Array> {
    const where = `buffers[${index}]`;
    const json = entry(this.root, 'buffers', index);
    const declared = integer(json, 'byteLength', where, 1);
    const uri = optionalString(json, 'uri', where);
    let bytes: Uint8Array;
    let holder = 'the file';
    if (uri?.startsWith('data:')) {
      bytes = this.dataUri(uri, where);
    } else if (uri !== undefined) {
      this.count(declared, `glTF ${where}`);
      ({ bytes, name: holder } = await readBufferFile(uri, declared, where, this.companion));
      holder = `"${holder}"`;
    } else if (isObject(json.extensions) && isObject(json.extensions[MESHOPT]) && json.extensions[MESHOPT].fallback === true) {
      throw new SplatFormatError(`glTF ${where} is the placeholder of ${MESHOPT} data, but a buffer view reads it uncompressed`);
    } else if (this.container.binary && index === 0 && this.container.bin) {
      bytes = this.container.bin;
    } else {
      throw new SplatFormatError(`glTF ${where} has no uri${this.container.binary ? ' and is not the GLB\'s BIN chunk' : ''}: its bytes are nowhere in the file`);
    }
    if (declared > bytes.length) {
      throw new SplatFormatError(`glTF ${where} declares ${declared} bytes, but ${holder} holds ${bytes.length} of it`);
    }
    return bytes.subarray(0, declared);
  }

  /** A base64 data: URI's bytes; the decoded size is checked before they are allocated. */
  private dataUri(uri: string, where: string): Uint8Array {
    const comma = uri.indexOf(',');
    if (comma < 0 || !uri.slice(0, comma).endsWith(';base64')) {
      throw new SplatFormatError(`glTF ${where} is a data: URI that is not base64`);
    }
    const text = uri.slice(comma + 1);
    const size = Math.floor((text.length * 3) / 4);
    this.count(size, `glTF ${where}'s data: URI`);
    return decodeBase64(text, allocateBytes(size, `glTF ${where}`), where);
  }

  /** An EXT_meshopt_compression buffer view, decoded by meshoptimizer into `byteLength` bytes. */
  private async decodeMeshopt(json: JsonObject, byteLength: number, where: string): Promise<Uint8Array> {
    const inner = `${where}.extensions.${MESHOPT}`;
    const buffer = integer(json, 'buffer', inner);
    const byteOffset = integer(json, 'byteOffset', inner, 0, Number.MAX_SAFE_INTEGER, 0);
    const compressedLength = integer(json, 'byteLength', inner, 1);
    const stride = integer(json, 'byteStride', inner, 1, 256);
    const count = integer(json, 'count', inner, 1);
    const mode = optionalString(json, 'mode', inner) ?? '';
    const filter = optionalString(json, 'filter', inner) ?? 'NONE';
    if (!MESHOPT_MODES.has(mode)) throw new SplatFormatError(`glTF ${inner}.mode is "${mode}": not a meshopt mode`);
    if (!MESHOPT_FILTERS.has(filter)) throw new SplatFormatError(`glTF ${inner}.filter is "${filter}": not a meshopt filter`);
    const decoded = count * stride;
    if (decoded < byteLength) {
      throw new SplatFormatError(`glTF ${inner} decodes to ${decoded} bytes (${count} × ${stride}), fewer than the view's ${byteLength}`);
    }
    this.count(decoded, `glTF ${where} decompressed`);
    const source = await this.range(buffer, byteOffset, compressedLength, inner);
    const target = allocateBytes(decoded, `glTF ${where}`);
    const { MeshoptDecoder } = await import('meshoptimizer/decoder');
    await MeshoptDecoder.ready;
    try {
      MeshoptDecoder.decodeGltfBuffer(target, count, stride, source, mode, filter);
    } catch (error) {
      throw new SplatFormatError(`glTF ${where}'s ${MESHOPT} data could not be decoded: ${(error as Error).message}`);
    }
    return target.subarray(0, byteLength);
  }

  /** Counts `bytes` more decoded bytes against the limit, before they are allocated. */
  private count(bytes: number, what: string): void {
    checkByteCount(this.decodedBytes + bytes, this.limits, `${what} (with the bytes decoded before it)`);
    this.decodedBytes += bytes;
  }
}

/** `held`'s value for `index`, made by `make` the first time it is asked for. */
function once<T>(held: Map<number, T>, index: number, make: () => T): T {
  let value = held.get(index);
  if (value === undefined) {
    value = make();
    held.set(index, value);
  }
  return value;
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const SEXTETS = new Int8Array(128).fill(-1);
for (let i = 0; i < BASE64.length; i++) SEXTETS[BASE64.charCodeAt(i)] = i;

/** Base64 `text` into `out` (sized for it); the decoded bytes, a prefix of `out`. */
function decodeBase64(text: string, out: Uint8Array, where: string): Uint8Array {
  let bits = 0, held = 0, at = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 61) break; // '=' padding ends the data
    const sextet = code < 128 ? SEXTETS[code]! : -1;
    if (sextet < 0) throw new SplatFormatError(`glTF ${where}'s data: URI has a character that is not base64 at ${i}`);
    bits = ((bits << 6) | sextet) & 0xffffff;
    held += 6;
    if (held >= 8) {
      held -= 8;
      out[at++] = (bits >> held) & 0xff;
    }
  }
  return out.subarray(0, at);
}
