/** Niantic SPZ: gzip-wrapped (versions 2 and 3) or zstd streams (version 4), decompressed by spz/. DOM-free. */
import type { SplatFormat } from './format';

export const SPZ: SplatFormat<'spz'> = {
  id: 'spz',
  label: 'SPZ',
  extensions: ['.spz'],
  writer: {
    write: async (cloud) => (await import('../writers/spz')).writeSpz(cloud),
    keeps: 'positions to 1/4096, colour, opacity, scale, rotation and SH in 8 to 10 bits; gzipped, the smallest',
  },
};
