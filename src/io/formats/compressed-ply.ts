/**
 * PlayCanvas / SuperSplat compressed PLY: the PLY container (the same
 * magic as INRIA PLY), told apart by its header's `chunk` element and
 * packed vertex properties. Small for its splat count, so it is gathered
 * whole and then read. DOM-free.
 */
import { isCompressedPly, parseCompressedPly } from '../compressed-ply';
import { parsePlyHeader, sniffPlyHeader } from '../ply-header';
import type { SplatFormat } from './format';

export const COMPRESSED_PLY: SplatFormat<'compressed-ply'> = {
  id: 'compressed-ply',
  label: 'compressed PLY',
  extensions: ['.ply'],
  signature: "'ply'",
  sniff: (bytes, { partial }) => {
    const header = sniffPlyHeader(bytes, partial);
    if (header === 'more') return 'more';
    return typeof header === 'object' && isCompressedPly(header) ? 'yes' : 'no';
  },
  read: (bytes, options) => parseCompressedPly(bytes, parsePlyHeader(bytes), options),
};
