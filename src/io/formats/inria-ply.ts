/**
 * INRIA 3D Gaussian Splatting PLY, the format of trainers' output: a PLY
 * whose vertex rows hold the splats' parameters, decoded row by row while
 * the file arrives (ply-stream.ts). DOM-free.
 */
import { isCompressedPly } from '../compressed-ply';
import { parseSplatPly } from '../ply';
import { parsePlyHeader, sniffPlyHeader } from '../ply-header';
import { createPlyVertexStream } from '../ply-stream';
import type { SplatFormat } from './format';

export const INRIA_PLY: SplatFormat<'ply'> = {
  id: 'ply',
  label: 'INRIA PLY',
  extensions: ['.ply'],
  signature: "'ply'",
  sniff: (bytes, { partial }) => {
    const header = sniffPlyHeader(bytes, partial);
    if (header === undefined) return 'no';
    if (header === 'more') return 'more';
    // A header cut short is read as this one, whose parser says what is missing.
    return header === 'truncated' || !isCompressedPly(header) ? 'yes' : 'no';
  },
  read: (bytes, options) => parseSplatPly(bytes, options),
  stream: (start, options) => {
    const header = parsePlyHeader(start);
    const stream = createPlyVertexStream(header, options);
    stream.push(start.subarray(header.headerLength));
    return stream;
  },
};
