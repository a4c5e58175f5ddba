/**
 * INRIA 3D Gaussian Splatting PLY, the format of trainers' output: a PLY
 * whose vertex rows hold the splats' parameters, decoded row by row while
 * the file arrives (ply-stream.ts). DOM-free.
 */
import { parsePlyHeader, sniffPlyHeader } from '../ply/header';
import { isCompressedPly } from './compressed-ply';
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
  read: async (bytes, options) => (await import('../ply/parse')).parseSplatPly(bytes, options),
  stream: async (start, options) => {
    const header = parsePlyHeader(start);
    const { createPlyVertexStream } = await import('../ply/stream');
    const stream = createPlyVertexStream(header, options);
    stream.push(start.subarray(header.headerLength));
    return stream;
  },
  writer: {
    write: async (cloud) => (await import('../writers/inria-ply')).writeInriaPly(cloud),
    keeps: 'every value, exactly, SH included',
  },
};
