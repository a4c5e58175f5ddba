/**
 * Parser for INRIA 3D Gaussian Splatting .ply files (binary, either endianness)
 * held whole in memory into a SplatCloud with activations applied: the
 * header (ply-header.ts), then the rows through the streaming decoder
 * (ply-stream.ts). DOM-free: runs in a worker, on the main thread or in Node.
 */
import type { SplatCloud } from '../../scene/splat-cloud';
import { SplatFormatError } from '../format-error';
import { parsePlyHeader } from './header';
import { createPlyVertexStream, type PlyStreamOptions } from './stream';

export { SplatFormatError, parsePlyHeader };
export type {
  PlyElement, PlyFormat, PlyHeader, PlyListProperty, PlyProperty, PlyScalarProperty, PlyScalarType,
} from './header';

/**
 * Parses an INRIA 3DGS binary PLY held whole in memory. Properties are found
 * by name in any order and read by their declared type; other properties and
 * other elements are skipped. `onProgress` gets fractions in [0, 1] every 64K
 * rows. (Streams: parsePlyHeader + createPlyVertexStream.)
 */
export function parseSplatPly(
  buffer: ArrayBuffer | Uint8Array,
  options: Omit<PlyStreamOptions, 'totalBytes'> = {},
): SplatCloud {
  const bytes = buffer instanceof Uint8Array ? buffer : new Uint8Array(buffer);
  const header = parsePlyHeader(bytes);
  const stream = createPlyVertexStream(header, { ...options, totalBytes: bytes.byteLength });
  stream.push(bytes.subarray(header.headerLength));
  return stream.finish();
}
